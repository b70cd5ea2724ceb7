import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { auditLog, history, privacyTransfers, transferImpactAssessments } from '../../db/schema';
import type { Actor, Permission } from '../../src/platform/permissions/permissions';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { apiSender, dataOf } from '../helpers/api';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { previewDigest } from '../../src/platform/notifications/reminders';

const PRIVACY: Permission[] = ['dataPrivacy:read', 'dataPrivacy:create', 'dataPrivacy:update', 'dataPrivacy:delete'];
const TRANSFERS = '/api/v1/data-privacy/transfers';
const tiasOf = (thirdPartyId: string) => `/api/v1/third-parties/${thirdPartyId}/transfer-impact-assessments`;

let env: TestEnv;
let admin: Actor;
let token: string;
let activityId: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  token = await makeToken(env, admin, [...PRIVACY, 'thirdParties:read', 'thirdParties:create']);
  activityId = await created(await send('POST', '/api/v1/data-privacy/processing-activities', { name: unique('Payroll'), legalBasis: 'legal_obligation' }));
});

const send = apiSender(() => env, () => token);
const json = dataOf;
async function created(res: Response) {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await json<{ id: string }>(res)).id;
}
const vendor = (name = unique('Payroll bureau'), secret = token) => send('POST', '/api/v1/third-parties', { name }, secret).then(created);
const tiaBody = (extra: Record<string, unknown> = {}) => ({
  name: unique('India transfers'), lawsAssessed: 'IT Act 2000 s. 69 interception; DPDP Act 2023', riskFound: 'medium',
  supplementaryMeasures: 'Encryption with keys held in the EU', conclusion: 'proceed_with_measures', assessedOn: '2026-03-01', nextReviewOn: '2027-03-01', ...extra,
});
const transferBody = (recipientThirdPartyId: string, extra: Record<string, unknown> = {}) => ({
  name: unique('Payroll data to the bureau'), processingActivityId: activityId, destinationCountry: 'IN', recipientThirdPartyId, safeguard: 'sccs', sccModule: 2, ...extra,
});
const transfersNamed = async (name: string) => (await env.ctx.db.select({ id: privacyTransfers.id }).from(privacyTransfers).where(eq(privacyTransfers.name, name))).length;
const problemsOf = async (res: Response) => ((await res.json()) as { problems: { field: string; message: string }[] }).problems;

