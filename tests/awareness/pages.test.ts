import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { awarenessResults, users } from '../../db/schema';
import { runWrite } from '../../src/platform/http/context';
import { createRecord, getRecord } from '../../src/platform/records/records';
import { programKind, publishProgram, submitAttempt } from '../../src/modules/awareness/service';
import { testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let manager: TestUser;
let screen: Browser;
beforeAll(async () => {
  env = await testEnv();
  manager = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' }, unique('manager'));
  screen = await signedInBrowser(env, manager.email, manager.password);
});

const TEST_TEXT = [
  'A message asks for your password at a link. What do you do?',
  '- ( ) Sign in at the link',
  '- (x) Report it as phishing',
  '',
  'Which signs point to phishing?',
  '- [x] Urgency',
  '- [ ] Your colleague’s usual signature',
  '- [x] A look-alike sender address',
].join('\n');

async function program(owner: TestUser, audience: TestUser[] = []): Promise<string> {
  const actor = await owner.actor();
  return runWrite(env.ctx, async (tx) => {
    const { id } = await createRecord(tx, programKind, actor, { title: unique('Phishing basics'), audienceUserIds: audience.map((p) => p.id) });
    if (audience.length) await publishProgram(tx, actor, id);
    return id;
  });
}
const questionsOf = async (id: string) => (await getRecord(env.ctx.db, programKind, await manager.actor(), id)).questions;

describe('writing a test on the program screen', () => {
  test('the text becomes the program’s questions, shown again as text when the page opens', async () => {
    const id = await program(manager);
    const saved = await screen.post(`/awareness/programs/${id}/questions`, { questions: TEST_TEXT });
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(saved.headers.get('location')).toBe(`/awareness/programs/${id}?done=updated`);
    expect(await questionsOf(id)).toEqual([
      { text: 'A message asks for your password at a link. What do you do?', kind: 'single', choices: ['Sign in at the link', 'Report it as phishing'], correct: [1] },
      { text: 'Which signs point to phishing?', kind: 'multiple', choices: ['Urgency', 'Your colleague’s usual signature', 'A look-alike sender address'], correct: [0, 2] },
    ]);
    const page = await (await screen.get(`/awareness/programs/${id}/questions`)).text();
    expect(page).toContain('- (x) Report it as phishing\n\nWhich signs point to phishing?\n- [x] Urgency');
    expect(await (await screen.get(`/awareness/programs/${id}`)).text()).toContain('2 questions, pass mark 80%.');
  });

  test('a text with mistakes is refused inside the app with every problem by line and the text kept; nothing is saved', async () => {
    const id = await program(manager);
    const typed = 'Which is right?\n- (x) a\n- (x) b\n\nAnother\n- [ ] only one';
    const refused = await screen.post(`/awareness/programs/${id}/questions`, { questions: typed });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('The test was not saved');
    expect(html).toContain('question 1 (line 1) has ( ) choices, so exactly one is marked (x); 2 are');
    expect(html).toContain('question 2 (line 5) needs at least 2 choices, it has 1');
    expect(html).toContain('Which is right?\n- (x) a\n- (x) b');
    expect(html).toContain('<nav'); // inside the app shell
    expect(await questionsOf(id)).toEqual([]);
  });

  test('once someone has taken the test the page says so and a change is refused with that reason', async () => {
    const person = await makeUser(env, {}, unique('learner'));
    const id = await program(manager, [person]);
    expect((await screen.post(`/awareness/programs/${id}/questions`, { questions: TEST_TEXT })).status).toBe(303);
    const [result] = await env.ctx.db.select().from(awarenessResults).where(and(eq(awarenessResults.programId, id), eq(awarenessResults.personId, person.id)));
    const personActor = await person.actor();
    await runWrite(env.ctx, async (tx) => submitAttempt(tx, personActor, result.id, { answers: [[1], [0, 2]] }));
    expect(await (await screen.get(`/awareness/programs/${id}/questions`)).text())
      .toContain('The questions cannot change once someone has taken the test (1 person has).');
    const refused = await screen.post(`/awareness/programs/${id}/questions`, { questions: 'Just one\n- (x) a\n- ( ) b' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('The questions cannot change once someone has taken the test (1 person has).');
    expect(await questionsOf(id)).toHaveLength(2);
  });

  test('someone who may not change the program is refused: another owner’s program is not found, a reader may not open the editor', async () => {
    const other = await makeUser(env, { 'awareness:read': 'own', 'awareness:create': 'own', 'awareness:update': 'own' }, unique('other'));
    const theirs = await program(other);
    expect(await refusalOf(env, () => screen.post(`/awareness/programs/${theirs}/questions`, { questions: TEST_TEXT })))
      .toEqual(refusedWith(404, undefined, 'no awareness:read on Awareness program <id>'));
    const reader = await makeUser(env, { 'awareness:read': 'all' }, unique('reader'));
    const readerScreen = await signedInBrowser(env, reader.email, reader.password);
    expect(await refusalOf(env, () => readerScreen.get(`/awareness/programs/${theirs}/questions`)))
      .toEqual(refusedWith(403, undefined, 'user right awareness:update missing'));
  });
});

describe('downloading a program’s results', () => {
  test('every result with the person’s name and status label, formulas neutralised, for readers of the program only', async () => {
    const alice = await makeUser(env, {}, unique('=alice'));
    const bob = await makeUser(env, {}, unique('bob'));
    const id = await program(manager, [alice, bob]);
    expect((await screen.post(`/awareness/programs/${id}/questions`, { questions: TEST_TEXT })).status).toBe(303);
    const [aliceResult] = await env.ctx.db.select().from(awarenessResults).where(and(eq(awarenessResults.programId, id), eq(awarenessResults.personId, alice.id)));
    const aliceActor = await alice.actor();
    await runWrite(env.ctx, async (tx) => submitAttempt(tx, aliceActor, aliceResult.id, { answers: [[1], [0, 2]] }));

    const res = await screen.get(`/awareness/programs/${id}/results.csv`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="awareness-results-\d{4}-\d{2}-\d{2}\.csv"$/);
    const text = await res.text();
    expect(text.startsWith('\uFEFF')).toBe(true);
    const lines = text.slice(1).split('\r\n').filter(Boolean);
    expect(lines[0]).toBe('Program,Person,Status,Score (%),Attempts,Assigned at,Started at,Completed at');
    expect(lines).toHaveLength(3);
    const byPerson = (name: string) => lines.find((line) => line.includes(name))!.split(',');
    expect(byPerson(`'=alice`).slice(1, 5)).toEqual([`'${(await nameOf(alice))}`, 'Passed', '100', '1']);
    expect(byPerson('bob').slice(2, 5)).toEqual(['Not started', '', '0']);

    const other = await makeUser(env, { 'awareness:read': 'own' }, unique('other-reader'));
    const otherScreen = await signedInBrowser(env, other.email, other.password);
    expect(await refusalOf(env, () => otherScreen.get(`/awareness/programs/${id}/results.csv`)))
      .toEqual(refusedWith(404, undefined, 'no awareness:read on Awareness program <id>'));
    const completion = await (await screen.get(`/awareness/programs/${id}/completion`)).text();
    expect(completion).toContain(`href="/awareness/programs/${id}/results.csv"`);
  });
});

async function nameOf(user: TestUser): Promise<string> {
  const [row] = await env.ctx.db.select({ name: users.name }).from(users).where(eq(users.id, user.id));
  return row.name;
}
