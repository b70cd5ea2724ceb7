import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { assets, history, thirdPartyDpas } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { putThirdPartyDpa } from '../../src/modules/dataPrivacy/data-map-service';
import { AppError } from '../../src/platform/core/errors';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, createdId, dataOf } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { postCsv } from '../imports/helpers';

/** The bad input the other files leave out: links added by a change, a whole CSV file, and days east of UTC. */

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update'];
const PATH = '/api/v1/data-privacy/processing-activities';

let env: TestEnv;
let admin: Actor;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'assets:read', 'assets:create', 'assets:update', 'thirdParties:read', 'thirdParties:create']);
});

const send = apiSender(() => env, () => token);
const asset = () => send('POST', '/api/v1/assets', { name: unique('Payroll system') }).then(createdId);
const vendor = () => send('POST', '/api/v1/third-parties', { name: unique('Payroll bureau') }).then(createdId);

describe('links added by a change', () => {
  test('adding an asset or third party the caller cannot read to an activity answers the same 404 as a missing one, audited, and changes nothing', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:update': 'all', 'assets:read': 'own', 'thirdParties:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:update', 'assets:read', 'thirdParties:read']);
    const id = await send('POST', PATH, { name: unique('Payroll'), legalBasis: 'contract' }).then(createdId);
    const hiddenAsset = await asset();
    const hiddenVendor = await vendor();
    const entries = async () => (await env.ctx.db.select({ id: history.id }).from(history).where(eq(history.recordId, id))).length;
    const before = await entries();

    expect(await refusalOf(env, () => send('PATCH', `${PATH}/${id}`, { purposes: 'Paying salaries', systemAssetIds: [hiddenAsset] }, scoped)))
      .toEqual(refusedWith(404, 'systemAssetIds: Asset <id> not found', 'link to Asset <id>: not readable (assets:read)'));
    expect(await refusalOf(env, () => send('PATCH', `${PATH}/${id}`, { purposes: 'Paying salaries', systemAssetIds: [crypto.randomUUID()] }, scoped)))
      .toEqual(refusedWith(404, 'systemAssetIds: Asset <id> not found', 'link to Asset <id>: no such record'));
    expect(await refusalOf(env, () => send('PATCH', `${PATH}/${id}`, { purposes: 'Paying salaries', processorThirdPartyIds: [hiddenVendor] }, scoped)))
      .toEqual(refusedWith(404, 'processorThirdPartyIds: Third party <id> not found', 'link to Third party <id>: not readable (thirdParties:read)'));

    expect(await dataOf(await send('GET', `${PATH}/${id}`))).toMatchObject({ purposes: '', systemAssetIds: [], processorThirdPartyIds: [] });
    expect(await entries()).toBe(before);
  });
});

describe('privacy columns in an asset CSV', () => {
  test('a file of several rows with a data-map column is refused whole, checked or applied, naming the column and why; no asset is written', async () => {
    const names = [unique('Imported HR system'), unique('Imported CRM')];
    const file = `name,hosting\n${names[0]},saas\n${names[1]},public_cloud\n`;
    for (const mode of ['check', 'apply'] as const) {
      const refused = await postCsv(env, token, 'assets', file, mode);
      // A CSV file refused as a whole answers 422 (docs/csv-import.md), as every import does.
      expect(refused.status).toBe(422);
      expect(refused.error).toBe('The column "hosting" cannot be imported: data-map fields are privacy records kept by Data privacy, never imported; set them in the asset\'s Privacy section (dataPrivacy:update).');
    }
    for (const name of names) expect(await env.ctx.db.select().from(assets).where(eq(assets.name, name))).toEqual([]);
  });
});

describe('days east of UTC', () => {
  // 20:00 UTC on 1 March: already 2 March in Kiritimati (UTC+14). The service is given the moment, as every date rule is.
  const evening = new Date('2026-03-01T20:00:00Z');

  test('a DPA signed today in a zone ahead of UTC is not "in the future"; the day after that is, naming signedOn', async () => {
    const id = await vendor();
    const saved = await env.ctx.db.transaction((tx) => putThirdPartyDpa(tx, admin, id, { signedOn: '2026-03-02', version: '2' }, evening));
    expect(saved).toMatchObject({ signedOn: '2026-03-02', version: '2' });

    const other = await vendor();
    const refusal = await env.ctx.db.transaction((tx) => putThirdPartyDpa(tx, admin, other, { signedOn: '2026-03-03' }, evening)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).problems).toEqual([{ field: 'signedOn', message: 'must not be in the future' }]);
    expect(await env.ctx.db.select().from(thirdPartyDpas).where(eq(thirdPartyDpas.thirdPartyId, other))).toEqual([]);
  });
});
