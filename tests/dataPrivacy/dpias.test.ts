import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright';
import { auditLog, dpias, risks } from '../../db/schema';
import { createApp } from '../../src/app';
import { createRiskFromDpia } from '../../src/modules/dataPrivacy/dpia-service';
import type { AppError } from '../../src/platform/core/errors';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { axeViolations, screenshots } from '../helpers/axe';
import { chromiumAvailable, launchChromium, openPage } from '../helpers/chromium';
import { adminActor, classificationId, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf, createdId } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';

/** DPIAs (GDPR Art. 35): screening and decision, the assessment, sign-off with the review right, and risks written from them. */

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];
const PATH = '/api/v1/data-privacy/dpias';

let env: TestEnv;
let admin: Actor;
let token: string;
let activity: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'dataPrivacy:review', 'risks:read', 'risks:create']);
  activity = await createActivity(unique('Loyalty programme'));
});

const send = apiSender(() => env, () => token);
const json = dataOf;
const created = createdId;
async function createActivity(name: string, secret = token, extra: Record<string, unknown> = {}) {
  return created(await send('POST', '/api/v1/data-privacy/processing-activities', { name, legalBasis: 'legitimate_interests', ...extra }, secret));
}
const create = async (body: Record<string, unknown>, secret = token) => created(await send('POST', PATH, { processingActivityId: activity, ...body }, secret));
type Dpia = Record<string, unknown> & { screeningRequired: boolean; required: boolean; status: string; riskIds: string[] };
const read = async (id: string, secret = token) => json<Dpia>(await send('GET', `${PATH}/${id}`, undefined, secret));
const countNamed = async (name: string) => (await env.ctx.db.select({ id: dpias.id }).from(dpias).where(eq(dpias.name, name))).length;

