import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems, exceptions } from '../../db/schema';
import { importPackage } from '../../src/modules/compliance/packages-service';
import type { PackageInput } from '../../src/modules/compliance/schema';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let b: Browser;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  token = await makeToken(env, admin, ['controls:create', 'audits:create']);
});

async function makePackage(input: PackageInput, actor: Actor = admin): Promise<{ id: string; analyses: Record<string, string> }> {
  const { id } = await env.ctx.db.transaction((tx) => importPackage(tx, actor, input));
  const rows = await env.ctx.db.select({ code: complianceItems.code, analysisId: complianceAnalyses.id }).from(complianceAnalyses)
    .innerJoin(complianceItems, eq(complianceItems.id, complianceAnalyses.itemId)).where(eq(complianceAnalyses.packageId, id));
  return { id, analyses: Object.fromEntries(rows.map((r) => [r.code, r.analysisId])) };
}

const small = (): PackageInput => ({
  name: unique('Tree framework'),
  items: [
    { code: 'GOV', name: 'Governance & <oversight>', kind: 'heading' },
    { code: 'GOV-1', name: 'Board approves the policy', parentCode: 'GOV' },
    { code: 'GOV-2', name: 'Roles assigned', parentCode: 'GOV' },
    { code: 'NOTE', name: 'Interpretation note', kind: 'additional' },
  ],
});

/** 287 items: 20 headings, each with 12 requirements and a guidance item, plus 7 more requirements at the top. */
const large = (): PackageInput => {
  const items: PackageInput['items'] = [];
  for (let h = 1; h <= 20; h++) {
    items.push({ code: `H${h}`, name: `Family ${h}`, kind: 'heading' });
    for (let r = 1; r <= 12; r++) items.push({ code: `H${h}.${r}`, name: `Requirement ${h}.${r} with a reasonably long name`, parentCode: `H${h}` });
    items.push({ code: `H${h}.G`, name: `Guidance for family ${h}`, parentCode: `H${h}`, kind: 'additional' });
  }
  for (let r = 1; r <= 7; r++) items.push({ code: `T${r}`, name: `Top-level requirement ${r}` });
  return { name: unique('Large tree'), items };
};

const htmxPatch = (path: string, form: Record<string, string>, csrf: string | null = b.csrf) => env.request(path, {
  method: 'PATCH',
  body: new URLSearchParams(form).toString(),
  headers: {
    'content-type': 'application/x-www-form-urlencoded', cookie: b.cookie ?? '', 'hx-request': 'true', ...(csrf ? { 'x-csrf-token': csrf } : {}),
  },
});