describe('transfer impact assessments, kept on a third party', () => {
  test('recorded under the third party with every field, listed there, audited with History', async () => {
    const bureau = await vendor();
    const id = await created(await send('POST', tiasOf(bureau), tiaBody({ name: 'India transfers 2026' })));
    const tia = await json<Record<string, unknown>>(await send('GET', `${tiasOf(bureau)}/${id}`));
    expect(tia).toMatchObject({
      name: 'India transfers 2026', thirdPartyId: bureau, riskFound: 'medium', conclusion: 'proceed_with_measures',
      lawsAssessed: 'IT Act 2000 s. 69 interception; DPDP Act 2023', supplementaryMeasures: 'Encryption with keys held in the EU',
      assessedOn: '2026-03-01', nextReviewOn: '2027-03-01',
    });
    const listed = await json<{ rows: { id: string }[]; total: number }>(await send('GET', tiasOf(bureau)));
    expect(listed.rows.map((r) => r.id)).toEqual([id]);
    expect(await json(await send('GET', tiasOf(await vendor())))).toMatchObject({ rows: [] });

    const changed = await send('PATCH', `${tiasOf(bureau)}/${id}`, { riskFound: 'high', conclusion: 'do_not_proceed' });
    expect(changed.status, await changed.clone().text()).toBe(200);
    const entries = await env.ctx.db.select({ action: auditLog.action }).from(auditLog)
      .where(and(eq(auditLog.module, 'dataPrivacy'), eq(auditLog.recordType, 'transferImpactAssessment'), eq(auditLog.recordId, id)));
    expect(entries.map((e) => e.action).sort()).toEqual(['create', 'update']);
    const kept = await env.ctx.db.select({ id: history.id }).from(history).where(eq(history.recordId, id));
    expect(kept.length).toBe(2);
  });

  test('the next review comes to its owner in the daily digest', async () => {
    const user = await makeUser(env, { 'dataPrivacy:read': 'all', 'dataPrivacy:create': 'all', 'thirdParties:read': 'all', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['dataPrivacy:read', 'dataPrivacy:create', 'thirdParties:read']);
    const inAWeek = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
    const body = tiaBody({ assessedOn: '2026-01-01', nextReviewOn: inAWeek });
    await created(await send('POST', tiasOf(await vendor()), body, own));
    const digest = await previewDigest(env.ctx, user.id);
    expect(digest?.body).toContain('Transfer impact assessment reviews due');
    expect(digest?.body).toContain(body.name);
  });

  test('a TIA read under another third party is the same 404 as a missing one', async () => {
    const bureau = await vendor();
    const id = await created(await send('POST', tiasOf(bureau), tiaBody()));
    const other = await send('GET', `${tiasOf(await vendor())}/${id}`);
    expect(other.status).toBe(404);
  });

  test('bad input: no laws assessed, a next review not after the assessment, measures missing for "proceed with measures"', async () => {
    const bureau = await vendor();
    const res = await send('POST', tiasOf(bureau), tiaBody({ lawsAssessed: ' ', nextReviewOn: '2026-02-01', supplementaryMeasures: '' }));
    expect(res.status, await res.clone().text()).toBe(400);
    expect((await problemsOf(res)).map((p) => p.field).sort()).toEqual(['lawsAssessed', 'nextReviewOn', 'supplementaryMeasures']);
    const noRisk = await send('POST', tiasOf(bureau), { ...tiaBody(), riskFound: 'unknown' });
    expect(noRisk.status).toBe(400);
    expect(((await noRisk.json()) as { error: string }).error).toContain('riskFound');
  });

  test('on a third party the caller cannot read: the same 404 as a missing one, audited, nothing written', async () => {
    const user = await makeUser(env, { ...Object.fromEntries(PRIVACY.map((p) => [p, 'all'])), 'thirdParties:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), [...PRIVACY, 'thirdParties:read']);
    const hidden = await vendor();
    const body = tiaBody();
    expect(await refusalOf(env, () => send('POST', tiasOf(hidden), body, scoped)))
      .toEqual(refusedWith(404, 'Third party <id> not found', 'link to Third party <id>: not readable (thirdParties:read)'));
    expect(await refusalOf(env, () => send('POST', tiasOf(crypto.randomUUID()), body, scoped)))
      .toEqual(refusedWith(404, 'Third party <id> not found', 'link to Third party <id>: no such record'));
    const named = await env.ctx.db.select({ id: transferImpactAssessments.id }).from(transferImpactAssessments).where(eq(transferImpactAssessments.name, body.name));
    expect(named).toEqual([]);
  });

  test('the routes need thirdParties:read besides the dataPrivacy scope (Bearer rule 4)', async () => {
    const noVendors = await makeToken(env, admin, PRIVACY);
    const bureau = await vendor();
    expect(await refusalOf(env, () => send('GET', tiasOf(bureau), undefined, noVendors)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope thirdParties:read missing'));
    const readOnly = await makeToken(env, admin, ['thirdParties:read']);
    expect(await refusalOf(env, () => send('GET', tiasOf(bureau), undefined, readOnly)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope dataPrivacy:read missing'));
  });
});

describe('transfers outside the EEA', () => {
  test('a transfer names its destination (shown by name), recipient, safeguard and the TIA relied on', async () => {
    const bureau = await vendor();
    const tiaId = await created(await send('POST', tiasOf(bureau), tiaBody()));
    const id = await created(await send('POST', TRANSFERS, transferBody(bureau, { transferImpactAssessmentId: tiaId })));
    expect(await json(await send('GET', `${TRANSFERS}/${id}`))).toMatchObject({
      processingActivityId: activityId, destinationCountry: 'IN', destinationCountryName: 'India', recipientThirdPartyId: bureau,
      safeguard: 'sccs', sccModule: 2, derogation: null, transferImpactAssessmentId: tiaId,
    });
    const listed = await json<{ rows: { id: string }[] }>(await send('GET', `${TRANSFERS}?processingActivityId=${activityId}`));
    expect(listed.rows.map((r) => r.id)).toContain(id);
    // A TIA a transfer relies on, and the processing activity it is part of, cannot be deleted.
    const del = await send('DELETE', `${tiasOf(bureau)}/${tiaId}`);
    expect(del.status, await del.clone().text()).toBe(409);
    expect(((await del.json()) as { error: string }).error).toContain('still referenced by 1 transfer');
    const activity = await send('DELETE', `/api/v1/data-privacy/processing-activities/${activityId}`);
    expect(activity.status, await activity.clone().text()).toBe(409);
    expect(((await activity.json()) as { error: string }).error).toContain('still referenced by 1 transfer');
  });

  test('each safeguard: an adequacy decision, BCRs, a derogation with its Art. 49 ground', async () => {
    const bureau = await vendor();
    await created(await send('POST', TRANSFERS, transferBody(bureau, { destinationCountry: 'JP', safeguard: 'adequacy_decision', sccModule: null })));
    await created(await send('POST', TRANSFERS, transferBody(bureau, { destinationCountry: 'SG', safeguard: 'bcrs', sccModule: null })));
    await created(await send('POST', TRANSFERS, transferBody(bureau, { destinationCountry: 'BR', safeguard: 'derogation', sccModule: null, derogation: 'explicit_consent' })));
  });

  test('a transfer without a safeguard is refused naming the field, nothing written', async () => {
    const bureau = await vendor();
    const body: Record<string, unknown> = transferBody(bureau);
    delete body.safeguard;
    delete body.sccModule;
    const res = await send('POST', TRANSFERS, body);
    expect(res.status, await res.clone().text()).toBe(400);
    expect(((await res.json()) as { error: string }).error).toContain('safeguard');
    const blank = await send('POST', TRANSFERS, { ...body, safeguard: null });
    expect(blank.status).toBe(400);
    expect(((await blank.json()) as { error: string }).error).toContain('safeguard');
    expect(await transfersNamed(body.name as string)).toBe(0);
  });

  test('bad input: an EEA destination, a code that names no country, adequacy where there is none, SCCs without a module, a derogation without its ground', async () => {
    const bureau = await vendor();
    const cases: [Record<string, unknown>, string, string][] = [
      [{ destinationCountry: 'FR' }, 'destinationCountry', 'France is in the EEA'],
      [{ destinationCountry: 'XX' }, 'destinationCountry', 'not an ISO 3166-1 alpha-2 country code'],
      [{ destinationCountry: 'IN', safeguard: 'adequacy_decision', sccModule: null }, 'safeguard', 'India has no adequacy decision'],
      [{ sccModule: null }, 'sccModule', 'required with standard contractual clauses'],
      [{ safeguard: 'derogation', sccModule: null }, 'derogation', 'the Art. 49 ground is required'],
      [{ safeguard: 'bcrs', sccModule: 2 }, 'sccModule', 'must be blank'],
    ];
    for (const [extra, field, message] of cases) {
      const body = transferBody(bureau, extra);
      const res = await send('POST', TRANSFERS, body);
      expect(res.status, `${JSON.stringify(extra)}: ${await res.clone().text()}`).toBe(400);
      expect(await problemsOf(res)).toEqual([{ field, message: expect.stringContaining(message) }]);
      expect(await transfersNamed(body.name)).toBe(0);
    }
  });

  test('a TIA kept on another third party than the recipient is refused naming the field', async () => {
    const bureau = await vendor();
    const otherTia = await created(await send('POST', tiasOf(await vendor()), tiaBody()));
    const res = await send('POST', TRANSFERS, transferBody(bureau, { transferImpactAssessmentId: otherTia }));
    expect(res.status).toBe(400);
    expect(await problemsOf(res)).toEqual([{ field: 'transferImpactAssessmentId', message: expect.stringContaining('recipient') }]);
  });

  test('a recipient the caller cannot read: the same 404 as a missing one, audited, nothing written; without thirdParties:read 403', async () => {
    const user = await makeUser(env, { ...Object.fromEntries(PRIVACY.map((p) => [p, 'all'])), 'thirdParties:read': 'own', 'apiTokens:create': 'own' });
    const scoped = await makeToken(env, await user.actor(), [...PRIVACY, 'thirdParties:read']);
    const hidden = await vendor();
    const body = transferBody(hidden);
    expect(await refusalOf(env, () => send('POST', TRANSFERS, body, scoped)))
      .toEqual(refusedWith(404, 'recipientThirdPartyId: Third party <id> not found', 'link to Third party <id>: not readable (thirdParties:read)'));
    expect(await refusalOf(env, () => send('POST', TRANSFERS, transferBody(crypto.randomUUID()), scoped)))
      .toEqual(refusedWith(404, 'recipientThirdPartyId: Third party <id> not found', 'link to Third party <id>: no such record'));
    const noVendors = await makeToken(env, admin, PRIVACY);
    expect(await refusalOf(env, () => send('POST', TRANSFERS, body, noVendors)))
      .toEqual(refusedWith(403, 'forbidden', 'token scope thirdParties:read missing'));
    expect(await transfersNamed(body.name)).toBe(0);
  });

  test('own level: a transfer owned by someone else is not listed nor readable', async () => {
    const bureau = await vendor();
    const id = await created(await send('POST', TRANSFERS, transferBody(bureau)));
    const user = await makeUser(env, { 'dataPrivacy:read': 'own', 'apiTokens:create': 'own' });
    const own = await makeToken(env, await user.actor(), ['dataPrivacy:read']);
    expect((await send('GET', `${TRANSFERS}/${id}`, undefined, own)).status).toBe(404);
    const listed = await json<{ rows: { id: string }[] }>(await send('GET', TRANSFERS, undefined, own));
    expect(listed.rows.map((r) => r.id)).not.toContain(id);
  });
});
