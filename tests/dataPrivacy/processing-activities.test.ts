import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, processingActivities } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf, createdId } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];
const PATH = '/api/v1/data-privacy/processing-activities';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'assets:read', 'assets:create', 'thirdParties:read', 'thirdParties:create']);
});

const send = apiSender(() => env, () => token);
const json = dataOf;
const created = createdId;
const create = async (body: Record<string, unknown>, secret = token) => created(await send('POST', PATH, body, secret));
const asset = (name = unique('Payroll system'), secret = token) => send('POST', '/api/v1/assets', { name }, secret).then(created);
const vendor = (name = unique('Payroll bureau'), secret = token) => send('POST', '/api/v1/third-parties', { name }, secret).then(created);
const countNamed = async (name: string) => (await env.ctx.db.select({ id: processingActivities.id }).from(processingActivities).where(eq(processingActivities.name, name))).length;

describe('records of processing (GDPR Art. 30(1)) over REST', () => {
  test('a processing activity holds every Art. 30(1) field, with its systems and processors, and is owned by its creator', async () => {
    const system = await asset();
    const processor = await vendor();
    const id = await create({
      name: 'Payroll', role: 'controller', status: 'active', purposes: 'Paying salaries', legalBasis: 'legal_obligation',
      dataSubjectCategories: ['employees'], personalDataCategories: ['identification', 'financial', 'health_data'],
      specialCategoryCondition: 'employment_and_social_security', recipients: 'Tax authority', retention: '10 years',
      systemAssetIds: [system], processorThirdPartyIds: [processor], jointControllers: 'None', securityMeasures: 'Encryption at rest',
    });
    const record = await json<Record<string, unknown>>(await send('GET', `${PATH}/${id}`));
    expect(record).toMatchObject({
      name: 'Payroll', role: 'controller', status: 'active', purposes: 'Paying salaries', legalBasis: 'legal_obligation',
      dataSubjectCategories: ['employees'], personalDataCategories: ['identification', 'financial', 'health_data'],
      specialCategoryCondition: 'employment_and_social_security', recipients: 'Tax authority', retention: '10 years',
      systemAssetIds: [system], processorThirdPartyIds: [processor], jointControllers: 'None', securityMeasures: 'Encryption at rest',
      customFields: {},
    });
    expect((record.owner as { email: string }).email).toBe('admin@test.example');
  });

  test('left out, the role is controller, the status draft and the lists empty', async () => {
    const id = await create({ name: 'Newsletter', legalBasis: 'consent' });
    expect(await json(await send('GET', `${PATH}/${id}`))).toMatchObject({
      role: 'controller', status: 'draft', specialCategoryCondition: null, dataSubjectCategories: [], personalDataCategories: [],
      systemAssetIds: [], processorThirdPartyIds: [],
    });
  });

  test('every write leaves its Audit Log entry and History naming what changed', async () => {
    const id = await create({ name: 'Recruiting', legalBasis: 'contract' });
    const res = await send('PATCH', `${PATH}/${id}`, { legalBasis: 'legitimate_interests', dataSubjectCategories: ['job_applicants'] });
    expect(res.status, await res.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${PATH}/${id}/history`));
    const update = history.find((h) => h.action === 'update')!;
    expect(update.changes.legalBasis).toEqual({ before: 'contract', after: 'legitimate_interests' });
    expect(update.changes.dataSubjectCategories).toEqual({ before: [], after: ['job_applicants'] });
    expect(history.some((h) => h.action === 'create')).toBe(true);
    expect((await send('DELETE', `${PATH}/${id}`)).status).toBe(204);
    const entries = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.module, 'dataPrivacy'), eq(auditLog.recordType, 'processingActivity'), eq(auditLog.recordId, id)));
    expect(entries.map((e) => e.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  test('takes the custom fields defined for data privacy, with their changes in History', async () => {
    const settings = await makeToken(env, admin, ['customFields:create']);
    const key = `dpo_ref_${Date.now().toString(36)}`;
    const defined = await send('POST', '/api/v1/custom-fields', { module: 'dataPrivacy', key, label: 'DPO reference', type: 'text' }, settings);
    expect(defined.status, await defined.clone().text()).toBe(201);
    const id = await create({ name: unique('With DPO reference'), legalBasis: 'consent', customFields: { [key]: 'DPO-17' } });
    expect(await json(await send('GET', `${PATH}/${id}`))).toMatchObject({ customFields: { [key]: 'DPO-17' } });
    expect((await send('PATCH', `${PATH}/${id}`, { customFields: { [key]: 'DPO-18' } })).status).toBe(200);
    const history = await json<{ changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${PATH}/${id}/history`));
    expect(history.some((h) => h.changes[`customFields.${key}`]?.after === 'DPO-18')).toBe(true);
  });

  test('the list filters by role and status and searches names', async () => {
    const marker = unique('Filtered');
    await create({ name: `${marker} hosting`, role: 'processor', status: 'active', legalBasis: 'contract' });
    await create({ name: `${marker} staff`, role: 'controller', status: 'active', legalBasis: 'contract' });
    await create({ name: `${marker} draft`, role: 'processor', legalBasis: 'contract' });
    const page = await json<{ rows: { name: string }[]; total: number }>(await send('GET', `${PATH}?q=${encodeURIComponent(marker)}&role=processor&status=active`));
    expect(page.rows.map((r) => r.name)).toEqual([`${marker} hosting`]);
    expect(page.total).toBe(1);
  });
});

