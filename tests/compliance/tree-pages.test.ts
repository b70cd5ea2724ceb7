import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { complianceAnalyses, complianceItems, exceptions } from '../../db/schema';
import { linkRecords, updateAnalysis } from '../../src/modules/compliance/analyses-service';
import { importPackage } from '../../src/modules/compliance/packages-service';
import { ANALYSIS_STATUSES, MAPPING_KIND_NAMES, type PackageInput } from '../../src/modules/compliance/schema';
import { importShippedPackage } from '../../src/modules/compliance/shipped';
import { parseRequirementText } from '../../src/modules/compliance/views/requirement-text';
import type { Actor } from '../../src/platform/permissions/permissions';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, bearer, makeRisk, makeToken, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Actor;
let b: Browser;
let token: string;
beforeAll(async () => {
  env = await testEnv();
  admin = await adminActor(env);
  b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
  token = await makeToken(env, admin, ['controls:create', 'audits:create', 'policies:create', 'projects:create']);
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
    expect(html).toContain(`hx-patch="/compliance/analyses/${pkg.analyses['GOV-1']}"`);
    expect(html).toContain(`hx-patch="/compliance/analyses/${pkg.analyses.NOTE}"`);
    expect(html.match(/hx-patch=/g)).toHaveLength(3);
    expect(html).toContain('id="score"');
  });

  test('changing a status in the tree PATCHes the analysis and answers the row with the new status selected', async () => {
    const pkg = await makePackage(small());
    const id = pkg.analyses['GOV-2'];
    const res = await htmxPatch(`/compliance/analyses/${id}`, { status: 'partially_compliant' });
    expect(res.status, await res.clone().text()).toBe(200);
    const html = await res.text();
    expect(html).toStartWith('<tr');
    expect(html).not.toContain('<html');
    expect(html).toContain('<option selected>Partially compliant');
    const [row] = await env.ctx.db.select().from(complianceAnalyses).where(eq(complianceAnalyses.id, id));
    expect(row).toMatchObject({ status: 'partially_compliant', assessorId: admin.userId });
    // The select itself sends the label it shows.
    expect((await htmxPatch(`/compliance/analyses/${id}`, { status: 'Not applicable' })).status).toBe(200);
    const [changed] = await env.ctx.db.select().from(complianceAnalyses).where(eq(complianceAnalyses.id, id));
    expect(changed.status).toBe('not_applicable');
    expect(await refusalOf(env, async () => htmxPatch(`/compliance/analyses/${id}`, { status: 'compliant' }, null))).toEqual(refusedWith(403, undefined, 'CSRF token missing or wrong'));
    expect((await htmxPatch(`/compliance/analyses/${id}`, { status: 'nonsense' })).status).toBe(400);
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

describe("a requirement's History", () => {
  test('names its package and item as links, not ids; the item link leads to the requirement, a heading to its place in the tree', async () => {
    const input = small();
    const pkg = await makePackage(input);
    const items = new Map((await env.ctx.db.select({ id: complianceItems.id, code: complianceItems.code }).from(complianceItems)
      .where(eq(complianceItems.packageId, pkg.id))).map((r) => [r.code, r.id]));
    const res = await b.get(`/compliance/analyses/${pkg.analyses['GOV-1']}`);
    const html = await res.text();
    expect(res.status, html).toBe(200);
    const history = html.slice(html.indexOf('id="requirement-history"'));
    expect(history).toContain(`<a href="/compliance/packages/${pkg.id}">${input.name}</a>`);
    expect(history).toContain(`<a href="/compliance/items/${items.get('GOV-1')}">GOV-1 Board approves the policy</a>`);
    expect(history).not.toContain(`>${pkg.id}<`);
    expect(history).not.toContain(`>${items.get('GOV-1')}<`);
    // Fields left blank on the new requirement (its notes) are not listed as "— → —".
    expect(history).not.toContain('<strong>Notes</strong>');

    const toRequirement = await b.get(`/compliance/items/${items.get('GOV-1')}`);
    expect(toRequirement.status).toBe(303);
    expect(toRequirement.headers.get('location')).toBe(`/compliance/analyses/${pkg.analyses['GOV-1']}`);
    const toHeading = await b.get(`/compliance/items/${items.get('GOV')}`);
    expect(toHeading.headers.get('location')).toBe(`/compliance/packages/${pkg.id}#section-${items.get('GOV')}`);
    expect((await b.get(`/compliance/items/${crypto.randomUUID()}`)).status).toBe(404);
  });
});

describe('POA&M screen', () => {
  test('lists weaknesses with the filters kept, and downloads them as CSV with formula cells neutralised', async () => {
    const pkg = await makePackage({ ...small(), items: [{ code: '@CMD', name: '=cmd|calc' }] });
    const id = pkg.analyses['@CMD'];
    expect((await htmxPatch(`/compliance/analyses/${id}`, { status: 'non_compliant' })).status).toBe(200);
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
    expect(line).toStartWith(`Compliance analysis,'@CMD =cmd|calc,`);
    // The weakness and the keys as words (the issue saw non_compliant here).
    expect(line).toContain(',Non-compliant,High,Open,');
  });
});

/** Item ids of a package by code (headings have no analysis, so makePackage does not return them). */
async function itemIds(packageId: string): Promise<Record<string, string>> {
  const rows = await env.ctx.db.select({ code: complianceItems.code, id: complianceItems.id }).from(complianceItems).where(eq(complianceItems.packageId, packageId));
  return Object.fromEntries(rows.map((r) => [r.code, r.id]));
}

/** Two families, one with a sub-heading, and a requirement outside any heading. */
const families = (): PackageInput => ({
  name: unique('Families'),
  items: [
    { code: 'GOV', name: 'Governance', kind: 'heading' },
    { code: 'GOV-1', name: 'Board approves the policy', parentCode: 'GOV', description: 'The board shall:\na. approve the policy;\nb. review it yearly.' },
    { code: 'GOV-S', name: 'Staffing', parentCode: 'GOV', kind: 'heading' },
    { code: 'GOV-S1', name: 'Roles assigned', parentCode: 'GOV-S' },
    { code: 'GOV-S2', name: 'Deputies named', parentCode: 'GOV-S' },
    { code: 'OPS', name: 'Operations', kind: 'heading' },
    { code: 'OPS-1', name: 'Backups taken', parentCode: 'OPS', description: 'Backups are encrypted at rest.' },
    { code: 'OPS-2', name: 'Restores tested', parentCode: 'OPS' },
    { code: 'TOP', name: 'Top-level duty' },
  ],
});

const assess = (analysisId: string, status: (typeof ANALYSIS_STATUSES)[number]) =>
  env.ctx.db.transaction((tx) => updateAnalysis(tx, admin, analysisId, { status }));

/** Record ids of one control, policy, risk and project, created through the API (the risk through its service). */
async function mappableRecords(): Promise<Record<(typeof MAPPING_KIND_NAMES)[number], string>> {
  const create = async (path: string, body: Record<string, unknown>) => {
    const res = await env.request(path, bearer(token, { method: 'POST', body: JSON.stringify(body) }));
    expect(res.status, await res.clone().text()).toBe(201);
    return ((await res.json()) as { data: { id: string } }).data.id;
  };
  return {
    controls: await create('/api/v1/controls', { name: unique('Tree control') }),
    policies: await create('/api/v1/policies', { title: unique('Tree policy') }),
    risks: await makeRisk(env, admin),
    projects: await create('/api/v1/projects', { title: unique('Tree project') }),
  };
}

/** The section of a heading as rendered: its <details> opening tag. */
const sectionTag = (html: string, itemId: string) => /<details[^>]*>/.exec(html.slice(html.indexOf(`id="section-${itemId}"`) - 40))?.[0] ?? '';

describe('package tree: sections, progress, filters and search', () => {
  test('each top-level heading is a collapsible section with its progress; column names say what is counted', async () => {
    const pkg = await makePackage(families());
    const items = await itemIds(pkg.id);
    await assess(pkg.analyses['GOV-1'], 'compliant');
    await assess(pkg.analyses['GOV-S1'], 'non_compliant');
    const html = await (await b.get(`/compliance/packages/${pkg.id}`)).text();
    expect(html.match(/<details class="tree-section"/g)).toHaveLength(2);
    // Collapsed until the person opens them.
    expect(sectionTag(html, items.GOV)).not.toContain(' open');
    expect(html).toContain('<th>Mapped controls</th>');
    expect(html).toContain('Remediation projects');
    expect(html).not.toContain('C / P / R / Pr');
    // GOV holds three requirements, two assessed, one compliant; the sub-heading two, one assessed.
    expect(html).toMatch(new RegExp(`id="progress-${items.GOV}"[^]*?2 of 3 items assessed, 33.3% compliant`));
    expect(html).toMatch(new RegExp(`id="progress-${items['GOV-S']}"[^]*?1 of 2 items assessed, 0% compliant`));
    expect(html).toMatch(new RegExp(`id="progress-${items.OPS}"[^]*?0 of 2 items assessed, 0% compliant`));
    // The requirement outside any heading sits in a plain table, not in a section.
    expect(html).toContain(`/compliance/analyses/${pkg.analyses.TOP}`);
    expect(html.indexOf(`/compliance/analyses/${pkg.analyses.TOP}`)).toBeGreaterThan(html.lastIndexOf('</details>'));
  });

  test('filters by status and by mapping, and searches code, name and text, with the text shown as lists', async () => {
    const pkg = await makePackage(families());
    const records = await mappableRecords();
    await assess(pkg.analyses['GOV-1'], 'compliant');
    await assess(pkg.analyses['OPS-1'], 'compliant');
    await assess(pkg.analyses['OPS-2'], 'non_compliant');
    await env.ctx.db.transaction((tx) => linkRecords(tx, admin, [
      { analysisId: pkg.analyses['OPS-1'], kind: 'controls', id: records.controls },
      { analysisId: pkg.analyses['GOV-S2'], kind: 'projects', id: records.projects },
    ]));
    const listed = async (query: string) => {
      const html = await (await b.get(`/compliance/packages/${pkg.id}?${query}`)).text();
      return { html, codes: Object.entries(pkg.analyses).filter(([, id]) => html.includes(`/compliance/analyses/${id}"`)).map(([code]) => code).sort() };
    };

    const compliant = await listed('status=compliant');
    expect(compliant.codes).toEqual(['GOV-1', 'OPS-1']);
    expect(compliant.html).toContain('2 of 6 items match');
    expect(compliant.html).toMatch(/<option value="compliant" selected/);
    // Sections holding a match open, whatever the person keeps open.
    expect(compliant.html).toMatch(/<details class="tree-section"[^>]* open/);
    expect((await listed('mapped=controls')).codes).toEqual(['OPS-1']);
    expect((await listed('mapped=some')).codes).toEqual(['GOV-S2', 'OPS-1']);
    expect((await listed('mapped=none')).codes).toEqual(['GOV-1', 'GOV-S1', 'OPS-2', 'TOP']);
    expect((await listed('mapped=none&status=non_compliant')).codes).toEqual(['OPS-2']);
    const none = await listed('status=not_applicable');
    expect(none.codes).toEqual([]);
    expect(none.html).toContain('No item matches these filters.');

    // Search: text, name and code; a heading found brings what it holds.
    const byText = await listed('q=encrypted');
    expect(byText.codes).toEqual(['OPS-1']);
    expect(byText.html).toContain('Backups are encrypted at rest.');
    expect((await listed('q=deputies')).codes).toEqual(['GOV-S2']);
    expect((await listed('q=staffing')).codes).toEqual(['GOV-S1', 'GOV-S2']);
    expect((await listed('q=100%25')).codes).toEqual([]);
    // The requirement's text keeps its paragraph and its list, labels included.
    const withText = await listed('q=board');
    expect(withText.html).toContain('<p class="prewrap">The board shall:</p><ul class="req-list"><li><span class="req-label">a.</span> <span>approve the policy;</span></li>');
    // Unknown filter values are ignored rather than refused.
    expect((await listed('status=bogus&mapped=bogus')).codes).toHaveLength(6);
  });

  test('the shipped NIST moderate package, every requirement assessed and mapped, is one page under 150 KB', async () => {
    const { id } = await env.ctx.db.transaction((tx) => importShippedPackage(tx, admin, 'nist-800-53-rev5-moderate'));
    const analyses = await env.ctx.db.select({ id: complianceAnalyses.id }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
    expect(analyses).toHaveLength(287);
    const statuses = ANALYSIS_STATUSES.filter((s) => s !== 'not_assessed');
    await env.ctx.db.transaction(async (tx) => {
      for (const [i, a] of analyses.entries()) await updateAnalysis(tx, admin, a.id, { status: statuses[i % statuses.length] });
    });
    const records = await mappableRecords();
    await env.ctx.db.transaction((tx) => linkRecords(tx, admin, analyses.flatMap((a) => MAPPING_KIND_NAMES.map((kind) => ({ analysisId: a.id, kind, id: records[kind] })))));
    // Everything open: the largest the page gets without asking for the requirements' text.
    expect((await b.post(`/compliance/packages/${id}/headings`, { open: 'all' })).status).toBe(303);

    const res = await b.get(`/compliance/packages/${id}`);
    expect(res.status).toBe(200);
    const html = await res.text();
    const bytes = new TextEncoder().encode(html).length;
    expect(bytes).toBeLessThan(150 * 1024);
    expect(html.match(/<details class="tree-section"[^>]* open/g)).toHaveLength(18);
    for (const a of analyses) expect(html).toContain(`/compliance/analyses/${a.id}"`);
    expect(html.match(/<td>1<\/td>/g)).toHaveLength(287 * 4);
    expect(html).toContain('287 items');
  });
});

describe('package tree: headings kept open per person', () => {
  const toggle = (who: typeof b, packageId: string, itemId: string, open: boolean) => env.request(`/compliance/packages/${packageId}/headings/${itemId}`, {
    method: 'POST',
    body: new URLSearchParams({ open: String(open) }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: who.cookie ?? '', 'hx-request': 'true', 'x-csrf-token': who.csrf ?? '' },
  });

  test('a heading one person opens stays open for them, and only for them', async () => {
    const pkg = await makePackage(families());
    const items = await itemIds(pkg.id);
    const other = await makeUser(env, { 'compliance:read': 'all' });
    const otherBrowser = await signedInBrowser(env, other.email, other.password);

    expect((await toggle(b, pkg.id, items.GOV, true)).status).toBe(204);
    expect((await toggle(b, pkg.id, items.OPS, true)).status).toBe(204);
    expect((await toggle(b, pkg.id, items.OPS, false)).status).toBe(204);
    const mine = await (await b.get(`/compliance/packages/${pkg.id}`)).text();
    expect(sectionTag(mine, items.GOV)).toContain(' open');
    expect(sectionTag(mine, items.OPS)).not.toContain(' open');
    const theirs = await (await otherBrowser.get(`/compliance/packages/${pkg.id}`)).text();
    expect(sectionTag(theirs, items.GOV)).not.toContain(' open');

    // Expand all / Collapse all are plain forms, back to the same filters.
    const expanded = await otherBrowser.post(`/compliance/packages/${pkg.id}/headings`, { open: 'all', status: 'compliant', q: 'a b' });
    expect(expanded.status).toBe(303);
    expect(expanded.headers.get('location')).toBe(`/compliance/packages/${pkg.id}?q=a+b&status=compliant`);
    const all = await (await otherBrowser.get(`/compliance/packages/${pkg.id}`)).text();
    expect(sectionTag(all, items.GOV)).toContain(' open');
    expect(sectionTag(all, items.OPS)).toContain(' open');
    expect(sectionTag(await (await b.get(`/compliance/packages/${pkg.id}`)).text(), items.OPS)).not.toContain(' open');
    expect((await b.post(`/compliance/packages/${pkg.id}/headings`, { open: 'none' })).status).toBe(303);
    expect(sectionTag(await (await b.get(`/compliance/packages/${pkg.id}`)).text(), items.GOV)).not.toContain(' open');
  });

  test('only a heading of a package the person can read is remembered', async () => {
    const pkg = await makePackage(families());
    const items = await itemIds(pkg.id);
    expect((await toggle(b, pkg.id, items['GOV-1'], true)).status).toBe(404);
    const elsewhere = await makePackage(families());
    expect((await toggle(b, elsewhere.id, items.GOV, true)).status).toBe(404);
    const user = await makeUser(env, { 'compliance:read': 'own' });
    const stranger = await signedInBrowser(env, user.email, user.password);
    expect(await refusalOf(env, () => toggle(stranger, pkg.id, items.GOV, true))).toEqual(refusedWith(404, undefined, 'no compliance:read on package <id>'));
  });
});

describe('package tree: inline status changes', () => {
  test('the answer carries the score and the progress of every heading above the item, swapped out of band', async () => {
    const pkg = await makePackage(families());
    const items = await itemIds(pkg.id);
    await assess(pkg.analyses['GOV-S1'], 'compliant');
    const res = await htmxPatch(`/compliance/analyses/${pkg.analyses['GOV-S2']}`, { status: 'compliant' });
    expect(res.status).toBe(200);
    const html = await res.text();
    const [row, ...rest] = html.split('</tr>');
    expect(row).toContain(`aria-label="Status of GOV-S2" hx-patch="/compliance/analyses/${pkg.analyses['GOV-S2']}"><option>Not assessed<option selected>Compliant`);
    const oob = rest.join('</tr>');
    // Each part in a <template>, which the HTML parser keeps in place after a table row.
    expect(oob).toMatch(/^<template><div class="table-wrap" id="score" hx-swap-oob="true">/);
    // Requirements: 6 in all, 2 compliant: 33.3 %.
    expect(oob).toContain('<th scope="row">Requirements</th><td class="num">6</td><td class="num">2</td>');
    expect(oob).toContain('<strong>33.3%</strong>');
    expect(oob).toMatch(new RegExp(`<template><span class="progress" id="progress-${items['GOV-S']}" hx-swap-oob="true">[^]*?2 of 2 items assessed, 100% compliant`));
    expect(oob).toMatch(new RegExp(`<template><span class="progress" id="progress-${items.GOV}" hx-swap-oob="true">[^]*?2 of 3 items assessed, 66.7% compliant`));
    expect(oob).not.toContain(`progress-${items.OPS}`);
  });
});

describe('requirement text', () => {
  test('keeps paragraphs and nested lists, the levels told by label style (NIST indents, the GDPR does not)', () => {
    const nist = parseRequirementText('a. Develop:\n  1. A policy that:\n    (a) Addresses purpose; and\n    (b) Is consistent; and\n  2. Procedures;\nb. Designate an official.');
    expect(nist).toEqual([{
      kind: 'list', items: [
        { label: 'a.', text: 'Develop:', children: [
          { label: '1.', text: 'A policy that:', children: [{ label: '(a)', text: 'Addresses purpose; and', children: [] }, { label: '(b)', text: 'Is consistent; and', children: [] }] },
          { label: '2.', text: 'Procedures;', children: [] },
        ] },
        { label: 'b.', text: 'Designate an official.', children: [] },
      ],
    }]);
    const gdpr = parseRequirementText('1. Applies to processing.\n2. Does not apply:\n(a) outside Union law;\n(b) at home.\n\nA closing paragraph\nover two lines.');
    expect(gdpr).toEqual([
      { kind: 'list', items: [
        { label: '1.', text: 'Applies to processing.', children: [] },
        { label: '2.', text: 'Does not apply:', children: [{ label: '(a)', text: 'outside Union law;', children: [] }, { label: '(b)', text: 'at home.', children: [] }] },
      ] },
      { kind: 'p', text: 'A closing paragraph\nover two lines.' },
    ]);
  });

  test('the requirement page shows the text as lists, escaped', async () => {
    const pkg = await makePackage({ name: unique('Text'), items: [{ code: 'R1', name: 'Listed', description: 'Do this:\na. <b>first</b>;\nb. second.' }] });
    const html = await (await b.get(`/compliance/analyses/${pkg.analyses.R1}`)).text();
    expect(html).toContain('<ul class="req-list"><li><span class="req-label">a.</span> <span>&lt;b&gt;first&lt;/b&gt;;</span></li>');
  });
});
