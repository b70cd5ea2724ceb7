import { beforeAll, describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { count, eq } from 'drizzle-orm';
import { complianceAnalyses, compliancePackages } from '../../db/schema';
import { SHIPPED_PACKAGES, shippedPackageFile } from '../../src/modules/compliance/shipped';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { browser, signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

/** Uploads a file through the import dialog as a browser does (multipart, CSRF field included). */
async function upload(b: Browser, fileName: string, content: string, fields: Record<string, string> = {}): Promise<Response> {
  const form = new FormData();
  form.append('_csrf', b.csrf ?? '');
  for (const [key, value] of Object.entries(fields)) form.append(key, value);
  form.append('file', new File([content], fileName, { type: fileName.endsWith('.json') ? 'application/json' : 'text/csv' }));
  return env.request('/compliance/packages/import/preview', { method: 'POST', body: form, headers: { cookie: b.cookie ?? '' }, redirect: 'manual' });
}

const decodeAttribute = (value: string) => value.replace(/&(#x[0-9a-f]+|#\d+|quot|amp|lt|gt|apos);/gi, (_, ref: string) => {
  if (ref[0] === '#') return String.fromCodePoint(ref[1]?.toLowerCase() === 'x' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)));
  return { quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" }[ref.toLowerCase()]!;
});

/** The package the preview will commit, taken off the Commit import form. */
function committedPackage(html: string): string {
  const match = /name="package" value="([^"]*)"/.exec(html);
  if (!match) throw new Error(`no Commit import form in:\n${html.slice(0, 2000)}`);
  return decodeAttribute(match[1]);
}

async function packagesNamed(name: string) {
  return env.ctx.db.select().from(compliancePackages).where(eq(compliancePackages.name, name));
}

async function totalPackages(): Promise<number> {
  const [{ n }] = await env.ctx.db.select({ n: count() }).from(compliancePackages);
  return n;
}

const exportLinkOf = (id: string) => `/compliance/packages/${id}/export`;

