import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await makeToken(env, await adminActor(env), ['awareness:read', 'awareness:create', 'awareness:update', 'awareness:delete']);
});

const send = (method: string, path: string, body?: unknown, secret = admin) =>
  env.request(path, bearer(secret, body === undefined ? { method } : { method, body: JSON.stringify(body) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

/** Four questions: three single choice (the right one is index 1) and one multiple choice (0 and 2 are right). */
const QUESTIONS = [
  { text: 'A message asks for your password at a link. What do you do?', kind: 'single', choices: ['Sign in at the link', 'Report it'], correct: [1] },
  { text: 'Where do you store customer files?', kind: 'single', choices: ['A USB stick', 'The document system', 'Your mailbox'], correct: [1] },
  { text: 'A stranger follows you through the door. What do you do?', kind: 'single', choices: ['Hold it open', 'Ask for their badge'], correct: [1] },
  { text: 'Which make a strong password?', kind: 'multiple', choices: ['Length', 'Your birthday', 'A password manager', 'The same everywhere'], correct: [0, 2] },
];
const ALL_RIGHT = [[1], [1], [1], [0, 2]];

async function makeProgram(body: Record<string, unknown> = {}, secret = admin): Promise<string> {
  const res = await send('POST', '/api/v1/awareness/programs', { title: unique('Security basics'), content: '# Be careful\nThink before you click.', questions: QUESTIONS, passMark: 75, ...body }, secret);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

interface Result { id: string; programId: string; person: { id: string; name: string }; status: string; score: number | null; attempts: number; completedAt: string | null }

async function resultOf(programId: string, person: TestUser): Promise<Result> {
  const page = await json<{ rows: Result[] }>(await send('GET', `/api/v1/awareness/results?programId=${programId}&personId=${person.id}`));
  expect(page.rows).toHaveLength(1);
  return page.rows[0];
}

const learner = () => makeUser(env, { 'awareness:read': 'own', 'apiTokens:create': 'own' });

describe('awareness programs over REST', () => {
  test('a program is created as a draft owned by its creator, changed with History, and deleted', async () => {
    const id = await makeProgram({ contentUrl: 'https://training.example/phishing', startsOn: '2026-01-01', endsOn: '2026-12-31' });
    const program = await json<Record<string, unknown>>(await send('GET', `/api/v1/awareness/programs/${id}`));
    expect(program).toMatchObject({ status: 'draft', passMark: 75, contentUrl: 'https://training.example/phishing', startsOn: '2026-01-01', endsOn: '2026-12-31', audienceGroupIds: [], audienceUserIds: [] });
    expect((program.questions as unknown[]).length).toBe(4);
    expect((program.owner as { email: string }).email).toBe(ADMIN_EMAIL);

    const changed = await send('PATCH', `/api/v1/awareness/programs/${id}`, { passMark: 90 });
    expect(changed.status, await changed.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/awareness/programs/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { passMark: { before: 75, after: 90 } } });

    expect((await send('DELETE', `/api/v1/awareness/programs/${id}`)).status).toBe(204);
    expect(await refusalOf(env, () => send('GET', `/api/v1/awareness/programs/${id}`))).toEqual(refusedWith(404, 'Awareness program <id> not found'));
  });

  test('a test whose right answers do not fit its choices, a period ending before it starts and an unknown group are refused together', async () => {
    const res = await send('POST', '/api/v1/awareness/programs', {
      title: 'Broken', startsOn: '2026-05-01', endsOn: '2026-04-01', audienceGroupIds: ['00000000-0000-4000-8000-000000000000'],
      questions: [
        { text: 'Pick one', kind: 'single', choices: ['a', 'b'], correct: [0, 1] },
        { text: 'Pick some', kind: 'multiple', choices: ['a', 'b'], correct: [3] },
      ],
    });
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error).toContain('questions.0: a single-choice question has exactly one right choice');
    expect(error).toContain('questions.1: a right answer points past the 2 choices');
    expect(error).toContain('endsOn: must not be before the start');
    expect(error).toContain('audienceGroupIds: names a group that does not exist');
    expect((await send('POST', '/api/v1/awareness/programs', { title: 'x', passMark: 101 })).status).toBe(400);
  });

  test('at the own level a manager reads and changes only programs they own; without the right or scope they are refused', async () => {
    const manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own', 'apiTokens:create': 'own' });
    const token = await makeToken(env, await manager.actor('api'), ['awareness:read', 'awareness:create', 'awareness:update']);
    const mine = await makeProgram({}, token);
    const theirs = await makeProgram();
    const listed = await json<{ rows: { id: string }[] }>(await send('GET', '/api/v1/awareness/programs?pageSize=200', undefined, token));
    expect(listed.rows.map((r) => r.id)).toEqual([mine]);
    expect(await refusalOf(env, () => send('GET', `/api/v1/awareness/programs/${theirs}`, undefined, token)))
      .toEqual(refusedWith(404, 'Awareness program <id> not found', 'no awareness:read on Awareness program <id>'));
    expect(await refusalOf(env, () => send('POST', `/api/v1/awareness/programs/${theirs}/publish`, undefined, token)))
      .toEqual(refusedWith(404, 'Awareness program <id> not found', 'no awareness:read on Awareness program <id>'));
    expect(await refusalOf(env, () => send('DELETE', `/api/v1/awareness/programs/${mine}`, undefined, token)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope awareness:delete missing'));
    const reader = await learner();
    const readerToken = await makeToken(env, await reader.actor('api'), ['awareness:read']);
    expect(await refusalOf(env, () => send('POST', '/api/v1/awareness/programs', { title: 'Mine' }, readerToken)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope awareness:create missing'));
  });
});

describe('assignment', () => {
  test('publishing assigns the members of the audience groups and the people named, and nobody else', async () => {
    const [inGroup, named, outsider] = await Promise.all([learner(), learner(), learner()]);
    const id = await makeProgram({ audienceGroupIds: [inGroup.groupId], audienceUserIds: [named.id] });
    const published = await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    expect(published.status, await published.clone().text()).toBe(200);
    expect(await json<{ assigned: number }>(published)).toEqual({ assigned: 2 });
    expect((await json<{ status: string }>(await send('GET', `/api/v1/awareness/programs/${id}`))).status).toBe('published');

    const results = await json<{ rows: Result[]; total: number }>(await send('GET', `/api/v1/awareness/results?programId=${id}`));
    expect(results.rows.map((r) => r.person.id).sort()).toEqual([inGroup.id, named.id].sort());
    expect(results.rows.every((r) => r.status === 'assigned' && r.attempts === 0 && r.score === null)).toBe(true);

    // The audience grows: publishing again assigns only the newcomer.
    await send('PATCH', `/api/v1/awareness/programs/${id}`, { audienceUserIds: [named.id, outsider.id] });
    expect(await json<{ assigned: number }>(await send('POST', `/api/v1/awareness/programs/${id}/publish`))).toEqual({ assigned: 1 });
    expect((await json<{ total: number }>(await send('GET', `/api/v1/awareness/results?programId=${id}`))).total).toBe(3);
  });

  test('a program without an audience is not published', async () => {
    const id = await makeProgram();
    const res = await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe('audience: name at least one group with members or one active person before publishing');
  });

  test('a person sees their started programs with the questions but not the right answers', async () => {
    const person = await learner();
    const id = await makeProgram({ audienceUserIds: [person.id] });
    const later = await makeProgram({ audienceUserIds: [person.id], startsOn: '2999-01-01' });
    await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    await send('POST', `/api/v1/awareness/programs/${later}/publish`);
    const token = await makeToken(env, await person.actor('api'), ['awareness:read']);
    const mine = await json<Result[]>(await send('GET', '/api/v1/awareness/my-training', undefined, token));
    expect(mine.map((r) => r.programId)).toEqual([id]);
    const training = await json<{ questions: Record<string, unknown>[] }>(await send('GET', `/api/v1/awareness/my-training/${mine[0].id}`, undefined, token));
    expect(training.questions).toHaveLength(4);
    expect(training.questions.every((q) => !('correct' in q))).toBe(true);
  });
});

describe('scoring', () => {
  async function assigned(passMark = 75) {
    const person = await learner();
    const id = await makeProgram({ audienceUserIds: [person.id], passMark });
    await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    const token = await makeToken(env, await person.actor('api'), ['awareness:read']);
    return { person, id, token, result: await resultOf(id, person) };
  }

  test('a multiple-choice question counts only when every right choice and no other is chosen; the pass mark is reached at exactly 75%', async () => {
    const { token, result, id, person } = await assigned(75);
    // Three single choices right, the multiple choice half right: 3 of 4 = 75%, passed at the mark.
    const res = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: [[1], [1], [1], [0]] }, token);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await json(res)).toEqual({ status: 'passed', score: 75, attempts: 1, passMark: 75 });
    const after = await resultOf(id, person);
    expect(after).toMatchObject({ status: 'passed', score: 75, attempts: 1 });
    expect(after.completedAt).not.toBeNull();
  });

  test('below the pass mark fails; attempts are counted; a passed result is final', async () => {
    const { token, result, id, person } = await assigned(76);
    const first = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: [[1], [1], [1], [0, 2, 3]] }, token);
    expect(await json(first)).toEqual({ status: 'failed', score: 75, attempts: 1, passMark: 76 });
    expect((await resultOf(id, person)).status).toBe('failed');
    const second = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: ALL_RIGHT }, token);
    expect(await json(second)).toEqual({ status: 'passed', score: 100, attempts: 2, passMark: 76 });
    const third = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: ALL_RIGHT }, token);
    expect(third.status).toBe(409);
    expect(await errorOf(third)).toContain('You have already passed');
    expect((await resultOf(id, person)).attempts).toBe(2);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `/api/v1/awareness/results/${result.id}/history`));
    expect(history.map((h) => h.action)).toEqual(['update', 'update', 'create']);
    expect(history[0].changes.status).toEqual({ before: 'failed', after: 'passed' });
    expect(history[0].changes.attempts).toEqual({ before: 1, after: 2 });
    expect(history[0].changes.answers).toBeUndefined();
  });

  test('a score sent by the client is refused, and so are two choices on a single-choice question; neither counts as an attempt', async () => {
    const { token, result, id, person } = await assigned();
    const scored = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: [[0], [0], [0], [1]], score: 100 }, token);
    expect(scored.status).toBe(400);
    const twice = await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: [[0, 1], [1], [1], [0, 2]] }, token);
    expect(twice.status).toBe(400);
    expect(await errorOf(twice)).toBe('answers.0: choose one answer');
    expect(await resultOf(id, person)).toMatchObject({ status: 'assigned', attempts: 0, score: null });
  });

  test('the questions of a program cannot change once someone has taken its test', async () => {
    const { token, result, id } = await assigned();
    await send('POST', `/api/v1/awareness/results/${result.id}/attempts`, { answers: ALL_RIGHT }, token);
    const res = await send('PATCH', `/api/v1/awareness/programs/${id}`, { questions: QUESTIONS.slice(0, 2) });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe('questions: cannot change once someone has taken the test (1 person has)');
  });
});

