import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { complianceAnalyses } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { RESTRICTED_NAME } from '../../src/platform/records/links';
import type { Level, Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * A linked record the reader may not read is never named (issue: own-level readers saw other people's records'
 * names). An own-level reader owns records that link to the administrator's records, every one named with one
 * secret marker. Each response, download and screen that names a linked record is read twice: the administrator
 * sees the names (so the case is not vacuous), the own-level reader sees the restricted marker and never the name.
 */

let env: TestEnv;
let adminToken: string;
let readerToken: string;
let adminScreens: Browser;
let readerScreens: Browser;
const SECRET = unique('Secret');
/** The reader's own finding of the secret plan: the POA&M lists are narrowed to it (other files' findings share the database and its pages). */
const FINDING = unique('Finding');
const ids: Record<string, string> = {};

const READER_RIGHTS: Permission[] = [
  'risks:read', 'assets:read', 'businessUnits:read', 'incidents:read', 'incidents:create', 'incidents:update', 'thirdParties:read', 'audits:read', 'controls:read', 'compliance:read',
  'compliance:create', 'policies:read', 'projects:read',
];
const ADMIN_SCOPES: Permission[] = [
  'risks:read', 'risks:create', 'risks:update', 'assets:read', 'assets:create', 'businessUnits:read', 'businessUnits:create', 'incidents:read',
  'incidents:create', 'thirdParties:read', 'thirdParties:create', 'thirdParties:update', 'audits:read', 'audits:create', 'controls:read',
  'controls:create', 'compliance:read', 'compliance:update',
];

const send = (secret: string, method: string, path: string, body?: unknown) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

async function created(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const post = async (path: string, body: Record<string, unknown>) => created(await send(adminToken, 'POST', path, body));

beforeAll(async () => {
  env = await testEnv();
  adminToken = await makeToken(env, await adminActor(env), ADMIN_SCOPES);
  const reader = await makeUser(env, { ...Object.fromEntries(READER_RIGHTS.map((r) => [r, 'own' as Level])), 'apiTokens:create': 'own' });
  readerToken = await makeToken(env, await reader.actor(), READER_RIGHTS);
  const mine = { ownerId: reader.id };

  // The administrator's records: the reader may read none of them.
  ids.secretRisk = await post('/api/v1/risks', { title: `${SECRET} risk`, classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3 });
  ids.secretAsset = await post('/api/v1/assets', { name: `${SECRET} asset` });
  ids.secretUnit = await post('/api/v1/business-units', { name: `${SECRET} unit` });
  ids.secretVendor = await post('/api/v1/third-parties', { name: `${SECRET} vendor` });
  ids.secretPlan = await post('/api/v1/audits', { title: `${SECRET} plan` });
  ids.secretControl = await post('/api/v1/controls', { name: `${SECRET} control` });

  // The reader's records, each linking to one of them.
  ids.exception = await post('/api/v1/risk-exceptions', { parentId: ids.secretRisk, title: unique('Exception'), description: 'Accepted for now', expiresAt: '2099-01-01', ...mine });
  ids.finding = await post('/api/v1/audit-findings', { auditPlanId: ids.secretPlan, controlId: ids.secretControl, title: FINDING, ...mine });
  ids.incident = await post('/api/v1/incidents', { title: unique('Incident'), assetId: ids.secretAsset, thirdPartyId: ids.secretVendor, ...mine });
  ids.asset = await post('/api/v1/assets', { name: unique('Asset'), businessUnitId: ids.secretUnit, ...mine });
  ids.unit = await post('/api/v1/business-units', { name: unique('Unit'), parentId: ids.secretUnit, ...mine });
  ids.risk = await post('/api/v1/risks', {
    title: unique('Risk'), classificationId: await classificationId(env), inherentLikelihood: 2, inherentImpact: 2, assetId: ids.secretAsset, businessUnitId: ids.secretUnit, ...mine,
  });
  ids.vendor = await post('/api/v1/third-parties', { name: unique('Vendor'), ...mine });
  expect((await send(adminToken, 'POST', `/api/v1/third-parties/${ids.vendor}/risks`, { riskId: ids.secretRisk })).status).toBe(201);
  expect((await send(adminToken, 'POST', `/api/v1/third-parties/${ids.vendor}/sub-processors`, { thirdPartyId: ids.secretVendor })).status).toBe(201);
  const importer = await reader.actor('api');
  const { id: packageId } = await env.ctx.db.transaction((tx) =>
    importPackage(tx, importer, { name: unique('Framework'), items: [{ code: 'R1', name: 'Requirement' }] }));
  ids.analysis = (await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, packageId)))[0].id;
  expect((await send(adminToken, 'POST', `/api/v1/compliance/analyses/${ids.analysis}/controls`, { id: ids.secretControl })).status).toBe(201);

  adminScreens = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  readerScreens = await signedInBrowser(env, reader.email, reader.password);
});

