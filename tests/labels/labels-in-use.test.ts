import { beforeAll, describe, expect, test } from 'bun:test';
import { eq, sql } from 'drizzle-orm';
import { labels } from '../../db/schema';
import type { Actor } from '../../src/platform/permissions/permissions';
import { labelCarriers } from '../../src/platform/records/labels';
import { updateRecord } from '../../src/platform/records/records';
import { processingActivityKind } from '../../src/modules/dataPrivacy/service';
import { deleteLabel } from '../../src/modules/labels/service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, createdId } from '../helpers/api';
import { signedInBrowser } from '../helpers/browser';
import { refusalOf, refusedWith } from '../helpers/refusals';

const ACTIVITIES = '/api/v1/data-privacy/processing-activities';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [
    'settings:read', 'settings:create', 'settings:update', 'dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'thirdParties:read', 'thirdParties:create',
  ]);
});

const send = apiSender(() => env, () => token);
const label = (name = unique('GDPR')) => send('POST', '/api/v1/labels', { name }).then(createdId);
const activity = (body: Record<string, unknown>, secret = token) =>
  send('POST', ACTIVITIES, { name: unique('Payroll'), legalBasis: 'legal_obligation', ...body }, secret).then(createdId);
const dpia = (processingActivityId: string, labelIds: string[]) =>
  send('POST', '/api/v1/data-privacy/dpias', { name: unique('DPIA'), processingActivityId, labelIds }).then(createdId);
const labelRow = async (id: string) => (await env.ctx.db.select().from(labels).where(eq(labels.id, id)))[0];

describe('which records carry labels comes from the record-type declarations', () => {
  test('the registers declaring a label column are the label carriers: processing activities, DPIAs, transfers and TIAs', () => {
    expect(labelCarriers().map((type) => type.kind)).toEqual(['processingActivity', 'dpia', 'transfer', 'transferImpactAssessment']);
  });
});

describe('deleting a label that records carry', () => {
  test('is refused 409 naming how many records of each type carry it; the label stays, and goes once no record carries it', async () => {
    const name = unique('Sensitive');
    const id = await label(name);
    const first = await activity({ labelIds: [id] });
    const second = await activity({ labelIds: [id] });
    const assessment = await dpia(first, [id]);

    expect(await refusalOf(env, () => send('DELETE', `/api/v1/labels/${id}`)))
      .toEqual(refusedWith(409, `Label "${name}" is still carried by 2 processing activities, 1 DPIA; remove it from those records first`));
    expect(await labelRow(id)).toMatchObject({ name });
    expect((await send('GET', `${ACTIVITIES}/${first}`).then((res) => res.json()) as { data: { labels: string[] } }).data.labels).toEqual([name]);

    for (const path of [`${ACTIVITIES}/${first}`, `${ACTIVITIES}/${second}`, `/api/v1/data-privacy/dpias/${assessment}`]) {
      const res = await send('PATCH', path, { labelIds: [] });
      expect(res.status, await res.clone().text()).toBe(200);
    }
    expect((await send('DELETE', `/api/v1/labels/${id}`)).status).toBe(204);
    expect(await labelRow(id)).toBeUndefined();
  });

  test('a label no record carries is deleted as before', async () => {
    const id = await label();
    expect((await send('DELETE', `/api/v1/labels/${id}`)).status).toBe(204);
  });

  test('the count includes records the caller may not read, and never names them', async () => {
    const name = unique('Board only');
    const id = await label(name);
    const hidden = unique('Hidden activity');
    await activity({ name: hidden, labelIds: [id] });
    const settingsOnly = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all', 'apiTokens:create': 'own' });
    const secret = await makeToken(env, await settingsOnly.actor(), ['settings:read', 'settings:update']);
    const refusal = await refusalOf(env, () => send('DELETE', `/api/v1/labels/${id}`, undefined, secret));
    expect(refusal).toEqual(refusedWith(409, `Label "${name}" is still carried by 1 processing activity; remove it from those records first`));
    expect(refusal.error).not.toContain(hidden);
  });
});

