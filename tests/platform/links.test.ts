import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, gt } from 'drizzle-orm';
import { apiTokens, auditLog, complianceAnalyses } from '../../db/schema';
import { hashSecret } from '../../src/modules/apiTokens/service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { Level, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, bearer, classificationId, makeToken, makeUser, unique } from '../helpers/factories';

/**
 * Spec Errors and Bearer rule 4: a link to a record the caller cannot read answers 404, and so does a link to a record
 * that does not exist, with the same body; both are refusals in the Audit Log (permission.denied). Table-driven over
 * every link a record can make to another module's record.
 */

let env: TestEnv;
let adminToken: string;
let userToken: string;
let userTokenId: string;
/** Records owned by the administrator: the own-level user cannot read them. */
const theirs: Record<string, string> = {};
/** Records the own-level user owns, to link from. */
const mine: Record<string, string> = {};

const RIGHTS: Permission[] = [
  'risks:read', 'risks:create', 'risks:update', 'assets:read', 'assets:create', 'businessUnits:read', 'businessUnits:create',
  'incidents:read', 'incidents:create', 'thirdParties:read', 'thirdParties:create', 'thirdParties:update', 'audits:read', 'audits:create',
  'controls:read', 'policies:read', 'projects:read', 'compliance:read', 'compliance:create', 'compliance:update',
];

const send = (secret: string, method: string, path: string, body?: unknown) =>
  env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));

async function created(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

const auditHead = async () => (await env.ctx.db.select({ seq: auditLog.seq }).from(auditLog).orderBy(desc(auditLog.seq)).limit(1))[0]?.seq ?? 0;

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  adminToken = await makeToken(env, admin, [...RIGHTS, 'controls:create', 'policies:create', 'projects:create']);
  const user = await makeUser(env, { ...Object.fromEntries(RIGHTS.map((r) => [r, 'own' as Level])), 'apiTokens:create': 'own' });
  userToken = await makeToken(env, await user.actor(), RIGHTS);
  userTokenId = (await env.ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(userToken))))[0].id;

  const risk = async (secret: string) => created(await send(secret, 'POST', '/api/v1/risks', {
    title: unique('Risk'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3,
  }));
  for (const [key, secret] of [['theirs', adminToken], ['mine', userToken]] as const) {
    const into = key === 'theirs' ? theirs : mine;
    into.asset = await created(await send(secret, 'POST', '/api/v1/assets', { name: unique('Asset') }));
    into.businessUnit = await created(await send(secret, 'POST', '/api/v1/business-units', { name: unique('Unit') }));
    into.thirdParty = await created(await send(secret, 'POST', '/api/v1/third-parties', { name: unique('Vendor') }));
    into.auditPlan = await created(await send(secret, 'POST', '/api/v1/audits', { title: unique('Plan') }));
    into.risk = await risk(secret);
  }
  theirs.control = await created(await send(adminToken, 'POST', '/api/v1/controls', { name: unique('Control') }));
  theirs.policy = await created(await send(adminToken, 'POST', '/api/v1/policies', { title: unique('Policy') }));
  theirs.project = await created(await send(adminToken, 'POST', '/api/v1/projects', { title: unique('Project') }));
  const importer = await user.actor('api');
  const { id: packageId } = await env.ctx.db.transaction((tx) =>
    importPackage(tx, importer, { name: unique('Framework'), items: [{ code: 'R1', name: 'Requirement' }] }));
  mine.analysis = (await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, packageId)))[0].id;
});

interface LinkCase {
  link: string;
  /** The record type linked to, as `theirs` names it. */
  target: string;
  label: string;
  field: string;
  method: 'POST';
  path: () => string;
  body: (id: string) => Promise<Record<string, unknown>> | Record<string, unknown>;
}

