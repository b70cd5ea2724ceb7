import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { awarenessResults } from '../../db/schema';
import { programKind, publishProgram, submitAttempt } from '../../src/modules/awareness/service';
import { runWrite } from '../../src/platform/http/context';
import { collectDay, sendDigests } from '../../src/platform/notifications/reminders';
import { createRecord } from '../../src/platform/records/records';
import { startTestEnv, type TestEnv } from '../helpers/app';
import { makeUser, unique, type TestUser } from '../helpers/factories';
import { startTestSmtp, type TestSmtp } from '../helpers/smtp';

/** Training not passed by the end of its period feeds the daily digest of the person it is assigned to. */

let env: TestEnv;
let smtp: TestSmtp;
let manager: TestUser;
/** Holds no right at all: being in a program's audience is what makes the training theirs. */
let learner: TestUser;
let passer: TestUser;

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const DAY = addDays(new Date().toISOString().slice(0, 10), 400);
const titles = { soon: unique('Phishing basics'), late: unique('Clean desk'), far: unique('Travel security'), draft: unique('Draft program') };
const QUESTION = { text: 'Report a phishing mail?', kind: 'single' as const, choices: ['No', 'Yes'], correct: [1] };

async function program(title: string, endsOn: string, audience: TestUser[], publish = true): Promise<string> {
  const actor = await manager.actor();
  return runWrite(env.ctx, async (tx) => {
    const { id } = await createRecord(tx, programKind, actor, { title, endsOn, questions: [QUESTION], audienceUserIds: audience.map((p) => p.id) });
    if (publish) await publishProgram(tx, actor, id);
    return id;
  });
}
const resultOf = async (programId: string, person: TestUser) =>
  (await env.ctx.db.select().from(awarenessResults).where(and(eq(awarenessResults.programId, programId), eq(awarenessResults.personId, person.id))))[0];

beforeAll(async () => {
  smtp = await startTestSmtp();
  env = await startTestEnv({ SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'GRC <grc@test.example>', PUBLIC_URL: 'https://grc.test.example' });
  manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' }, unique('manager'));
  learner = await makeUser(env, {}, unique('lee.learner'));
  passer = await makeUser(env, {}, unique('pat.passer'));
  const soon = await program(titles.soon, addDays(DAY, 7), [learner, passer]);
  await program(titles.late, addDays(DAY, -3), [learner]);
  await program(titles.far, addDays(DAY, 20), [learner]);
  await program(titles.draft, addDays(DAY, -1), [learner], false);
  const passed = await resultOf(soon, passer);
  const passerActor = await passer.actor();
  await runWrite(env.ctx, async (tx) => submitAttempt(tx, passerActor, passed.id, { answers: [[1]] }));
}, 120_000);

afterAll(async () => {
  await smtp.close();
});

describe('training in the daily digest', () => {
  test('a person is reminded of their own training a week before its end and once overdue, with a link to take it, without any right', async () => {
    expect(await env.ctx.db.transaction((tx) => collectDay(env.ctx, tx, DAY))).toBe(true);
    await sendDigests(env.ctx);
    await env.ctx.mailer.deliverOutbox();
    const mail = await smtp.waitFor((m) => m.to.includes(learner.email) && m.subject.startsWith(`Reminders for ${DAY}`));
    expect(mail.subject).toBe(`Reminders for ${DAY}: 2 items due or overdue`);
    expect(mail.body).toMatch(new RegExp([
      'Training to complete \\(2\\)',
      `  - ${titles.late}: due ${addDays(DAY, -3)} \\(3 days overdue\\); not started`,
      '    https://grc\\.test\\.example/awareness/my/[0-9a-f-]{36}',
      `  - ${titles.soon}: due ${addDays(DAY, 7)}; not started`,
      '    https://grc\\.test\\.example/awareness/my/[0-9a-f-]{36}',
    ].join('\n')));
    expect(mail.body).not.toContain(titles.far);
    expect(mail.body).not.toContain(titles.draft);
    // Passed training is done: its person gets no digest at all.
    expect(smtp.received.some((m) => m.to.includes(passer.email))).toBe(false);
  }, 120_000);
});