describe('compliance package screens', () => {
  test('CSV import: the preview shows the tree and counts, writes nothing; Commit import creates the package with its analyses', async () => {
    const name = unique('Access baseline');
    const csv = 'code,name,description,parent_code,kind\n'
      + 'A,Access,,,heading\n'
      + 'A.1,Accounts,"Manage accounts, roles",A,\n'
      + 'A.1.1,Reviews,Review quarterly,A.1,requirement\n'
      + 'A.2,Guidance,,A,additional\n';
    const before = await totalPackages();
    const preview = await upload(admin, 'baseline.csv', csv, { name, standard: 'Internal', version: '2026' });
    const html = await preview.text();
    expect(preview.status, html).toBe(200);
    expect(html).toContain('4 items: 1 heading, 2 requirements, 1 additional');
    expect(html).toMatch(/<details><summary><strong>A<\/strong> <span>Access<\/span>/);
    expect(html).toContain('Commit import');
    expect(await totalPackages()).toBe(before);

    const committed = await admin.post('/compliance/packages/import', { package: committedPackage(html) });
    expect(committed.status, await committed.clone().text()).toBe(303);
    expect(committed.headers.get('location')).toBe('/compliance/packages?done=imported');
    const [pkg] = await packagesNamed(name);
    expect(pkg).toMatchObject({ standard: 'Internal', version: '2026' });
    const [{ n }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, pkg.id));
    expect(n).toBe(3);
    const list = await (await admin.get('/compliance/packages?done=imported')).text();
    expect(list).toContain('Package imported');
    expect(list).toContain(name);
    expect(list).toContain(exportLinkOf(pkg.id));
  });

  test('Commit import posted as multipart (as some browsers send a form) creates the package too, for JSON and CSV', async () => {
    for (const [file, content] of [
      ['custom.json', (name: string) => JSON.stringify({ name, standard: 'Own', version: '1', description: '', items: [{ code: 'R1', name: 'Rule one' }] })],
      ['custom.csv', () => 'code,name\nR1,Rule one\n'],
    ] as const) {
      const name = unique(`Multipart ${file}`);
      const html = await (await upload(admin, file, content(name), { name })).text();
      const form = new FormData();
      form.append('_csrf', admin.csrf ?? '');
      form.append('package', committedPackage(html));
      const committed = await env.request('/compliance/packages/import', { method: 'POST', body: form, headers: { cookie: admin.cookie ?? '' }, redirect: 'manual' });
      expect(committed.status, await committed.clone().text()).toBe(303);
      expect(await packagesNamed(name)).toHaveLength(1);
    }
  });

  test('a file with problems lists every one, offers no Commit import and writes nothing', async () => {
    const name = unique('Broken');
    const csv = 'code,name,parent_code,kind\n'
      + 'X1,First,,\n'
      + 'X1,Repeated,,\n'
      + ',No code,,\n'
      + 'X3,Orphan,NOPE,\n'
      + 'X4,Odd kind,,sometimes\n'
      + 'C1,Cycle one,C2,\n'
      + 'C2,Cycle two,C1,\n';
    const before = await totalPackages();
    const res = await upload(admin, 'broken.csv', csv, { name });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(html).toContain('The whole file is refused');
    expect(html).toContain('Line 3 (X1): code: repeats the code on line 2');
    expect(html).toContain('Line 4: code: must not be empty');
    expect(html).toContain('Line 5 (X3): parent_code: names NOPE, which is not in the package');
    expect(html).toContain('Line 6 (X4): kind: must be requirement, additional, heading or blank');
    expect(html).toContain('parents form a cycle');
    expect(html).not.toContain('Commit import');
    expect(await totalPackages()).toBe(before);
    expect(await packagesNamed(name)).toHaveLength(0);
  });

  test('a JSON file that is not JSON, or has no name, is refused with the reason', async () => {
    const notJson = await upload(admin, 'p.json', '{"name": "x", items: [');
    expect(notJson.status).toBe(400);
    expect(await notJson.text()).toContain('file: is not valid JSON');
    const nameless = await upload(admin, 'p.json', JSON.stringify({ name: ' ', items: [{ code: 'A', name: 'B' }] }));
    expect(nameless.status).toBe(400);
    expect(await nameless.text()).toContain('Package: name: must not be empty');
  });

  test('a file over 1 MB is refused with a message pointing at POST /api/v1/compliance/packages', async () => {
    const before = await totalPackages();
    const big = `code,name\n${Array.from({ length: 40_000 }, (_, i) => `R${i},Requirement number ${i}`).join('\n')}\n`;
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const res = await upload(admin, 'big.csv', big, { name: unique('Big') });
    expect(res.status).toBe(413);
    const html = await res.text();
    expect(html).toContain('larger than the 1 MB the screens accept');
    expect(html).toContain('POST /api/v1/compliance/packages');
    expect(await totalPackages()).toBe(before);
  });

  test('a Commit import request over 1 MB is refused the same way, before anything is read or written', async () => {
    const before = await totalPackages();
    const res = await admin.post('/compliance/packages/import', { package: 'x'.repeat(1024 * 1024 + 1) });
    expect(res.status).toBe(413);
    expect(await res.text()).toContain('POST /api/v1/compliance/packages');
    // With a Content-Length (as from a browser), the request is answered before its body is read.
    const body = new URLSearchParams({ _csrf: admin.csrf ?? '', package: 'y'.repeat(1024 * 1024 + 1) }).toString();
    const early = await env.request('/compliance/packages/import', {
      method: 'POST', body, redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length), cookie: admin.cookie ?? '' },
    });
    expect(early.status).toBe(413);
    const html = await early.text();
    expect(html).toContain('larger than the 1 MB the screens accept');
    expect(html).toContain('POST /api/v1/compliance/packages');
    expect(await totalPackages()).toBe(before);
  });

  test('an unknown or malformed package id is a 404 on export and delete', async () => {
    expect(await refusalOf(env, async () => admin.get(exportLinkOf('00000000-0000-4000-8000-000000000000')))).toEqual(refusedWith(404, undefined));
    expect(await refusalOf(env, async () => admin.get(exportLinkOf('not-an-id')))).toEqual(refusedWith(404, undefined));
    expect(await refusalOf(env, async () => admin.get('/compliance/packages/not-an-id/delete'))).toEqual(refusedWith(404, undefined));
  });

  for (const shipped of SHIPPED_PACKAGES) {
    test(`one click imports ${shipped.label} as exactly one package; export equals the shipped file, and re-importing the export gives the same tree`, async () => {
      const file = readFileSync(shippedPackageFile(shipped), 'utf8');
      const expected = JSON.parse(file) as { name: string; items: { kind: string }[] };
      const list = await (await admin.get('/compliance/packages')).text();
      expect(list).toContain(`Import ${shipped.label}`);

      const before = await totalPackages();
      const known = new Set((await packagesNamed(expected.name)).map((p) => p.id));
      const res = await admin.post(`/compliance/packages/shipped/${shipped.key}`, {});
      expect(res.status, await res.clone().text()).toBe(303);
      expect(await totalPackages()).toBe(before + 1);
      const created = (await packagesNamed(expected.name)).filter((p) => !known.has(p.id));
      expect(created).toHaveLength(1);
      const id = created[0].id;
      const [{ n }] = await env.ctx.db.select({ n: count() }).from(complianceAnalyses).where(eq(complianceAnalyses.packageId, id));
      expect(n).toBe(expected.items.filter((item) => item.kind !== 'heading').length);

      const exported = await admin.get(exportLinkOf(id));
      expect(exported.status).toBe(200);
      expect(exported.headers.get('content-type')).toStartWith('application/json');
      expect(exported.headers.get('content-disposition')).toMatch(/^attachment; filename="[a-z0-9-]+\.json"$/);
      const text = await exported.text();
      expect(text).toBe(file);

      // Round trip through the dialog: upload the export, commit, export again.
      const preview = await upload(admin, 'exported.json', text);
      const html = await preview.text();
      expect(preview.status, html.slice(0, 2000)).toBe(200);
      const again = await admin.post('/compliance/packages/import', { package: committedPackage(html) });
      expect(again.status, await again.clone().text()).toBe(303);
      const second = (await packagesNamed(expected.name)).find((p) => !known.has(p.id) && p.id !== id)!;
      expect(await (await admin.get(exportLinkOf(second.id))).text()).toBe(file);
    });
  }

  test('delete asks first, then removes the package with its analyses', async () => {
    const name = unique('Short-lived');
    const preview = await upload(admin, 'p.json', JSON.stringify({ name, items: [{ code: 'R1', name: 'One' }] }));
    await admin.post('/compliance/packages/import', { package: committedPackage(await preview.text()) });
    const [pkg] = await packagesNamed(name);
    const confirm = await (await admin.get(`/compliance/packages/${pkg.id}/delete`)).text();
    expect(confirm).toContain(`Delete ${name}? Its 1 items and 1 analyses go with it`);
    const res = await admin.post(`/compliance/packages/${pkg.id}/delete`, {});
    expect(res.status, await res.clone().text()).toBe(303);
    expect(await packagesNamed(name)).toHaveLength(0);
  });

  test('a reader sees packages and exports them, but has no import or delete', async () => {
    const reader = await makeUser(env, { 'compliance:read': 'all' });
    const b = browser(env);
    expect((await b.post('/sign-in', { email: reader.email, password: reader.password, next: '/compliance/packages' })).status).toBe(303);
    const list = await (await b.get('/compliance/packages')).text();
    expect(list).toContain('Compliance packages');
    expect(list).toContain('/export');
    expect(list).not.toContain('Import package');
    expect(list).not.toContain('Shipped frameworks');
    expect(list).not.toContain('/delete');
    expect(await refusalOf(env, async () => b.get('/compliance/packages/import'))).toEqual(refusedWith(403, undefined, 'user right compliance:create missing'));
    const [pkg] = await env.ctx.db.select().from(compliancePackages).limit(1);
    expect((await b.get(exportLinkOf(pkg.id))).status).toBe(200);
    expect(await refusalOf(env, async () => b.get(`/compliance/packages/${pkg.id}/delete`))).toEqual(refusedWith(403, undefined, 'user right compliance:delete missing'));
  });

  test('htmx gets the same list component without the shell', async () => {
    const html = await (await admin.get('/compliance/packages', { 'hx-request': 'true' })).text();
    expect(html.startsWith('<section id="packages">')).toBe(true);
    expect(html).not.toContain('<html');
  });

  test('signed out, the list asks for sign-in', async () => {
    const res = await browser(env).get('/compliance/packages');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/sign-in?next=%2Fcompliance%2Fpackages');
  });
});

