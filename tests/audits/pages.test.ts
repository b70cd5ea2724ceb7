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

describe("an audit plan's findings as a list", () => {
  test('the plan page counts its findings and links to them filtered, sorted and exported in Audit findings', async () => {
    const planId = await createPlan();
    const other = await createPlan();
    const titles = [unique('B weak passwords'), unique('A missing logs')];
    for (const title of titles) expect((await admin.post('/audits/findings', { auditPlanId: planId, title, deadline: '2026-09-30' })).status).toBe(303);
    const elsewhere = unique('Other plan finding');
    await admin.post('/audits/findings', { auditPlanId: other, title: elsewhere });

    const plan = await (await admin.get(`/audits/${planId}`)).text();
    expect(plan).toContain('2 findings.');
    expect(plan).toContain(`href="/audits/findings?auditPlanId=${planId}"`);
    expect(plan).toContain(`href="/audits/findings/export.csv?auditPlanId=${planId}"`);

    // The register filtered to the plan: its filter bar offers the plan by title, headers sort, the filter rides along.
    const list = await (await admin.get(`/audits/findings?auditPlanId=${planId}&sort=-title`)).text();
    expect(list).toContain('Audit plan');
    expect(list).toMatch(new RegExp(`<option value="${planId}" selected>`));
    expect(list.indexOf(titles[0])).toBeLessThan(list.indexOf(titles[1]));
    expect(list).not.toContain(elsewhere);
    expect(list).toContain(`href="/audits/findings/export.csv?auditPlanId=${planId}&sort=-title"`);

    const csv = await (await admin.get(`/audits/findings/export.csv?auditPlanId=${planId}&sort=title`)).text();
    const lines = csv.replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toStartWith('Finding,Status,Deadline');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([titles[1], titles[0]]);
    expect(lines[1]).toContain(',Open,2026-09-30');
  });
});
