import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeToken } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), [
    'customFields:read', 'customFields:create', 'customFields:update', 'customFields:delete',
    'controls:read', 'controls:create', 'controls:update', 'controls:delete',
    'risks:read', 'risks:create', 'risks:update', 'risks:delete',
  ]);
});

let counter = 0;
/** Keys must match ^[a-z][a-zA-Z0-9_]{0,39}$ and be unique per module; tests share one database. */
const key = (prefix: string) => `${prefix}_${Date.now().toString(36)}${++counter}`;

const send = (method: string, path: string, body?: unknown, secret = token) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
const problemsOf = async (res: Response) => ((await res.json()) as { problems?: { field: string; message: string }[] }).problems ?? [];

async function define(body: Record<string, unknown>): Promise<string> {
  const res = await send('POST', '/api/v1/custom-fields', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

async function createControl(body: Record<string, unknown>): Promise<string> {
  const res = await send('POST', '/api/v1/controls', body);
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}

interface WithFields {
  id: string;
  customFields: Record<string, unknown>;
}

describe('custom field definitions over REST', () => {
  test('a definition is created, listed by module and read back; key and options are checked', async () => {
    const k = key('vendorTier');
    const id = await define({ module: 'controls', key: k, label: 'Vendor tier', type: 'singleSelect', options: ['gold', 'silver'] });
    const listed = await json<{ id: string; key: string; module: string; valueCount: number }[]>(await send('GET', '/api/v1/custom-fields?module=controls'));
    expect(listed.find((d) => d.id === id)).toMatchObject({ key: k, module: 'controls', valueCount: 0 });
    const otherModule = await json<{ id: string }[]>(await send('GET', '/api/v1/custom-fields?module=risks'));
    expect(otherModule.some((d) => d.id === id)).toBe(false);

    const badKey = await send('POST', '/api/v1/custom-fields', { module: 'controls', key: '9lives', label: 'X', type: 'text' });
    expect(badKey.status).toBe(400);
    expect((await problemsOf(badKey)).map((p) => p.field)).toContain('key');
    const noOptions = await send('POST', '/api/v1/custom-fields', { module: 'controls', key: key('sel'), label: 'X', type: 'multiSelect', options: [] });
    expect(noOptions.status).toBe(400);
    const repeated = await send('POST', '/api/v1/custom-fields', { module: 'controls', key: key('sel'), label: 'X', type: 'singleSelect', options: ['a', 'a'] });
    expect(repeated.status).toBe(400);
    expect(((await repeated.json()) as { error: string }).error).toContain('twice');
    const duplicate = await send('POST', '/api/v1/custom-fields', { module: 'controls', key: k, label: 'Again', type: 'text' });
    expect(duplicate.status).toBe(409);
    const wrongModule = await send('POST', '/api/v1/custom-fields', { module: 'assets', key: key('x'), label: 'X', type: 'text' });
    expect(wrongModule.status).toBe(400);
  });

  test('a token without customFields:create is refused', async () => {
    const reader = await makeToken(env, await adminActor(env), ['customFields:read']);
    const res = await send('POST', '/api/v1/custom-fields', { module: 'controls', key: key('x'), label: 'X', type: 'text' }, reader);
    expect(res.status).toBe(403);
  });
});

describe('custom field values on controls', () => {
  const keys = { text: key('notes'), number: key('cost'), date: key('reviewed'), single: key('tier'), multi: key('regions'), bool: key('critical') };
  beforeAll(async () => {
    await define({ module: 'controls', key: keys.text, label: 'Notes', type: 'text' });
    await define({ module: 'controls', key: keys.number, label: 'Cost', type: 'number' });
    await define({ module: 'controls', key: keys.date, label: 'Reviewed on', type: 'date' });
    await define({ module: 'controls', key: keys.single, label: 'Tier', type: 'singleSelect', options: ['gold', 'silver', 'bronze'] });
    await define({ module: 'controls', key: keys.multi, label: 'Regions', type: 'multiSelect', options: ['eu', 'us', 'apac'] });
    await define({ module: 'controls', key: keys.bool, label: 'Critical', type: 'boolean' });
  });

  test('values of every type round-trip through create, read, list and a partial change', async () => {
    const id = await createControl({
      name: 'Custom field round trip',
      customFields: { [keys.text]: 'hello', [keys.number]: 12.5, [keys.date]: '2024-02-29', [keys.single]: 'gold', [keys.multi]: ['eu', 'us'], [keys.bool]: false },
    });
    const read = await json<WithFields>(await send('GET', `/api/v1/controls/${id}`));
    expect(read.customFields).toEqual({ [keys.text]: 'hello', [keys.number]: 12.5, [keys.date]: '2024-02-29', [keys.single]: 'gold', [keys.multi]: ['eu', 'us'], [keys.bool]: false });

    const patched = await send('PATCH', `/api/v1/controls/${id}`, { customFields: { [keys.number]: 7, [keys.text]: null } });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const after = (await json<WithFields>(patched)).customFields;
    expect(after[keys.number]).toBe(7);
    expect(keys.text in after).toBe(false);
    expect(after[keys.single]).toBe('gold');

    const page = await json<{ rows: WithFields[] }>(await send('GET', '/api/v1/controls?q=Custom%20field%20round%20trip&pageSize=200'));
    expect(page.rows.find((r) => r.id === id)?.customFields).toMatchObject({ [keys.number]: 7, [keys.multi]: ['eu', 'us'] });
  });

  test('each type refuses a wrong value, all problems listed together with the record\'s own', async () => {
    const res = await send('POST', '/api/v1/controls', {
      name: '   ',
      customFields: {
        [keys.text]: 'x'.repeat(10_001), [keys.number]: '5', [keys.date]: '2023-02-29', [keys.single]: 'platinum',
        [keys.multi]: ['eu', 'eu'], [keys.bool]: 'yes', nope: 1,
      },
    });
    expect(res.status).toBe(400);
    const fields = (await problemsOf(res)).map((p) => p.field).sort();
    expect(fields).toEqual(['customFields.' + keys.bool, 'customFields.' + keys.date, 'customFields.' + keys.multi, 'customFields.' + keys.number,
      'customFields.' + keys.single, 'customFields.' + keys.text, 'customFields.nope', 'name'].sort());
  });

  test('a number must be finite and a multi select must use its options', async () => {
    const id = await createControl({ name: 'Refusals' });
    const notFinite = await send('PATCH', `/api/v1/controls/${id}`, { customFields: { [keys.number]: 'Infinity' } });
    expect(notFinite.status).toBe(400);
    const unknownOption = await send('PATCH', `/api/v1/controls/${id}`, { customFields: { [keys.multi]: ['mars'] } });
    expect(unknownOption.status).toBe(400);
    expect((await problemsOf(unknownOption))[0]).toMatchObject({ field: `customFields.${keys.multi}` });
  });

  test('an unknown key is refused on its own field', async () => {
    const res = await send('POST', '/api/v1/controls', { name: 'Unknown key', customFields: { doesNotExist: 'x' } });
    expect(res.status).toBe(400);
    expect(await problemsOf(res)).toEqual([{ field: 'customFields.doesNotExist', message: 'no such custom field' }]);
  });

  test('a required field must be given on create; existing records can still be edited', async () => {
    const existing = await createControl({ name: 'Before the required field' });
    const k = key('mandatory');
    const definition = await define({ module: 'controls', key: k, label: 'Mandatory', type: 'text', required: true });
    try {
      const missing = await send('POST', '/api/v1/controls', { name: 'Missing required' });
      expect(missing.status).toBe(400);
      expect(await problemsOf(missing)).toContainEqual({ field: `customFields.${k}`, message: 'is required' });
      await createControl({ name: 'With required', customFields: { [k]: 'given' } });
      const edit = await send('PATCH', `/api/v1/controls/${existing}`, { status: 'retired' });
      expect(edit.status, await edit.clone().text()).toBe(200);
      const cleared = await send('PATCH', `/api/v1/controls/${existing}`, { customFields: { [k]: null } });
      expect(cleared.status).toBe(400);
    } finally {
      expect((await send('DELETE', `/api/v1/custom-fields/${definition}?confirm=true`)).status).toBe(204);
    }
  });

  test('a change of a value is in the History as customFields.<key>', async () => {
    const id = await createControl({ name: 'History of a value', customFields: { [keys.single]: 'silver' } });
    await send('PATCH', `/api/v1/controls/${id}`, { customFields: { [keys.single]: 'bronze' } });
    const history = await json<{ action: string; changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/controls/${id}/history`));
    expect(history[0]).toMatchObject({ action: 'update', changes: { [`customFields.${keys.single}`]: { before: 'silver', after: 'bronze' } } });
    expect(history[1]).toMatchObject({ action: 'create', changes: { [`customFields.${keys.single}`]: { before: null, after: 'silver' } } });
  });
});

describe('changing and deleting definitions that hold values', () => {
  test('removing an option still held is refused with 409; an unused one may go', async () => {
    const k = key('stage');
    const definition = await define({ module: 'controls', key: k, label: 'Stage', type: 'multiSelect', options: ['draft', 'live', 'old'] });
    await createControl({ name: 'Holds live', customFields: { [k]: ['live'] } });
    const refused = await send('PATCH', `/api/v1/custom-fields/${definition}`, { options: ['draft', 'old'] });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain('"live" (held by 1 record)');
    const allowed = await send('PATCH', `/api/v1/custom-fields/${definition}`, { options: ['draft', 'live'], label: 'Lifecycle stage' });
    expect(allowed.status, await allowed.clone().text()).toBe(200);
    expect(await json<{ options: string[]; label: string }>(allowed)).toMatchObject({ options: ['draft', 'live'], label: 'Lifecycle stage' });
  });

  test('deleting a definition with values needs confirm=true, removes the values and says how many in the Audit Log', async () => {
    const k = key('owner_note');
    const definition = await define({ module: 'controls', key: k, label: 'Owner note', type: 'text' });
    const first = await createControl({ name: 'Note one', customFields: { [k]: 'a' } });
    await createControl({ name: 'Note two', customFields: { [k]: 'b' } });
    const unconfirmed = await send('DELETE', `/api/v1/custom-fields/${definition}`);
    expect(unconfirmed.status).toBe(409);
    expect(((await unconfirmed.json()) as { error: string }).error).toContain('2 records');
    expect((await send('GET', `/api/v1/custom-fields/${definition}`)).status).toBe(200);

    const confirmed = await send('DELETE', `/api/v1/custom-fields/${definition}?confirm=true`);
    expect(confirmed.status, await confirmed.clone().text()).toBe(204);
    expect(await refusalOf(env, async () => send('GET', `/api/v1/custom-fields/${definition}`))).toEqual(refusedWith(404, 'Custom field <id> not found'));
    const control = await json<WithFields>(await send('GET', `/api/v1/controls/${first}`));
    expect(k in control.customFields).toBe(false);
    const [entry] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.recordType, 'customField'), eq(auditLog.recordId, definition), eq(auditLog.action, 'delete')));
    expect(entry.module).toBe('customFields');
    expect(entry.details).toMatchObject({ valuesRemoved: 2 });
  });

  test('a definition without values is deleted without confirmation', async () => {
    const definition = await define({ module: 'controls', key: key('unused'), label: 'Unused', type: 'boolean' });
    expect((await send('DELETE', `/api/v1/custom-fields/${definition}`)).status).toBe(204);
  });
});

describe('custom field values on risks', () => {
  test('risks accept, return, list and record custom field values', async () => {
    const k = key('riskArea');
    const required = key('riskRef');
    await define({ module: 'risks', key: k, label: 'Area', type: 'singleSelect', options: ['finance', 'it'] });
    const requiredId = await define({ module: 'risks', key: required, label: 'Reference', type: 'text', required: true });
    try {
      const base = { classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2 };
      const refused = await send('POST', '/api/v1/risks', { ...base, title: ' ', customFields: { [k]: 'space' } });
      expect(refused.status).toBe(400);
      expect((await problemsOf(refused)).map((p) => p.field).sort()).toEqual([`customFields.${k}`, `customFields.${required}`, 'title'].sort());

      const created = await send('POST', '/api/v1/risks', { ...base, title: 'Risk with custom fields', customFields: { [k]: 'it', [required]: 'R-1' } });
      expect(created.status, await created.clone().text()).toBe(201);
      const { id } = await json<{ id: string }>(created);
      expect((await json<WithFields>(await send('GET', `/api/v1/risks/${id}`))).customFields).toEqual({ [k]: 'it', [required]: 'R-1' });

      const patched = await send('PATCH', `/api/v1/risks/${id}`, { customFields: { [k]: 'finance' } });
      expect(patched.status, await patched.clone().text()).toBe(200);
      expect((await json<WithFields>(patched)).customFields).toEqual({ [k]: 'finance', [required]: 'R-1' });

      const page = await json<{ rows: WithFields[] }>(await send('GET', '/api/v1/risks?q=Risk%20with%20custom%20fields&pageSize=200'));
      expect(page.rows.find((r) => r.id === id)?.customFields).toEqual({ [k]: 'finance', [required]: 'R-1' });

      const history = await json<{ changes: Record<string, unknown> }[]>(await send('GET', `/api/v1/risks/${id}/history`));
      expect(history[0].changes).toEqual({ [`customFields.${k}`]: { before: 'it', after: 'finance' } });
      const unknown = await send('PATCH', `/api/v1/risks/${id}`, { customFields: { nope: 1 } });
      expect(unknown.status).toBe(400);
      expect((await send('DELETE', `/api/v1/risks/${id}`)).status).toBe(204);
    } finally {
      await send('DELETE', `/api/v1/custom-fields/${requiredId}?confirm=true`);
    }
  });
});