describe('the delete confirmation screen', () => {
  test('warns which records carry the label, linking those the viewer may read and naming no other; deleting anyway is refused inside the app', async () => {
    const name = unique('Retention');
    const id = await label(name);
    const readable = unique('Readable activity');
    const readableId = await activity({ name: readable, labelIds: [id] });
    // Owned by someone else: a reader at level own may not read it.
    const other = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:create': 'all', 'apiTokens:create': 'own' });
    const otherToken = await makeToken(env, await other.actor(), ['dataPrivacy:read', 'dataPrivacy:create']);
    const hidden = unique('Hidden activity');
    // The other person may not put a label on a record without seeing it either: the admin labels it after.
    const hiddenId = await activity({ name: hidden }, otherToken);
    expect((await send('PATCH', `${ACTIVITIES}/${hiddenId}`, { labelIds: [id] })).status).toBe(200);

    const viewer = await makeUser(env, { 'settings:read': 'all', 'settings:update': 'all', 'dataPrivacy:read': 'own', 'dataPrivacy:update': 'all' });
    // The viewer owns the readable activity.
    expect((await send('PATCH', `${ACTIVITIES}/${readableId}`, { ownerId: viewer.id })).status).toBe(200);
    const b = await signedInBrowser(env, viewer.email, viewer.password);

    const list = await (await b.get('/settings/labels')).text();
    expect(list).toContain(`href="/settings/labels/${id}/delete"`);
    const confirm = await b.get(`/settings/labels/${id}/delete`);
    expect(confirm.status).toBe(200);
    const page = await confirm.text();
    expect(page).toContain(`This cannot be deleted yet: records still carry the label &quot;${name}&quot;:`);
    expect(page).toContain('2 processing activities:');
    expect(page).not.toContain('2 2 processing activities');
    expect(page).toContain(`<a href="/data-privacy/processing-activities/${readableId}">${readable}</a>`);
    expect(page).toContain('(restricted)');
    expect(page).not.toContain(hidden);
    expect(page).not.toContain(hiddenId);

    const refused = await b.post(`/settings/labels/${id}/delete`, {});
    expect(refused.status).toBe(409);
    const again = await refused.text();
    expect(again).toContain(`Not deleted: records still carry the label &quot;${name}&quot;:`);
    expect(again).toContain('<nav'); // inside the app shell, with its navigation
    expect(again).not.toContain(hidden);
    expect(await labelRow(id)).toMatchObject({ name });
  });

  test('a label no record carries is confirmed without a warning and deleted', async () => {
    const id = await label();
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await (await b.get(`/settings/labels/${id}/delete`)).text();
    expect(page).not.toContain('cannot be deleted yet');
    const res = await b.post(`/settings/labels/${id}/delete`, {});
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/settings/labels?done=deleted');
    expect(await labelRow(id)).toBeUndefined();
  });
});

// On the embedded database (PGlite) one transaction runs at a time, so a write and a deletion never overlap there.
describe.skipIf(!process.env.DATABASE_URL)('a label put on a record while it is being deleted (PostgreSQL)', () => {
  test('the deletion waits for the write adding the label, then counts its record and is refused', async () => {
    const id = await label();
    const record = await activity({});

    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let labelled!: () => void;
    const written = new Promise<void>((resolve) => { labelled = resolve; });
    const write = env.ctx.db.transaction(async (tx) => {
      await updateRecord(tx, processingActivityKind, admin, record, { labelIds: [id] });
      labelled();
      await held;
    });
    await written;
    let deletionSettled = false;
    const deletion = env.ctx.db.transaction((tx) => deleteLabel(tx, admin, id)).then(() => null, (error: unknown) => error)
      .finally(() => { deletionSettled = true; });
    // The write commits once the deletion waits for its lock (or, were there no lock, once the deletion is done).
    for (;;) {
      const [{ waiting }] = await env.ctx.db.select({ waiting: sql<number>`count(*)::int` }).from(sql`pg_locks`).where(sql`not granted`);
      if (waiting > 0 || deletionSettled) break;
      await Bun.sleep(20);
    }
    release();
    await write;
    const refusal = await deletion;
    expect(refusal).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining('is still carried by 1 processing activity') });
    expect(await labelRow(id)).toBeDefined();
  }, 30_000);
});