describe('DPIAs over REST', () => {
  test('a DPIA holds the screening, the assessment and the DPO advice of one processing activity, and is owned by its creator', async () => {
    const id = await create({
      name: 'Loyalty profiling', criteriaMet: ['evaluation_or_scoring', 'large_scale'], description: 'Scoring customers by purchases',
      necessityAndProportionality: 'Purchase data only', risksToDataSubjects: 'Unfair exclusion from offers', measures: 'No health categories',
      residualRisk: 'low', residualJudgement: 'Acceptable', dpoAdvice: 'Proceed',
    });
    expect(await read(id)).toMatchObject({
      name: 'Loyalty profiling', processingActivityId: activity, criteriaMet: ['evaluation_or_scoring', 'large_scale'],
      description: 'Scoring customers by purchases', necessityAndProportionality: 'Purchase data only', risksToDataSubjects: 'Unfair exclusion from offers',
      measures: 'No health categories', residualRisk: 'low', residualJudgement: 'Acceptable', dpoAdvice: 'Proceed',
      status: 'draft', signedOffById: null, signedOffAt: null, riskIds: [], owner: { email: ADMIN_EMAIL },
    });
  });

  test('every write leaves its Audit Log entry and History naming what changed', async () => {
    const id = await create({ name: unique('Audited') });
    const res = await send('PATCH', `${PATH}/${id}`, { measures: 'Pseudonymisation' });
    expect(res.status, await res.clone().text()).toBe(200);
    const history = await json<{ action: string; changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${PATH}/${id}/history`));
    expect(history.find((h) => h.action === 'update')!.changes.measures).toEqual({ before: '', after: 'Pseudonymisation' });
    expect((await send('DELETE', `${PATH}/${id}`)).status).toBe(204);
    const entries = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.module, 'dataPrivacy'), eq(auditLog.recordType, 'dpia'), eq(auditLog.recordId, id)));
    expect(entries.map((e) => e.action).sort()).toEqual(['create', 'delete', 'update']);
  });

  test('the list filters by processing activity, and the activity cannot be deleted while a DPIA assesses it', async () => {
    const other = await createActivity(unique('Other activity'));
    const id = await create({ name: unique('Of the other'), processingActivityId: other });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', `${PATH}?processingActivityId=${other}`));
    expect(page.rows.map((r) => r.id)).toEqual([id]);
    const refused = await send('DELETE', `/api/v1/data-privacy/processing-activities/${other}`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain('1 DPIA');
  });
});

describe('a DPIA as a record type', () => {
  test('is found by search in its name and description, links to its page, and takes evidence links', async () => {
    const marker = unique('Telematics').replace(/[^A-Za-z0-9]/g, '');
    const id = await create({ name: `${marker} insurance pricing`, description: 'Driving behaviour scores set premiums' });
    const hits = async (q: string) => {
      const res = await send('GET', `/api/v1/search?q=${encodeURIComponent(q)}`);
      expect(res.status, await res.clone().text()).toBe(200);
      return ((await res.json()) as { data: { kind: string; id: string; href: string }[] }).data.filter((h) => h.kind === 'dpia');
    };
    expect(await hits(marker)).toEqual([expect.objectContaining({ id, href: `/data-privacy/dpias/${id}` })]);
    expect((await hits('premiums')).map((h) => h.id)).toContain(id);
    const evidenceToken = await makeToken(env, admin, ['evidence:create', 'evidence:read', 'evidence:update', 'dataPrivacy:read']);
    const evidence = await created(await send('POST', '/api/v1/evidence', { title: unique('DPO sign-off memo') }, evidenceToken));
    const linked = await send('POST', `/api/v1/evidence/${evidence}/links`, { recordType: 'dpia', recordId: id }, evidenceToken);
    expect(linked.status, await linked.clone().text()).toBe(201);
  });
});

describe('the decision whether a DPIA is required', () => {
  test('two or more of the nine criteria make it required; fewer do not', async () => {
    const none = await read(await create({ name: unique('No criteria') }));
    expect(none).toMatchObject({ screeningRequired: false, required: false });
    const one = await read(await create({ name: unique('One criterion'), criteriaMet: ['systematic_monitoring'] }));
    expect(one).toMatchObject({ screeningRequired: false, required: false });
    const two = await create({ name: unique('Two criteria'), criteriaMet: ['systematic_monitoring', 'vulnerable_data_subjects'] });
    expect(await read(two)).toMatchObject({ screeningRequired: true, required: true });
    // The decision follows the screening when it changes.
    expect((await send('PATCH', `${PATH}/${two}`, { criteriaMet: ['vulnerable_data_subjects'] })).status).toBe(200);
    expect(await read(two)).toMatchObject({ screeningRequired: false, required: false });
  });

  test('the assessor may override the screening, with a reason, and the screening stays shown', async () => {
    const id = await create({ name: unique('Overridden'), criteriaMet: ['innovative_technology'], requiredOverride: 'required', overrideReason: 'New biometric scanner' });
    expect(await read(id)).toMatchObject({ screeningRequired: false, required: true, requiredOverride: 'required', overrideReason: 'New biometric scanner' });
    const down = await create({ name: unique('Not needed'), criteriaMet: ['large_scale', 'evaluation_or_scoring'], requiredOverride: 'not_required', overrideReason: 'Covered by the group DPIA' });
    expect(await read(down)).toMatchObject({ screeningRequired: true, required: false });
  });

  test('an override without a reason, a reason without an override and a criterion outside the nine are refused naming the field', async () => {
    const name = unique('Refused');
    const noReason = await send('POST', PATH, { name, processingActivityId: activity, requiredOverride: 'required' });
    expect(noReason.status).toBe(400);
    expect(((await noReason.json()) as { problems: unknown[] }).problems).toEqual([{ field: 'overrideReason', message: 'a reason is required when the decision departs from the screening' }]);
    const noOverride = await send('POST', PATH, { name, processingActivityId: activity, overrideReason: 'Because' });
    expect(((await noOverride.json()) as { error: string }).error).toContain('overrideReason');
    const unknown = await send('POST', PATH, { name, processingActivityId: activity, criteriaMet: ['cross_border'] });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: string }).error).toContain('criteriaMet');
    expect(await countNamed(name)).toBe(0);
  });
});

describe('own and all levels', () => {
  test('a user at level own reads and changes only the DPIAs they or their groups own', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'own', 'dataPrivacy:create': 'own', 'dataPrivacy:update': 'own', 'dataPrivacy:delete': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), PRIVACY);
    const ownActivity = await createActivity(unique('Own activity'), own);
    const mine = await create({ name: unique('Mine'), processingActivityId: ownActivity }, own);
    const theirs = await create({ name: unique('Theirs') });
    const page = await json<{ rows: { id: string }[] }>(await send('GET', `${PATH}?pageSize=200`, undefined, own));
    expect(page.rows.map((r) => r.id)).toEqual([mine]);
    const unreadable = refusedWith(404, 'DPIA <id> not found', 'no dataPrivacy:read on DPIA <id>');
    expect(await refusalOf(env, () => send('GET', `${PATH}/${theirs}`, undefined, own))).toEqual(unreadable);
    expect(await refusalOf(env, () => send('PATCH', `${PATH}/${theirs}`, { measures: 'x' }, own))).toEqual(unreadable);
    expect(await refusalOf(env, () => send('DELETE', `${PATH}/${theirs}`, undefined, own))).toEqual(unreadable);
    // The activity assessed must be one they may read: another's answers as a missing one would.
    const name = unique('Of an unreadable activity');
    expect(await refusalOf(env, () => send('POST', PATH, { name, processingActivityId: activity }, own)))
      .toEqual(refusedWith(404, 'processingActivityId: Processing activity <id> not found', 'link to Processing activity <id>: not readable (dataPrivacy:read)'));
    expect(await countNamed(name)).toBe(0);
  });

  test('a token needs the dataPrivacy scope of each right', async () => {
    const readOnly = await makeToken(env, admin, ['dataPrivacy:read']);
    expect(await refusalOf(env, () => send('POST', PATH, { name: unique('No scope'), processingActivityId: activity }, readOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:create missing'));
    const other = await makeToken(env, admin, ['risks:read']);
    expect(await refusalOf(env, () => send('GET', PATH, undefined, other)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
  });
});

describe('sign-off', () => {
  test('needs the review right; it records who and when, and the DPIA is read-only until reopened with the review right', async () => {
    const id = await create({ name: unique('To sign'), criteriaMet: ['large_scale', 'systematic_monitoring'] });
    const writer = await makeToken(env, admin, PRIVACY);
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/sign-off`, undefined, writer)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:review missing'));
    expect((await read(id)).status).toBe('draft');

    const before = Date.now();
    const signed = await send('POST', `${PATH}/${id}/sign-off`);
    expect(signed.status, await signed.clone().text()).toBe(200);
    const view = await json<Dpia & { signedOffById: string; signedOffAt: string }>(signed);
    expect(view).toMatchObject({ status: 'signed_off', signedOffById: admin.userId });
    expect(Date.parse(view.signedOffAt)).toBeGreaterThanOrEqual(before - 1000);

    const frozen = await send('PATCH', `${PATH}/${id}`, { measures: 'Changed after sign-off' });
    expect(frozen.status).toBe(409);
    expect(((await frozen.json()) as { error: string }).error).toBe(`DPIA ${id} is signed off and read-only: reopen it (dataPrivacy:review) to change it`);
    expect((await send('DELETE', `${PATH}/${id}`)).status).toBe(409);
    expect((await send('POST', `${PATH}/${id}/sign-off`)).status).toBe(409);
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/reopen`, undefined, writer)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:review missing'));

    const reopened = await send('POST', `${PATH}/${id}/reopen`);
    expect(reopened.status).toBe(200);
    expect(await json(reopened)).toMatchObject({ status: 'draft', signedOffById: null, signedOffAt: null });
    expect((await send('PATCH', `${PATH}/${id}`, { measures: 'Changed after reopening' })).status).toBe(200);
    const history = await json<{ changes: Record<string, { before: unknown; after: unknown }> }[]>(await send('GET', `${PATH}/${id}/history`));
    expect(history.some((h) => h.changes.status?.after === 'signed_off' && h.changes.signedOffById?.after === admin.userId)).toBe(true);
    expect(history.some((h) => h.changes.status?.after === 'draft')).toBe(true);
  });

  test('at level own, the review right signs off only DPIAs the reviewer or their groups own', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:review': 'own', 'apiTokens:create': 'own' });
    const reviewer = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:review']);
    const id = await create({ name: unique('Not theirs') });
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/sign-off`, undefined, reviewer)))
      .toEqual(refusedWith(403, 'forbidden', `dataPrivacy:review is at level own and DPIA ${id} is not owned`));
  });
});