describe('a person acts only on their own result', () => {
  test('nobody submits for someone else or reads their answers, not even a manager of the program', async () => {
    const [alice, bob] = await Promise.all([learner(), learner()]);
    const id = await makeProgram({ audienceUserIds: [alice.id, bob.id] });
    await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    const alicesResult = await resultOf(id, alice);
    const aliceToken = await makeToken(env, await alice.actor('api'), ['awareness:read']);
    const bobToken = await makeToken(env, await bob.actor('api'), ['awareness:read']);
    expect((await send('POST', `/api/v1/awareness/results/${alicesResult.id}/attempts`, { answers: [[0], [1], [1], [0, 2]] }, aliceToken)).status).toBe(200);

    const reason = `result ${alicesResult.id} belongs to someone else; only the person assigned takes their training and reads their answers`;
    expect(await refusalOf(env, () => send('POST', `/api/v1/awareness/results/${alicesResult.id}/attempts`, { answers: ALL_RIGHT }, bobToken)))
      .toEqual(refusedWith(403, 'forbidden', reason));
    expect(await refusalOf(env, () => send('GET', `/api/v1/awareness/results/${alicesResult.id}/answers`, undefined, bobToken)))
      .toEqual(refusedWith(403, 'forbidden', reason));
    expect(await refusalOf(env, () => send('GET', `/api/v1/awareness/results/${alicesResult.id}/answers`)))
      .toEqual(refusedWith(403, 'forbidden', reason));
    // Bob does not see Alice's result at all; Alice reads her own answers.
    expect(await refusalOf(env, () => send('GET', `/api/v1/awareness/results/${alicesResult.id}`, undefined, bobToken))).toEqual(refusedWith(404, 'Result <id> not found'));
    expect(await json(await send('GET', `/api/v1/awareness/results/${alicesResult.id}/answers`, undefined, aliceToken))).toEqual({ answers: [[0], [1], [1], [0, 2]] });
    const bobSees = await json<{ rows: Result[] }>(await send('GET', `/api/v1/awareness/results?programId=${id}`, undefined, bobToken));
    expect(bobSees.rows.map((r) => r.person.id)).toEqual([bob.id]);
    expect(await resultOf(id, alice)).toMatchObject({ status: 'passed', score: 75, attempts: 1 });
  });
});