const riskBody = async (extra: Record<string, unknown>) => ({
  title: unique('Risk'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 3, ...extra,
});

const CASES: LinkCase[] = [
  { link: "a risk's asset", target: 'asset', label: 'Asset', field: 'assetId', method: 'POST', path: () => '/api/v1/risks', body: (id) => riskBody({ assetId: id }) },
  { link: "a risk's business unit", target: 'businessUnit', label: 'Business unit', field: 'businessUnitId', method: 'POST', path: () => '/api/v1/risks', body: (id) => riskBody({ businessUnitId: id }) },
  { link: "an asset's business unit", target: 'businessUnit', label: 'Business unit', field: 'businessUnitId', method: 'POST', path: () => '/api/v1/assets', body: (id) => ({ name: unique('Asset'), businessUnitId: id }) },
  { link: "a business unit's parent", target: 'businessUnit', label: 'Business unit', field: 'parentId', method: 'POST', path: () => '/api/v1/business-units', body: (id) => ({ name: unique('Unit'), parentId: id }) },
  { link: "an incident's asset", target: 'asset', label: 'Asset', field: 'assetId', method: 'POST', path: () => '/api/v1/incidents', body: (id) => ({ title: unique('Incident'), assetId: id }) },
  { link: "an incident's third party", target: 'thirdParty', label: 'Third party', field: 'thirdPartyId', method: 'POST', path: () => '/api/v1/incidents', body: (id) => ({ title: unique('Incident'), thirdPartyId: id }) },
  { link: "an audit finding's plan", target: 'auditPlan', label: 'Audit plan', field: 'auditPlanId', method: 'POST', path: () => '/api/v1/audits/findings', body: (id) => ({ title: unique('Finding'), auditPlanId: id }) },
  { link: "an audit finding's control", target: 'control', label: 'Control', field: 'controlId', method: 'POST', path: () => '/api/v1/audits/findings', body: (id) => ({ title: unique('Finding'), auditPlanId: mine.auditPlan, controlId: id }) },
  { link: "a risk treatment's control", target: 'control', label: 'Control', field: 'controlIds', method: 'POST', path: () => `/api/v1/risks/${mine.risk}/treatments`, body: (id) => ({ type: 'mitigate', title: unique('Treatment'), controlIds: [id] }) },
  { link: "a third party's linked risk", target: 'risk', label: 'Risk', field: 'riskId', method: 'POST', path: () => `/api/v1/third-parties/${mine.thirdParty}/risks`, body: (id) => ({ riskId: id }) },
  { link: "a third party's sub-processor", target: 'thirdParty', label: 'Third party', field: 'thirdPartyId', method: 'POST', path: () => `/api/v1/third-parties/${mine.thirdParty}/sub-processors`, body: (id) => ({ thirdPartyId: id }) },
  ...(['control', 'policy', 'risk', 'project'] as const).map((target): LinkCase => ({
    link: `an analysis's mapped ${target}`, target, label: { control: 'Control', policy: 'Policy', risk: 'Risk', project: 'Project' }[target], field: 'id', method: 'POST',
    path: () => `/api/v1/compliance/analyses/${mine.analysis}/${{ control: 'controls', policy: 'policies', risk: 'risks', project: 'projects' }[target]}`,
    body: (id) => ({ id }),
  })),
];

describe('A link to a record the caller cannot read, or to one that does not exist', () => {
  for (const c of CASES) {
    test(`${c.link}: the same 404 either way, each audited as permission.denied`, async () => {
      const missing = crypto.randomUUID();
      const answers: { status: number; body: unknown }[] = [];
      for (const id of [theirs[c.target], missing]) {
        const since = await auditHead();
        const res = await send(userToken, c.method, c.path(), await c.body(id));
        const body = (await res.json()) as { error: string };
        answers.push({ status: res.status, body: JSON.parse(JSON.stringify(body).replaceAll(id, '<id>')) });
        const denials = await env.ctx.db.select().from(auditLog)
          .where(and(gt(auditLog.seq, since), eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')));
        expect(denials, `${c.link} ${id === missing ? 'missing' : 'unreadable'}`).toHaveLength(1);
        expect(denials[0].details).toMatchObject({ tokenId: userTokenId, method: c.method, path: c.path() });
        expect((denials[0].details as { reason: string }).reason).toStartWith(`link to ${c.label} ${id}: `);
      }
      expect(answers[0]).toEqual({
        status: 404, body: { error: `${c.field}: ${c.label} <id> not found`, problems: [{ field: c.field, message: `${c.label} <id> not found` }] },
      });
      expect(answers[1]).toEqual(answers[0]);
    });
  }

  test('the user can link to what they can read (the table above is not refusing everything)', async () => {
    expect((await send(userToken, 'POST', '/api/v1/risks', await riskBody({ assetId: mine.asset, businessUnitId: mine.businessUnit }))).status).toBe(201);
    expect((await send(userToken, 'POST', `/api/v1/third-parties/${mine.thirdParty}/risks`, { riskId: mine.risk })).status).toBe(201);
    expect((await send(userToken, 'POST', '/api/v1/audits/findings', { title: unique('Finding'), auditPlanId: mine.auditPlan })).status).toBe(201);
  });
});