describe('create a risk from this DPIA', () => {
  test('writes a risk through the risks service, linked to the DPIA, with the DPIA\'s name and risks to data subjects', async () => {
    const name = unique('Risky profiling');
    const id = await create({ name, risksToDataSubjects: 'Inferences about health from purchases' });
    const riskId = await created(await send('POST', `${PATH}/${id}/risks`, { classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 4 }));
    expect((await read(id)).riskIds).toEqual([riskId]);
    const risk = await json<Record<string, unknown>>(await send('GET', `/api/v1/risks/${riskId}`));
    expect(risk).toMatchObject({ title: `DPIA: ${name}`, description: 'Inferences about health from purchases', owner: { email: ADMIN_EMAIL } });
    const riskAudit = await env.ctx.db.select({ action: auditLog.action }).from(auditLog).where(and(eq(auditLog.recordType, 'risk'), eq(auditLog.recordId, riskId)));
    expect(riskAudit.map((e) => e.action)).toEqual(['create']);
    // The risk is not deleted from under the DPIA.
    const refused = await send('DELETE', `/api/v1/risks/${riskId}`, undefined, await makeToken(env, admin, ['risks:read', 'risks:delete']));
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain('1 DPIA');
  });

  test('without risks:create it is refused 403, audited, and nothing is written', async () => {
    const noRisks = await makeToken(env, admin, [...PRIVACY, 'risks:read']);
    const name = unique('No risk scope');
    const id = await create({ name });
    const title = unique('Should not exist');
    const body = { title, classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 4 };
    expect(await refusalOf(env, () => send('POST', `${PATH}/${id}/risks`, body, noRisks)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope risks:create missing'));
    const user = await makeUser(env, { ...Object.fromEntries(PRIVACY.map((p) => [p, 'all'])), 'apiTokens:create': 'own' });
    // Signed in without the right: the screens' actor has no token scopes, so the user's right decides.
    const noRight = await user.actor();
    const outcome = await env.ctx.db.transaction((tx) => createRiskFromDpia(tx, noRight, id, body)).then(() => 'written', (e: AppError) => e.deniedReason);
    expect(outcome).toBe('user right risks:create missing');
    expect(await env.ctx.db.select({ id: risks.id }).from(risks).where(eq(risks.title, title))).toEqual([]);
    expect((await read(id)).riskIds).toEqual([]);
    const updates = await env.ctx.db.select({ action: auditLog.action }).from(auditLog).where(and(eq(auditLog.recordType, 'dpia'), eq(auditLog.recordId, id)));
    expect(updates.map((e) => e.action)).toEqual(['create']);
  });
});

describe.skipIf(!chromiumAvailable)('DPIAs in the browser', () => {
  let browser: Browser;
  let server: ReturnType<ReturnType<typeof createApp>['listen']>;
  let base: string;
  beforeAll(async () => {
    server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
    base = `http://127.0.0.1:${server.server?.port}`;
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });
  const expectAccessible = async (page: Page, what: string) => expect(await axeViolations(page), what).toEqual([]);

  test('a DPIA started from its processing activity\'s page is recorded, shows its decision and is signed off', async () => {
    await classificationId(env, 'Operational');
    const activityName = unique('Fraud scoring');
    const activityId = await createActivity(activityName);
    const name = unique('Fraud scoring DPIA');
    const page: Page = await openPage(browser, base, { email: ADMIN_EMAIL, password: ADMIN_PASSWORD });
    await page.goto(`${base}/data-privacy/processing-activities/${activityId}`);
    const section = page.getByRole('region', { name: 'DPIAs' });
    await section.getByText('No DPIAs of this processing activity.').waitFor();
    await expectAccessible(page, 'the processing activity with no DPIA');
    await section.getByRole('link', { name: 'New DPIA' }).click();

    expect(await page.getByLabel('Processing activity', { exact: true }).inputValue()).toBe(activityId);
    await page.getByLabel('Name', { exact: true }).fill(name);
    const screening = page.getByRole('group', { name: 'Screening: EDPB criteria met' });
    await screening.getByLabel('Evaluation or scoring').check();
    await screening.getByLabel('Automated decision with legal effect').check();
    await page.getByLabel('Risks to data subjects', { exact: true }).fill('Customers wrongly refused');
    await page.getByLabel('Decision override', { exact: true }).selectOption('not_required');
    await expectAccessible(page, 'the DPIA form');
    await page.getByRole('button', { name: 'Create DPIA' }).click();

    // An override needs its reason: refused inside the app with what was typed kept.
    await page.locator('#f-overrideReason-error', { hasText: 'a reason is required when the decision departs from the screening' }).waitFor();
    expect(await page.getByLabel('Name', { exact: true }).inputValue()).toBe(name);
    expect(await screening.getByLabel('Evaluation or scoring').isChecked()).toBe(true);
    await page.getByLabel('Decision override', { exact: true }).selectOption('');
    await page.getByRole('button', { name: 'Create DPIA' }).click();
    await page.getByText('DPIA recorded.').waitFor();
    expect(await page.locator('h1').textContent()).toBe(name);
    const main = (await page.locator('main').textContent()) ?? '';
    expect(main).toContain(activityName);
    expect(main).toContain('2 of 9 screening criteria met: a DPIA is required');
    expect(main).toContain('Draft: not signed off yet.');
    await expectAccessible(page, 'the DPIA page');

    // Create a risk from this DPIA: written in the risk register and listed on the DPIA.
    const risksSection = page.getByRole('region', { name: 'Risks from this DPIA' });
    await risksSection.getByLabel('Classification').selectOption({ label: 'Operational' });
    await risksSection.getByLabel('Inherent likelihood').selectOption({ index: 2 });
    await risksSection.getByLabel('Inherent impact').selectOption({ index: 3 });
    await risksSection.getByRole('button', { name: 'Create risk' }).click();
    await page.getByRole('region', { name: 'Risks from this DPIA' }).getByRole('link', { name: `DPIA: ${name}` }).waitFor();

    await page.getByRole('button', { name: 'Sign off' }).click();
    await page.getByText(/Signed off by .+ on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC/).waitFor();
    expect(await page.getByRole('link', { name: 'Edit' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reopen' }).count()).toBe(1);
    await expectAccessible(page, 'the signed-off DPIA');
    await screenshots(page, 'dpia-signed-off');

    await page.goto(`${base}/data-privacy/processing-activities/${activityId}`);
    await page.getByRole('region', { name: 'DPIAs' }).getByRole('link', { name }).waitFor();
    const row = page.getByRole('region', { name: 'DPIAs' }).getByRole('row').filter({ hasText: name });
    expect(await row.getByRole('cell').allTextContents()).toEqual([name, 'Signed off', 'Required']);
    await page.context().close();
  }, 120_000);
});