describe('bad input is refused naming the field, with nothing written', () => {
  test('a legal basis outside the six of Art. 6(1)', async () => {
    const name = unique('Unlawful');
    for (const legalBasis of ['legitimate_interest', 'contractual_necessity', '']) {
      const res = await send('POST', PATH, { name, legalBasis });
      expect(res.status, await res.clone().text()).toBe(400);
      expect(((await res.json()) as { error: string }).error).toContain('legalBasis');
    }
    const missing = await send('POST', PATH, { name });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as { error: string }).error).toContain('legalBasis');
    expect(await countNamed(name)).toBe(0);
  });

  test('special categories of personal data without an Art. 9(2) condition, on create and on change', async () => {
    const name = unique('Health checks');
    const res = await send('POST', PATH, { name, legalBasis: 'legal_obligation', personalDataCategories: ['identification', 'health_data'] });
    expect(res.status, await res.clone().text()).toBe(400);
    const body = (await res.json()) as { error: string; problems: { field: string; message: string }[] };
    expect(body.problems).toEqual([{ field: 'specialCategoryCondition', message: expect.stringContaining('(Health data)') }]);
    expect(await countNamed(name)).toBe(0);

    const id = await create({ name, legalBasis: 'legal_obligation', personalDataCategories: ['identification'] });
    const change = await send('PATCH', `${PATH}/${id}`, { personalDataCategories: ['identification', 'biometric_data'] });
    expect(change.status).toBe(400);
    expect(((await change.json()) as { error: string }).error).toContain('specialCategoryCondition');
    expect(await json(await send('GET', `${PATH}/${id}`))).toMatchObject({ personalDataCategories: ['identification'] });
  });

  test('an Art. 9 condition without any special category, and a condition outside Art. 9(2)', async () => {
    const plain = await send('POST', PATH, { name: unique('Plain'), legalBasis: 'consent', personalDataCategories: ['contact_details'], specialCategoryCondition: 'explicit_consent' });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: string }).error).toContain('specialCategoryCondition');
    const unknown = await send('POST', PATH, { name: unique('Odd'), legalBasis: 'consent', personalDataCategories: ['health_data'], specialCategoryCondition: 'because' });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toContain('specialCategoryCondition');
  });

  test('a category outside the fixed lists', async () => {
    const res = await send('POST', PATH, { name: unique('Odd categories'), legalBasis: 'consent', dataSubjectCategories: ['aliens'] });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('dataSubjectCategories');
  });
});