describe('package tree screen', () => {
  test('shows every item in file order, headings without a status, requirements with an editable status, and the score', async () => {
    const pkg = await makePackage(small());
    const res = await b.get(`/compliance/packages/${pkg.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html.indexOf('GOV-1')).toBeLessThan(html.indexOf('GOV-2'));
    expect(html).toContain('Governance &amp; &lt;oversight&gt;');
    expect(html).toContain(`hx-patch="/compliance/analyses/${pkg.analyses['GOV-1']}/status"`);
    expect(html).toContain(`hx-patch="/compliance/analyses/${pkg.analyses.NOTE}/status"`);
    expect(html.match(/hx-patch=/g)).toHaveLength(3);
    expect(html).toContain('id="score"');
  });

  test('changing a status in the tree PATCHes the analysis and answers the row alone, with the new status selected', async () => {
    const pkg = await makePackage(small());
    const id = pkg.analyses['GOV-2'];
    const res = await htmxPatch(`/compliance/analyses/${id}/status`, { status: 'partially_compliant' });
    expect(res.status, await res.clone().text()).toBe(200);
    const html = await res.text();
    expect(html).toStartWith('<tr');
    expect(html).not.toContain('<html');
    expect(html).toMatch(/<option value="partially_compliant" selected/);
    const [row] = await env.ctx.db.select().from(complianceAnalyses).where(eq(complianceAnalyses.id, id));
    expect(row).toMatchObject({ status: 'partially_compliant', assessorId: admin.userId });
    expect(await refusalOf(env, async () => htmxPatch(`/compliance/analyses/${id}/status`, { status: 'compliant' }, null))).toEqual(refusedWith(403, undefined, 'CSRF token missing or wrong'));
    expect((await htmxPatch(`/compliance/analyses/${id}/status`, { status: 'nonsense' })).status).toBe(400);
  });

  test('the 287-item tree renders every analysis of the package', async () => {
    // Its speed (target under 100 ms) is measured by `bun run bench compliance`, not asserted here.
    const pkg = await makePackage(large());
    expect(Object.keys(pkg.analyses)).toHaveLength(267);
    const res = await b.get(`/compliance/packages/${pkg.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const id of Object.values(pkg.analyses)) expect(html).toContain(`/compliance/analyses/${id}`);
  });

  test('a viewer at level own does not see a package they own nothing of', async () => {
    const user = await makeUser(env, { 'compliance:read': 'own' });
    const viewer = await signedInBrowser(env, user.email, user.password);
    const pkg = await makePackage(small());
    expect(await refusalOf(env, async () => viewer.get(`/compliance/packages/${pkg.id}`))).toEqual(refusedWith(404, undefined, 'no compliance:read on package <id>'));
    await env.ctx.db.update(complianceAnalyses).set({ ownerId: user.id }).where(eq(complianceAnalyses.id, pkg.analyses['GOV-1']));
    const res = await viewer.get(`/compliance/packages/${pkg.id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    // Readable but not changeable: the status shows as text, not as a select.
    expect(html).not.toContain('hx-patch=');
    expect(html).toContain(`/compliance/analyses/${pkg.analyses['GOV-1']}`);
    expect(html).not.toContain(`/compliance/analyses/${pkg.analyses['GOV-2']}`);
  });
});

describe('analysis screen', () => {
  test('assessing, mapping a control with the picker and removing it', async () => {
    const pkg = await makePackage(small());
    const id = pkg.analyses['GOV-1'];
    const controlName = unique('Board minutes review');
    const controlRes = await env.request('/api/v1/controls', bearer(token, { method: 'POST', body: JSON.stringify({ name: controlName }) }));
    const controlId = ((await controlRes.json()) as { data: { id: string } }).data.id;
    const page = await (await b.get(`/compliance/analyses/${id}`)).text();
    expect(page).toContain(`<option value="${controlId}">${controlName}</option>`);

    expect((await b.post(`/compliance/analyses/${id}`, { status: 'non_compliant', notes: 'Not yet approved' })).status).toBe(303);
    const mapped = await b.post(`/compliance/analyses/${id}/controls`, { id: controlId });
    expect(mapped.status).toBe(303);
    const after = await (await b.get(`/compliance/analyses/${id}?done=linked`)).text();
    expect(after).toContain(`href="/controls/${controlId}"`);
    expect(after).toContain('Not yet approved');
    expect(after).toContain('Mapping added.');
    expect(after).not.toContain(`<option value="${controlId}">`);

    const none = await b.post(`/compliance/analyses/${id}/controls`, { id: '' });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Choose a control to map.');
    expect((await b.post(`/compliance/analyses/${id}/controls/${controlId}/remove`, {})).status).toBe(303);
    expect(await (await b.get(`/compliance/analyses/${id}`)).text()).toContain(`<option value="${controlId}">`);
  });

  test('an exception is requested on the analysis, listed among compliance exceptions and decided there', async () => {
    const pkg = await makePackage(small());
    const id = pkg.analyses['GOV-2'];
    const title = unique('Roles combined');
    const refused = await b.post(`/compliance/analyses/${id}/exceptions`, { exceptionTitle: title, exceptionDescription: '', expiresAt: '2099-01-31' });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('must not be blank');
    const requested = await b.post(`/compliance/analyses/${id}/exceptions`, { exceptionTitle: title, exceptionDescription: 'Team of three', expiresAt: '2099-01-31' });
    expect(requested.status).toBe(303);
    const list = await (await b.get('/compliance/analyses/exceptions?status=requested')).text();
    expect(list).toContain(title);
    const [row] = await env.ctx.db.select().from(exceptions).where(and(eq(exceptions.complianceAnalysisId, id), eq(exceptions.title, title)));
    expect(row.status).toBe('requested');
    // Segregation of duties: the requester does not decide their own exception, unless an administrator overrides with a note.
    const own = await b.post(`/compliance/analyses/exceptions/${row.id}/decision`, { decision: 'approved', note: 'accepted' });
    expect(own.status).toBe(403);
    expect(await own.text()).toContain('segregation of duties');
    expect((await b.post(`/compliance/analyses/exceptions/${row.id}/decision`, { decision: 'approved', note: 'accepted', override: 'on' })).status).toBe(303);
    const [decided] = await env.ctx.db.select().from(exceptions).where(eq(exceptions.id, row.id));
    expect(decided).toMatchObject({ status: 'approved', approverId: admin.userId, decisionNote: 'accepted' });
  });
});

describe('POA&M screen', () => {
  test('lists weaknesses with the filters kept, and downloads them as CSV with formula cells neutralised', async () => {
    const pkg = await makePackage({ ...small(), items: [{ code: '@CMD', name: '=cmd|calc' }] });
    const id = pkg.analyses['@CMD'];
    expect((await htmxPatch(`/compliance/analyses/${id}/status`, { status: 'non_compliant' })).status).toBe(200);
    const page = await b.get('/compliance/poam?source=compliance&severity=high');
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(`href="/compliance/analyses/${id}"`);
    expect(html).toMatch(/<option value="high" selected/);
    expect(html).toContain('href="/compliance/poam.csv?severity=high&source=compliance"');
    const fragment = await (await b.get('/compliance/poam?source=audit', { 'hx-request': 'true', 'hx-target': 'poam-results' })).text();
    expect(fragment).toStartWith('<section id="poam-results"');
    expect(fragment).not.toContain(`/compliance/analyses/${id}`);

    const csv = await b.get('/compliance/poam.csv?source=compliance&severity=high');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toStartWith('text/csv');
    expect(csv.headers.get('content-disposition')).toContain('attachment');
    const bytes = new Uint8Array(await csv.arrayBuffer());
    // The byte order mark the docs promise for every CSV written (Response.text() would hide it).
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const line = new TextDecoder().decode(bytes).split('\r\n').find((l) => l.includes(id));
    expect(line).toStartWith(`compliance,'@CMD =cmd|calc,`);
  });
});