interface Place {
  name: string;
  read(as: 'admin' | 'reader'): Promise<Response>;
}

const api = (name: string, path: () => string): Place => ({
  name, read: (as) => send(as === 'admin' ? adminToken : readerToken, 'GET', path()),
});
const screen = (name: string, path: () => string): Place => ({
  name, read: (as) => (as === 'admin' ? adminScreens : readerScreens).get(path()),
});

const PLACES: Place[] = [
  api('risk exceptions list (parent.title)', () => '/api/v1/risk-exceptions'),
  api('a risk exception (parent.title)', () => `/api/v1/risk-exceptions/${ids.exception}`),
  api('POA&M register (audit plan as reference)', () => `/api/v1/compliance/poam?source=audit&q=${encodeURIComponent(FINDING)}`),
  api("a third party's History (riskTitle, subProcessorName)", () => `/api/v1/third-parties/${ids.vendor}/history`),
  api("an analysis's History (mapped control's title)", () => `/api/v1/compliance/analyses/${ids.analysis}/history`),
  screen('incidents current-records download (asset, third party)', () => '/incidents/import/current.csv'),
  screen('audit findings current-records download (plan, control)', () => '/audits/findings/import/current.csv'),
  screen('assets current-records download (business unit)', () => '/assets/import/current.csv'),
  screen('risks current-records download (asset, business unit)', () => '/risks/import/current.csv'),
  screen('risk exceptions current-records download (risk)', () => '/risks/exceptions/import/current.csv'),
  screen('POA&M download (audit plan)', () => '/compliance/poam.csv?source=audit'),
  screen('risk exceptions screen', () => '/risks/exceptions'),
  screen('POA&M screen', () => `/compliance/poam?source=audit&q=${encodeURIComponent(FINDING)}`),
  screen('a third party screen (History)', () => `/third-parties/${ids.vendor}`),
  screen('an analysis screen (History)', () => `/compliance/analyses/${ids.analysis}`),
  screen('an incident screen (asset, third party)', () => `/incidents/${ids.incident}`),
  screen('an audit finding screen (plan, control)', () => `/audits/findings/${ids.finding}`),
  screen('an asset screen (business unit)', () => `/assets/${ids.asset}`),
  screen('a business unit screen (parent unit)', () => `/business-units/${ids.unit}`),
];

describe('a linked record the reader may not read is never named', () => {
  for (const place of PLACES) {
    test(place.name, async () => {
      const asAdmin = await place.read('admin');
      expect(asAdmin.status, place.name).toBe(200);
      expect(await asAdmin.text()).toContain(SECRET);
      const asReader = await place.read('reader');
      expect(asReader.status, place.name).toBe(200);
      const body = await asReader.text();
      expect(body).not.toContain(SECRET);
      expect(body).toContain(RESTRICTED_NAME);
    });
  }
});

describe('a download re-imported unchanged keeps links to restricted records', () => {
  test('incidents current records back through Check file: nothing to change, no problem', async () => {
    const csv = await (await readerScreens.get('/incidents/import/current.csv')).text();
    const res = await env.request('/api/v1/incidents/import?mode=check', bearer(readerToken, { method: 'POST', body: csv, headers: { 'content-type': 'text/csv' } }));
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).not.toContain(SECRET);
    const result = JSON.parse(text) as { data: { counts: Record<string, number> } };
    expect(result.data.counts).toMatchObject({ error: 0, update: 0, create: 0, unchanged: 1 });
  });
});
