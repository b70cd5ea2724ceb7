import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { assetDataMaps, auditLog, history, thirdPartyDpas } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { postCsv } from '../imports/helpers';

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:update'];

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'assets:read', 'assets:create', 'assets:update', 'thirdParties:read', 'thirdParties:create', 'thirdParties:update']);
});

const send = apiSender(() => env, () => token);
const json = dataOf;
async function created(res: Response) {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
const asset = () => send('POST', '/api/v1/assets', { name: unique('HR system') }).then(created);
const vendor = () => send('POST', '/api/v1/third-parties', { name: unique('Payroll bureau') }).then(created);

describe('data-map fields on assets', () => {
  test('recorded and read by data privacy, with the location by name, audited with History', async () => {
    const id = await asset();
    expect(await json(await send('GET', `/api/v1/assets/${id}/data-map`))).toMatchObject({ personalDataHeld: false, dataCategories: [], updatedAt: null });
    const put = await send('PUT', `/api/v1/assets/${id}/data-map`, {
      personalDataHeld: true, dataCategories: ['identification', 'health_data'], locationCountry: 'DE', retention: '10 years', hosting: 'public_cloud',
    });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await json(await send('GET', `/api/v1/assets/${id}/data-map`))).toMatchObject({
      assetId: id, personalDataHeld: true, dataCategories: ['identification', 'health_data'], locationCountry: 'DE', locationCountryName: 'Germany',
      retention: '10 years', hosting: 'public_cloud',
    });
    await send('PUT', `/api/v1/assets/${id}/data-map`, { personalDataHeld: true, dataCategories: ['identification'], locationCountry: 'DE', hosting: 'saas' });
    const audited = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.module, 'dataPrivacy'), eq(auditLog.recordType, 'assetDataMap'), eq(auditLog.recordId, id)));
    expect(audited.map((a) => a.action).sort()).toEqual(['create', 'update']);
    expect((await env.ctx.db.select({ id: history.id }).from(history).where(eq(history.recordId, id))).length).toBeGreaterThanOrEqual(2);
    // The asset itself does not carry them: the assets API answers without any data-map field.
    const seen = await json<Record<string, unknown>>(await send('GET', `/api/v1/assets/${id}`));
    expect(Object.keys(seen)).not.toContain('personalDataHeld');
  });

  test('bad input: a code naming no country, categories while no personal data is held', async () => {
    const id = await asset();
    const res = await send('PUT', `/api/v1/assets/${id}/data-map`, { personalDataHeld: false, dataCategories: ['financial'], locationCountry: 'XX' });
    expect(res.status, await res.clone().text()).toBe(400);
    const problems = ((await res.json()) as { problems: { field: string }[] }).problems.map((p) => p.field).sort();
    expect(problems).toEqual(['dataCategories', 'locationCountry']);
    expect(await env.ctx.db.select().from(assetDataMaps).where(eq(assetDataMaps.assetId, id))).toEqual([]);
  });

  test('writable only with data privacy rights: an asset writer without dataPrivacy:update is refused 403, nothing written', async () => {
    const id = await asset();
    const assetsOnly = await makeToken(env, admin, ['assets:read', 'assets:update']);
    expect(await refusalOf(env, () => send('PUT', `/api/v1/assets/${id}/data-map`, { personalDataHeld: true }, assetsOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:update missing'));
    const readOnly = await makeToken(env, admin, ['assets:read', 'dataPrivacy:read']);
    expect(await refusalOf(env, () => send('PUT', `/api/v1/assets/${id}/data-map`, { personalDataHeld: true }, readOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:update missing'));
    expect(await env.ctx.db.select().from(assetDataMaps).where(eq(assetDataMaps.assetId, id))).toEqual([]);
  });

  test('an asset the caller cannot read: the same 404 as a missing one, audited', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:update': 'all', 'assets:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), [...PRIVACY, 'assets:read']);
    const hidden = await asset();
    expect(await refusalOf(env, () => send('PUT', `/api/v1/assets/${hidden}/data-map`, { personalDataHeld: true }, scoped)))
      .toEqual(refusedWith(404, 'Asset <id> not found', 'link to Asset <id>: not readable (assets:read)'));
    expect(await refusalOf(env, () => send('PUT', `/api/v1/assets/${crypto.randomUUID()}/data-map`, { personalDataHeld: true }, scoped)))
      .toEqual(refusedWith(404, 'Asset <id> not found', 'link to Asset <id>: no such record'));
  });

  test('never through CSV import: the asset import refuses privacy columns naming the reason, nothing written', async () => {
    const name = unique('Imported system');
    const refused = await postCsv(env, token, 'assets', `name,personal_data_held,location_country\n${name},yes,DE\n`, 'apply');
    expect(refused.status).toBe(422);
    expect(refused.error).toBe('The columns "personal_data_held", "location_country" cannot be imported: data-map fields are privacy records kept by Data privacy, never imported; set them in the asset\'s Privacy section (dataPrivacy:update).');
    const listed = await json<{ rows: unknown[] }>(await send('GET', `/api/v1/assets?q=${encodeURIComponent(name)}`));
    expect(listed.rows).toEqual([]);
  });
});

describe('DPA fields on third parties', () => {
  test('recorded and read by data privacy, sub-processors\' locations by name, audited', async () => {
    const id = await vendor();
    const put = await send('PUT', `/api/v1/third-parties/${id}/dpa`, { signedOn: '2026-02-14', version: '3.1', subProcessorCountries: ['US', 'IN'] });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await json(await send('GET', `/api/v1/third-parties/${id}/dpa`))).toMatchObject({
      thirdPartyId: id, signedOn: '2026-02-14', version: '3.1', subProcessorCountries: ['US', 'IN'], subProcessorCountryNames: ['United States', 'India'],
    });
    const audited = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.recordType, 'thirdPartyDpa'), eq(auditLog.recordId, id)));
    expect(audited.map((a) => a.action)).toEqual(['create']);
  });

  test('bad input and missing rights are refused, nothing written; the third-party import refuses DPA columns', async () => {
    const id = await vendor();
    const bad = await send('PUT', `/api/v1/third-parties/${id}/dpa`, { signedOn: '2999-01-01', subProcessorCountries: ['US'] });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain('signedOn');
    const vendorsOnly = await makeToken(env, admin, ['thirdParties:read', 'thirdParties:update']);
    expect(await refusalOf(env, () => send('PUT', `/api/v1/third-parties/${id}/dpa`, { version: '1' }, vendorsOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:update missing'));
    expect(await env.ctx.db.select().from(thirdPartyDpas).where(eq(thirdPartyDpas.thirdPartyId, id))).toEqual([]);
    const refused = await postCsv(env, token, 'third-parties', `name,dpa_signed_on\n${unique('Vendor')},2026-01-01\n`, 'check');
    expect(refused.status).toBe(422);
    expect(refused.error).toContain('The column "dpa_signed_on" cannot be imported: DPA fields are privacy records kept by Data privacy');
  });
});
