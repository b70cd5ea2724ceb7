import { beforeAll, describe, expect, test } from 'bun:test';
import { and, asc, eq } from 'drizzle-orm';
import { auditLog, processingActivities } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, unique } from '../helpers/factories';
import { apiSender } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Categories of data subjects and of personal data are lists an administrator edits in Settings › Privacy categories
 * (the name list kit, keyed): records store an entry's key, renaming keeps them, a value not in the list is a 400
 * naming the field, an entry in use is not deleted, every change is audited.
 */

const SUBJECTS = '/api/v1/data-privacy/data-subject-categories';
const PERSONAL = '/api/v1/data-privacy/personal-data-categories';
const ACTIVITIES = '/api/v1/data-privacy/processing-activities';
const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];

let env: TestEnv;
let admin: Actor;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'settings:create', 'settings:update', 'assets:read', 'assets:create']);
});

const send = apiSender(() => env, () => token);
const data = async <T>(res: Response, status: number): Promise<T> => {
  expect(res.status, await res.clone().text()).toBe(status);
  return ((await res.json()) as { data: T }).data;
};
type Entry = { id: string; key: string; name: string; description: string; recordCount: number };
const entryNamed = async (path: string, name: string) =>
  (await data<{ rows: Entry[] }>(await send('GET', `${path}?q=${encodeURIComponent(name)}`), 200)).rows.find((r) => r.name === name);
const problems = async (res: Response) => ((await res.json()) as { problems?: { field: string; message: string }[] }).problems ?? [];