describe('completion', () => {
  test('counts by status and per audience group', async () => {
    const [a, b, c] = await Promise.all([learner(), learner(), learner()]);
    const id = await makeProgram({ audienceGroupIds: [a.groupId, b.groupId], audienceUserIds: [c.id] });
    await send('POST', `/api/v1/awareness/programs/${id}/publish`);
    const aToken = await makeToken(env, await a.actor('api'), ['awareness:read']);
    const bToken = await makeToken(env, await b.actor('api'), ['awareness:read']);
    await send('POST', `/api/v1/awareness/results/${(await resultOf(id, a)).id}/attempts`, { answers: ALL_RIGHT }, aToken);
    await send('POST', `/api/v1/awareness/results/${(await resultOf(id, b)).id}/attempts`, { answers: [[0], [0], [0], [1]] }, bToken);
    const completion = await json<{ total: number; byStatus: Record<string, number>; byGroup: { groupId: string; total: number; passed: number }[] }>(
      await send('GET', `/api/v1/awareness/programs/${id}/completion`));
    expect(completion.total).toBe(3);
    expect(completion.byStatus).toEqual({ assigned: 1, started: 0, passed: 1, failed: 1 });
    const byGroup = Object.fromEntries(completion.byGroup.map((g) => [g.groupId, { total: g.total, passed: g.passed }]));
    expect(byGroup).toEqual({ [a.groupId]: { total: 1, passed: 1 }, [b.groupId]: { total: 1, passed: 0 } });
  });
});
