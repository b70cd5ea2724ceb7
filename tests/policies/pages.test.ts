import { beforeAll, describe, expect, test } from 'bun:test';
import { outsideApprovalsAllowed } from '../../src/modules/policies/settings-service';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/policies\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

async function newPolicy(fields: Record<string, string> = {}): Promise<string> {
  const created = await admin.post('/policies', { title: unique('Clean desk'), ...fields });
  expect(created.status, await created.clone().text()).toBe(303);
  return idFrom(created.headers.get('location'));
}

describe('policy screens', () => {
  test('a policy created with a blank frequency shows 12 months and is a draft', async () => {
    const id = await newPolicy({ reviewFrequencyMonths: '' });
    const page = await (await admin.get(`/policies/${id}`)).text();
    expect(page).toContain('Reviewed every 12 months');
    expect(page).toContain('Draft: not published yet.');
  });

  test('a frequency of 121 is refused inline and what was typed is kept', async () => {
    const res = await admin.post('/policies', { title: 'Kept title', reviewFrequencyMonths: '121' });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain('Kept title');
    expect(html).toMatch(/id="f-reviewFrequencyMonths-error"[^>]*>[^<]*120/);
  });

  test('content is rendered as Markdown on the detail page with injected markup neutralised', async () => {
    const id = await newPolicy();
    const content = '# Scope\n\nAll **staff**.\n\n<script>alert("x")</script>\n\n<img src=x onerror=alert(1)>\n\n[bad](javascript:alert(1)) [good](https://example.com)';
    const saved = await admin.post(`/policies/${id}/content`, { content });
    expect(saved.status, await saved.clone().text()).toBe(303);
    const page = await (await admin.get(`/policies/${id}`)).text();
    expect(page).toContain('<h1>Scope</h1>');
    expect(page).toContain('All <strong>staff</strong>.');
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page).not.toContain('<script>alert');
    expect(page).not.toMatch(/<img[^>]*onerror/);
    expect(page).not.toContain('href="javascript:');
    expect(page).toContain('<a href="https://example.com/" rel="noopener noreferrer nofollow">good</a>');
  });

  test('publishing from the page creates a version that keeps its text after the draft changes', async () => {
    const id = await newPolicy();
    await admin.post(`/policies/${id}/content`, { content: 'First text' });
    expect((await admin.post(`/policies/${id}/publish`, {})).status).toBe(303);
    await admin.post(`/policies/${id}/content`, { content: 'Second text' });
    const page = await (await admin.get(`/policies/${id}`)).text();
    expect(page).toContain('Published: version 1. The draft below has changes not yet published.');
    expect(page).toContain('Publish as version 2');
    const version = await (await admin.get(`/policies/${id}/versions/1`)).text();
    expect(version).toContain('<p>First text</p>');
    expect(version).not.toContain('Second text');
  });

  test('a review recorded on the page sets the next review due', async () => {
    const id = await newPolicy({ reviewFrequencyMonths: '12' });
    const recorded = await admin.post(`/policies/${id}/reviews`, { reviewedOn: '2026-03-01', outcome: 'no_changes', notes: 'fine' });
    expect(recorded.status, await recorded.clone().text()).toBe(303);
    expect(await (await admin.get(`/policies/${id}`)).text()).toContain('Next review due: 2027-03-01');
    const refused = await admin.post(`/policies/${id}/reviews`, { reviewedOn: '2026-02-30', outcome: 'no_changes' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toMatch(/id="f-reviewedOn-error"/);
  });

  test('Settings › Policy settings turns outside approvals on and off; the approval form follows it', async () => {
    const id = await newPolicy();
    await admin.post(`/policies/${id}/content`, { content: 'Approved text' });
    await admin.post(`/policies/${id}/publish`, {});

    expect((await admin.post('/settings/policies', {})).status).toBe(303);
    expect(await outsideApprovalsAllowed(env.ctx.db)).toBe(false);
    expect(await (await admin.get(`/policies/${id}`)).text()).toContain('Recording approvals given outside the app is turned off');
    const refused = await admin.post(`/policies/${id}/approvals`, { approverName: 'Board', approvedOn: '2026-01-10', version: '1' });
    expect(refused.status).toBe(409);

    expect((await admin.post('/settings/policies', { allowOutsideApprovals: 'on' })).status).toBe(303);
    expect(await (await admin.get('/settings/policies')).text()).toMatch(/name="allowOutsideApprovals" value="on" checked/);
    const recorded = await admin.post(`/policies/${id}/approvals`, { approverName: 'Board of directors', approvedOn: '2026-01-10', version: '1' });
    expect(recorded.status, await recorded.clone().text()).toBe(303);
    expect(await (await admin.get(`/policies/${id}`)).text()).toContain('Board of directors');
    await admin.post('/settings/policies', {});
  });

  test('someone without settings rights cannot open Policy settings', async () => {
    const user = await makeUser(env, { 'policies:read': 'all' });
    const browser = await signedInBrowser(env, user.email, user.password);
    expect(await refusalOf(env, async () => browser.get('/settings/policies'))).toEqual(refusedWith(403, undefined, 'user right settings:read missing'));
  });
});
