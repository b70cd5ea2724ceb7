import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { awarenessPrograms, awarenessResults, history } from '../../db/schema';
import { nextRound, programKind, publishProgram, submitAttempt } from '../../src/modules/awareness/service';
import { runWrite } from '../../src/platform/http/context';
import { sweepOnce } from '../../src/platform/modules/sweep';
import { createRecord } from '../../src/platform/records/records';
import { todayIso } from '../../src/platform/core/dates';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';

/** A recurring program runs again every N months: its period moves on and everyone takes it again. */

let env: TestEnv;
let manager: TestUser;
let token: string;
beforeAll(async () => {
  env = await startTestEnv();
  manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' }, unique('manager'));
  token = await makeToken(env, await adminActor(env), ['awareness:read', 'awareness:create', 'awareness:update']);
});

const today = todayIso();
const QUESTION = { text: 'Report a phishing mail?', kind: 'single' as const, choices: ['No', 'Yes'], correct: [1] };
const post = (body: object) => env.request('/api/v1/awareness/programs', bearer(token, { method: 'POST', body: JSON.stringify({ title: unique('Yearly basics'), ...body }) }));
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe('a recurring program', () => {
  test('needs a start and an end date, and its period must end before the next round starts', async () => {
    const undated = await post({ recurrenceMonths: 12 });
    expect(undated.status).toBe(400);
    expect(await errorOf(undated)).toBe('recurrenceMonths: a recurring program needs a start and an end date (each round runs for that period)');
    const overlapping = await post({ recurrenceMonths: 1, startsOn: '2027-01-31', endsOn: '2027-02-28' });
    expect(overlapping.status).toBe(400);
    expect(await errorOf(overlapping)).toBe('endsOn: must be before the next round starts on 2027-02-28 (1 month after the start)');
    expect((await post({ recurrenceMonths: 1, startsOn: '2027-01-31', endsOn: '2027-02-27' })).status).toBe(201);
    expect((await post({ recurrenceMonths: 61, startsOn: '2027-01-01', endsOn: '2027-01-31' })).status).toBe(400);
  });

  test('when its next round begins, the sweep moves the period on and everyone takes it again; the round before stays in History', async () => {
    const [passer, newcomer] = await Promise.all([makeUser(env, {}, unique('pat')), makeUser(env, {}, unique('nia'))]);
    const startsOn = nextRound(today, -13);
    const endsOn = nextRound(startsOn, 1);
    const actor = await manager.actor();
    const id = await runWrite(env.ctx, async (tx) => {
      const created = await createRecord(tx, programKind, actor, { title: unique('Yearly basics'), startsOn, endsOn, recurrenceMonths: 12, questions: [QUESTION], audienceUserIds: [passer.id] });
      await publishProgram(tx, actor, created.id);
      return created.id;
    });
    const resultOf = async (person: TestUser) =>
      (await env.ctx.db.select().from(awarenessResults).where(and(eq(awarenessResults.programId, id), eq(awarenessResults.personId, person.id))))[0];
    const passerActor = await passer.actor();
    const { id: passerResult } = await resultOf(passer);
    await runWrite(env.ctx, async (tx) => submitAttempt(tx, passerActor, passerResult, { answers: [[1]] }));
    expect((await resultOf(passer)).status).toBe('passed');
    // Joined the audience after publishing: assigned by the next round.
    await env.ctx.db.update(awarenessPrograms).set({ audienceUserIds: [passer.id, newcomer.id] }).where(eq(awarenessPrograms.id, id));

    expect(await sweepOnce(env.ctx)).toBe(true);
    const [program] = await env.ctx.db.select().from(awarenessPrograms).where(eq(awarenessPrograms.id, id));
    expect([program.startsOn, program.endsOn]).toEqual([nextRound(startsOn, 12), nextRound(endsOn, 12)]);
    expect(await resultOf(passer)).toMatchObject({ status: 'assigned', score: null, attempts: 0, completedAt: null, answers: null });
    expect((await resultOf(newcomer)).status).toBe('assigned');
    const resultHistory = await env.ctx.db.select().from(history).where(eq(history.recordId, (await resultOf(passer)).id));
    expect(resultHistory.at(-1)).toMatchObject({ action: 'update', source: 'the next round of a recurring program', changes: expect.objectContaining({ status: { before: 'passed', after: 'assigned' } }) });
    const programHistory = await env.ctx.db.select().from(history).where(eq(history.recordId, id));
    expect(programHistory.at(-1)?.changes).toEqual({ startsOn: { before: startsOn, after: nextRound(startsOn, 12) }, endsOn: { before: endsOn, after: nextRound(endsOn, 12) } });

    // The round holding today has begun: the next sweep leaves it alone.
    expect(await sweepOnce(env.ctx)).toBe(true);
    const [again] = await env.ctx.db.select().from(awarenessPrograms).where(eq(awarenessPrograms.id, id));
    expect(again.startsOn).toBe(nextRound(startsOn, 12));
  });

  test('a program behind by several rounds catches up to the round holding today in one step', async () => {
    const person = await makeUser(env, {}, unique('sam'));
    const startsOn = nextRound(today, -25);
    const actor = await manager.actor();
    const id = await runWrite(env.ctx, async (tx) => {
      const created = await createRecord(tx, programKind, actor, { title: unique('Quarterly'), startsOn, endsOn: nextRound(startsOn, 1), recurrenceMonths: 12, audienceUserIds: [person.id] });
      await publishProgram(tx, actor, created.id);
      return created.id;
    });
    expect(await sweepOnce(env.ctx)).toBe(true);
    const [program] = await env.ctx.db.select().from(awarenessPrograms).where(eq(awarenessPrograms.id, id));
    expect(program.startsOn).toBe(nextRound(startsOn, 24));
  });
});