describe('the packages list', () => {
  test('searches names and filters by Owner in the one filter bar, sorts by a header with the sort in the address, and exports what it shows', async () => {
    const { importPackage } = await import('../../src/modules/compliance/packages-service');
    const owner = await makeUser(env, { 'compliance:read': 'all', 'compliance:create': 'all' });
    const marker = unique('Listed framework');
    const ownerActor = await owner.actor();
    for (const suffix of ['b', 'a']) {
      await env.ctx.db.transaction(async (tx) => importPackage(tx, ownerActor, { name: `${marker} ${suffix}`, standard: 'ISO', items: [{ code: 'R1', name: 'One' }] }));
    }
    const qs = (o: Record<string, string>) => new URLSearchParams(o).toString();
    const html = await (await admin.get(`/compliance/packages?${qs({ q: marker, ownerId: owner.id, sort: 'name' })}`)).text();
    expect(html).toContain('class="filter-bar card"');
    expect(html).toContain('<label for="filter-ownerId">Owner</label>');
    expect(html).toContain('2 packages match these filters');
    expect(html.indexOf(`${marker} a`)).toBeLessThan(html.indexOf(`${marker} b`));
    expect(html).toContain(`href="/compliance/packages?${qs({ q: marker, ownerId: owner.id, sort: '-name' })}"`);
    const descending = await (await admin.get(`/compliance/packages?${qs({ q: marker, sort: '-name' })}`)).text();
    expect(descending.indexOf(`${marker} b`)).toBeLessThan(descending.indexOf(`${marker} a`));

    const exportHref = `/compliance/packages/export.csv?${qs({ q: marker, ownerId: owner.id, sort: 'name' })}`;
    expect(html).toContain(`href="${exportHref}"`);
    const csv = await admin.get(exportHref);
    expect(csv.status).toBe(200);
    const lines = (await csv.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Name,Standard,Version,Headings,Requirements,Additional,Compliance score,Additional items compliant,Owner');
    expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([`${marker} a`, `${marker} b`]);
    expect(lines[1]).toContain(`,ISO,,0,1,0,0% (0 of 1),—,${owner.email.replace('@test.example', '')}`);
  });

  test('the Headings, Requirements and Additional headers sort by those counts, both ways', async () => {
    const { importPackage } = await import('../../src/modules/compliance/packages-service');
    const marker = unique('Counted framework');
    const actor = await adminActor(env);
    const items = (n: number) => Array.from({ length: n }, (_, i) => ({ code: `R${i + 1}`, name: `Requirement ${i + 1}` }));
    // "small" holds one requirement, "large" three: by name they read large, small; by requirements small, large.
    for (const [suffix, n] of [['small', 1], ['large', 3]] as const) {
      await env.ctx.db.transaction(async (tx) => importPackage(tx, actor, { name: `${marker} ${suffix}`, standard: 'ISO', items: items(n) }));
    }
    const order = async (sort: string) => {
      const html = await (await admin.get(`/compliance/packages?q=${encodeURIComponent(marker)}&sort=${sort}`)).text();
      expect(html).toMatch(new RegExp(`<th scope="col" aria-sort="${sort.startsWith('-') ? 'descending' : 'ascending'}"><a href="[^"]*sort=${sort.startsWith('-') ? sort.slice(1) : `-${sort}`}"`));
      return html.indexOf(`${marker} small`) < html.indexOf(`${marker} large`) ? ['small', 'large'] : ['large', 'small'];
    };
    expect(await order('requirements')).toEqual(['small', 'large']);
    expect(await order('-requirements')).toEqual(['large', 'small']);
    expect(await order('name')).toEqual(['large', 'small']);
  });
});
