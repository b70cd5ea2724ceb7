import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { unique } from '../helpers/factories';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const planIdFrom = (location: string | null) => /\/audits\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';
const findingIdFrom = (location: string | null) => /\/audits\/findings\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

async function createPlan(form: Record<string, string> = {}): Promise<string> {
  const res = await admin.post('/audits', { title: unique('Supplier audit'), ...form });
  expect(res.status, await res.clone().text()).toBe(303);
  return planIdFrom(res.headers.get('location'));
}

describe('audit screens', () => {
  test('a finding added on the plan page is created open and listed with the plan', async () => {
    const planId = await createPlan({ periodStart: '2026-02-01', periodEnd: '2026-02-28' });
    const title = unique('No MFA on admin accounts');
    const added = await admin.post('/audits/findings', { auditPlanId: planId, title, deadline: '2026-06-30' });
    expect(added.status, await added.clone().text()).toBe(303);
    const findingId = findingIdFrom(added.headers.get('location'));

    const plan = await (await admin.get(`/audits/${planId}`)).text();
    expect(plan).toContain(`/audits/findings/${findingId}`);
    expect(plan).toContain(title);
    expect(plan).toContain('2026-06-30');

    const moved = await admin.post(`/audits/findings/${findingId}`, { auditPlanId: planId, title, status: 'in_remediation' });
    expect(moved.status, await moved.clone().text()).toBe(303);
    expect(await (await admin.get(`/audits/findings/${findingId}`)).text()).toMatch(/<span>Open<\/span> → <span>In remediation<\/span>/);
  });

  test('a finding created in another status is refused inline naming status', async () => {
    const planId = await createPlan();
    const res = await admin.post('/audits/findings', { auditPlanId: planId, title: 'Already closed', status: 'closed' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Already closed');
    expect(html).toMatch(/id="f-status-error"[^>]*>a finding is created open/);
  });

  test('the period may not end before it starts on the plan form', async () => {
    const res = await admin.post('/audits', { title: 'Backwards plan', periodStart: '2026-05-01', periodEnd: '2026-04-01' });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/id="f-periodEnd-error"[^>]*>must not be before periodStart/);
  });

  test('a plan with findings cannot be deleted from its page', async () => {
    const planId = await createPlan();
    await admin.post('/audits/findings', { auditPlanId: planId, title: unique('Finding') });
    const refused = await admin.post(`/audits/${planId}/delete`, {});
    expect(refused.status).toBe(409);
    expect(await refused.text()).toContain('1 audit finding');
  });
});