describe('own and all levels', () => {
  test('a user at level own reads and changes only the processing activities they or their groups own, and so does their token', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'own', 'dataPrivacy:create': 'own', 'dataPrivacy:update': 'own', 'dataPrivacy:delete': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), PRIVACY);
    const mine = await create({ name: unique('Mine'), legalBasis: 'consent' }, own);
    const ours = await create({ name: unique('Ours'), legalBasis: 'consent', ownerId: null, ownerGroupId: user.groupId });
    const theirs = await create({ name: unique('Theirs'), legalBasis: 'consent' });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', `${PATH}?pageSize=200`, undefined, own));
    expect(page.rows.map((r) => r.id).sort()).toEqual([mine, ours].sort());
    const unreadable = refusedWith(404, 'Processing activity <id> not found', 'no dataPrivacy:read on Processing activity <id>');
    expect(await refusalOf(env, () => send('GET', `${PATH}/${theirs}`, undefined, own))).toEqual(unreadable);
    expect(await refusalOf(env, () => send('PATCH', `${PATH}/${theirs}`, { status: 'active' }, own))).toEqual(unreadable);
    expect(await refusalOf(env, () => send('DELETE', `${PATH}/${theirs}`, undefined, own))).toEqual(unreadable);
    expect((await send('PATCH', `${PATH}/${ours}`, { status: 'active' }, own)).status).toBe(200);
    expect(await refusalOf(env, () => send('POST', PATH, { name: unique('For the admin'), legalBasis: 'consent', ownerId: admin.userId }, own)))
      .toEqual(refusedWith(403, 'forbidden', 'dataPrivacy:create is at level own: the record must be owned by you or one of your groups'));
  });

  test('a token needs the dataPrivacy scope of each right, whatever its creator may do', async () => {
    const readOnly = await makeToken(env, admin, ['dataPrivacy:read']);
    expect(await refusalOf(env, () => send('POST', PATH, { name: unique('No scope'), legalBasis: 'consent' }, readOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:create missing'));
    const other = await makeToken(env, admin, ['risks:read']);
    expect(await refusalOf(env, () => send('GET', PATH, undefined, other))).toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
    expect((await env.request(PATH)).status).toBe(401);
  });
});

describe('links to systems (assets) and processors (third parties)', () => {
  test('a link to an asset or third party the caller cannot read answers the same 404 as a missing one, audited, nothing written', async () => {
    const user = await makeUser(env, { ...Object.fromEntries(PRIVACY.map((p) => [p, 'all'])), 'assets:read': 'own', 'thirdParties:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), [...PRIVACY, 'assets:read', 'thirdParties:read']);
    const hiddenAsset = await asset();
    const hiddenVendor = await vendor();
    const missing = crypto.randomUUID();
    const name = unique('Linked');
    expect(await refusalOf(env, () => send('POST', PATH, { name, legalBasis: 'contract', systemAssetIds: [hiddenAsset] }, scoped)))
      .toEqual(refusedWith(404, 'systemAssetIds: Asset <id> not found', 'link to Asset <id>: not readable (assets:read)'));
    expect(await refusalOf(env, () => send('POST', PATH, { name, legalBasis: 'contract', systemAssetIds: [missing] }, scoped)))
      .toEqual(refusedWith(404, 'systemAssetIds: Asset <id> not found', 'link to Asset <id>: no such record'));
    expect(await refusalOf(env, () => send('POST', PATH, { name, legalBasis: 'contract', processorThirdPartyIds: [hiddenVendor] }, scoped)))
      .toEqual(refusedWith(404, 'processorThirdPartyIds: Third party <id> not found', 'link to Third party <id>: not readable (thirdParties:read)'));
    expect(await countNamed(name)).toBe(0);
  });

  test('linking needs the linked module read scope (Bearer rule 4)', async () => {
    const noAssets = await makeToken(env, admin, PRIVACY);
    const system = await asset();
    expect(await refusalOf(env, () => send('POST', PATH, { name: unique('No asset scope'), legalBasis: 'contract', systemAssetIds: [system] }, noAssets)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope assets:read missing'));
  });

  test('links someone else made are kept when a record is changed by a caller who cannot read them', async () => {
    const system = await asset();
    const user = await makeUser(env, { ...Object.fromEntries(PRIVACY.map((p) => [p, 'all'])), 'assets:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), [...PRIVACY, 'assets:read']);
    const id = await create({ name: unique('Kept link'), legalBasis: 'contract', systemAssetIds: [system] });
    const res = await send('PATCH', `${PATH}/${id}`, { retention: '5 years' }, scoped);
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await json(res)).toMatchObject({ systemAssetIds: [system], retention: '5 years' });
  });
});