describe('the category lists over REST', () => {
  test('seeded with the keys records held before the lists existed, each named and described', async () => {
    const subjects = await data<{ rows: Entry[]; total: number }>(await send('GET', `${SUBJECTS}?pageSize=100`), 200);
    expect(subjects.rows.map((r) => r.key)).toEqual(expect.arrayContaining([
      'employees', 'job_applicants', 'contractors', 'customers', 'prospects', 'supplier_contacts', 'website_visitors',
      'patients', 'students', 'children', 'members', 'citizens',
    ]));
    expect(subjects.rows.find((r) => r.key === 'job_applicants')).toMatchObject({ name: 'Job applicants', description: 'Candidates for a position' });
    const personal = await data<{ rows: Entry[] }>(await send('GET', `${PERSONAL}?pageSize=100`), 200);
    expect(personal.rows.map((r) => r.key)).toEqual(expect.arrayContaining(['identification', 'contact_details', 'health_data', 'biometric_data']));
    expect(personal.rows.find((r) => r.key === 'health_data')).toMatchObject({ name: 'Health data' });
  });

  test('an added category is offered by its key; a value not in the list is refused naming the field and nothing is written', async () => {
    const name = unique('Loyalty members');
    const { id } = await data<{ id: string }>(await send('POST', SUBJECTS, { name, description: 'Members of the rewards scheme' }), 201);
    const entry = await data<Entry>(await send('GET', `${SUBJECTS}/${id}`), 200);
    expect(entry).toMatchObject({ name, key: name.toLowerCase().replace(/[^a-z0-9]+/g, '_'), recordCount: 0 });

    const activity = unique('Rewards');
    const refused = await send('POST', ACTIVITIES, { name: activity, legalBasis: 'consent', dataSubjectCategories: [entry.key, 'aliens'] });
    expect(refused.status).toBe(400);
    expect(await problems(refused)).toEqual([{ field: 'dataSubjectCategories', message: 'aliens: not in the list of categories of data subjects (Settings › Privacy categories)' }]);
    expect(await env.ctx.db.select().from(processingActivities).where(eq(processingActivities.name, activity))).toEqual([]);

    const personal = await send('POST', ACTIVITIES, { name: activity, legalBasis: 'consent', personalDataCategories: ['shoe_size'] });
    expect(personal.status).toBe(400);
    expect((await problems(personal)).map((p) => p.field)).toEqual(['personalDataCategories']);

    const created = await data<{ id: string }>(
      await send('POST', ACTIVITIES, { name: activity, legalBasis: 'consent', dataSubjectCategories: ['customers', entry.key] }), 201);
    expect(await data<{ dataSubjectCategories: string[] }>(await send('GET', `${ACTIVITIES}/${created.id}`), 200)).toMatchObject({ dataSubjectCategories: ['customers', entry.key] });
    expect((await data<Entry>(await send('GET', `${SUBJECTS}/${id}`), 200)).recordCount).toBe(1);
  });

  test('renaming a category keeps the records naming it; the register shows the new name; one in use is not deleted; each change is audited', async () => {
    const name = unique('Volunteers');
    const { id } = await data<{ id: string }>(await send('POST', SUBJECTS, { name }), 201);
    const { key } = await data<Entry>(await send('GET', `${SUBJECTS}/${id}`), 200);
    const activityName = unique('Volunteer rota');
    const activity = await data<{ id: string }>(await send('POST', ACTIVITIES, { name: activityName, legalBasis: 'legitimate_interests', status: 'active', dataSubjectCategories: [key] }), 201);

    const renamed = `${name} and stewards`;
    expect(await data<Entry>(await send('PATCH', `${SUBJECTS}/${id}`, { name: renamed }), 200)).toMatchObject({ id, key, name: renamed, recordCount: 1 });
    expect(await data<{ dataSubjectCategories: string[] }>(await send('GET', `${ACTIVITIES}/${activity.id}`), 200)).toMatchObject({ dataSubjectCategories: [key] });
    const register = await data<{ entries: { id: string; dataSubjectCategories: string }[] }[]>(await send('GET', '/api/v1/data-privacy/register'), 200);
    expect(register.flatMap((s) => s.entries).find((e) => e.id === activity.id)?.dataSubjectCategories).toBe(renamed);
    // Editing the record again keeps the value as it was (kept values are not judged again).
    await data(await send('PATCH', `${ACTIVITIES}/${activity.id}`, { purposes: 'Scheduling' }), 200);

    const refused = await send('DELETE', `${SUBJECTS}/${id}`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toBe(`Category of data subjects "${renamed}" is used by 1 processing activity and cannot be deleted`);
    // A new entry whose name would give the kept key gets a key of its own.
    const { id: again } = await data<{ id: string }>(await send('POST', SUBJECTS, { name }), 201);
    expect((await data<Entry>(await send('GET', `${SUBJECTS}/${again}`), 200)).key).toBe(`${key}_2`);

    await data(await send('PATCH', `${ACTIVITIES}/${activity.id}`, { dataSubjectCategories: [] }), 200);
    expect((await send('DELETE', `${SUBJECTS}/${id}`)).status).toBe(204);
    const audit = await env.ctx.db.select({ module: auditLog.module, action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.recordType, 'privacy_data_subject_category'), eq(auditLog.recordId, id))).orderBy(asc(auditLog.seq));
    expect(audit).toEqual([{ module: 'settings', action: 'create' }, { module: 'settings', action: 'update' }, { module: 'settings', action: 'delete' }]);
  });

  test('assets\' data-map fields take the categories of personal data: an unknown one is refused naming dataCategories; an asset using one keeps it from deletion', async () => {
    const name = unique('Vehicle telemetry');
    const { id } = await data<{ id: string }>(await send('POST', PERSONAL, { name }), 201);
    const { key } = await data<Entry>(await send('GET', `${PERSONAL}/${id}`), 200);
    const asset = await data<{ id: string }>(await send('POST', '/api/v1/assets', { name: unique('Fleet system') }), 201);
    const refused = await send('PUT', `/api/v1/assets/${asset.id}/data-map`, { personalDataHeld: true, dataCategories: [key, 'shoe_size'] });
    expect(refused.status).toBe(400);
    expect(await problems(refused)).toEqual([{ field: 'dataCategories', message: 'shoe_size: not in the list of categories of personal data (Settings › Privacy categories)' }]);
    expect(await data<{ dataCategories: string[] }>(await send('GET', `/api/v1/assets/${asset.id}/data-map`), 200)).toMatchObject({ dataCategories: [] });

    await data(await send('PUT', `/api/v1/assets/${asset.id}/data-map`, { personalDataHeld: true, dataCategories: [key] }), 200);
    expect((await data<Entry>(await send('GET', `${PERSONAL}/${id}`), 200)).recordCount).toBe(1);
    const inUse = await send('DELETE', `${PERSONAL}/${id}`);
    expect(inUse.status).toBe(409);
    expect(((await inUse.json()) as { error: string }).error).toBe(`Category of personal data "${name}" is used by 1 processing activity or asset and cannot be deleted`);
  });

  test('reading needs dataPrivacy:read (or Settings); changing needs the Settings rights', async () => {
    const reader = await makeToken(env, admin, ['dataPrivacy:read']);
    expect((await send('GET', SUBJECTS, undefined, reader)).status).toBe(200);
    expect(await refusalOf(env, () => send('POST', SUBJECTS, { name: unique('Refused') }, reader)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope settings:create missing'));
    const entry = await entryNamed(SUBJECTS, 'Employees');
    expect(await refusalOf(env, () => send('PATCH', `${SUBJECTS}/${entry!.id}`, { name: 'Staff' }, reader)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope settings:update missing'));
    const outsider = await makeToken(env, admin, ['assets:read']);
    expect(await refusalOf(env, () => send('GET', PERSONAL, undefined, outsider)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
  });
});
