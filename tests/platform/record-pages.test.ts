import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { unique } from '../helpers/factories';

/** The register kit's list and delete screens, through the controls register. */

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

const idFrom = (location: string | null) => /\/[a-z-]+\/([0-9a-f-]{36})/.exec(location ?? '')?.[1] ?? '';

async function makeControl(name: string, type = 'technical'): Promise<string> {
  const res = await admin.post('/controls', { name, type });
  expect(res.status, await res.clone().text()).toBe(303);
  return idFrom(res.headers.get('location'));
}

describe('register lists', () => {
  test('one filter bar with search, status, owner and Apply; values read as labels; headers sort with the sort in their links', async () => {
    const prefix = unique('Sortable');
    await makeControl(`${prefix} b`, 'physical');
    await makeControl(`${prefix} a`, 'technical');
    const html = await (await admin.get(`/controls?q=${encodeURIComponent(prefix)}&sort=name`)).text();
    expect(html).toMatch(/<form method="get" action="\/controls" id="results-controls-filters" class="filter-bar card" role="search" aria-label="Filter controls"/);
    for (const label of ['Search', 'Status', 'Owner']) expect(html).toContain(`>${label}</label>`);
    expect(html).toContain('>Apply</button>');
    expect(html).toContain('2 controls match these filters');
    expect(html.indexOf(`${prefix} a`)).toBeLessThan(html.indexOf(`${prefix} b`));
    expect(html).toContain('<td data-label="Type"><span>Technical</span></td>');
    // Sorted by name ascending: the Name header says so and offers the other way, keeping the filter.
    expect(html).toContain(`<th scope="col" aria-sort="ascending"><a href="/controls?q=${encodeURIComponent(prefix)}&sort=-name"`);
    // The sort is a field of the filter bar's form kept with the table, so it is swapped with the results and a filter
    // changed after a header click keeps it.
    expect(html).toContain('<div class="table-wrap"><input type="hidden" name="sort" value="name" form="results-controls-filters"/>');
    const reversed = await (await admin.get(`/controls?q=${encodeURIComponent(prefix)}&sort=-name`)).text();
    expect(reversed.indexOf(`${prefix} b`)).toBeLessThan(reversed.indexOf(`${prefix} a`));
    // An unknown sort key falls back to the default order rather than failing the page.
    expect((await admin.get('/controls?sort=password')).status).toBe(200);
  });

  test('Export CSV follows the filters and sort, with the columns as shown', async () => {
    const prefix = unique('Exported');
    await makeControl(`${prefix} one`, 'physical');
    await makeControl(`${prefix} two`, 'technical');
    const list = await (await admin.get(`/controls?q=${encodeURIComponent(prefix)}&sort=-name`)).text();
    const href = /href="(\/controls\/export\.csv[^"]*)"/.exec(list)?.[1]?.replaceAll('&amp;', '&');
    expect(href).toBe(`/controls/export.csv?q=${encodeURIComponent(prefix)}&sort=-name`);
    const res = await admin.get(href!);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="controls-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await res.text()).replace(/^\uFEFF/, '').trim().split('\r\n');
    expect(lines[0]).toBe('Name,Type,Status,Owner');
    expect(lines.slice(1)).toEqual([`${prefix} two,Technical,Active,Admin`, `${prefix} one,Physical,Active,Admin`].map((l) => expect.stringContaining(l.split(',Admin')[0])));
    expect(lines).toHaveLength(3);
  });

  test('an empty register says what it holds and offers its first action', async () => {
    const html = await (await admin.get(`/controls?q=${encodeURIComponent(unique('nothing'))}`)).text();
    expect(html).toContain('No controls match these filters.');
    expect(html).toContain('0 controls match these filters');
  });
});

describe('errors inside the app', () => {
  test('an unknown record or address is a 404 page inside the shell, with the navigation', async () => {
    for (const path of ['/controls/00000000-0000-4000-8000-000000000000', '/no-such-screen']) {
      const res = await admin.get(path);
      expect(res.status, path).toBe(404);
      const html = await res.text();
      expect(html, path).toContain('<nav class="sidenav" aria-label="Main">');
      expect(html, path).toContain('<h1>Page not found</h1>');
      expect(html, path).toContain('There is nothing at this address');
    }
  });

  test('signed out, an unknown address is a plain 404 page', async () => {
    const res = await env.request('/no-such-screen');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<h1>Page not found</h1>');
  });
});

describe('deleting a record others refer to', () => {
  test('the confirmation warns and names what refers to it, linking each record; the refused delete answers 409 on the same page', async () => {
    const controlId = await makeControl(unique('Referenced control'));
    const plan = await admin.post('/audits', { title: unique('Plan') });
    const planId = idFrom(plan.headers.get('location'));
    const findingTitle = unique('Finding');
    const finding = await admin.post('/audits/findings', { auditPlanId: planId, title: findingTitle, controlId });
    expect(finding.status, await finding.clone().text()).toBe(303);
    const findingId = idFrom(finding.headers.get('location'));

    const confirm = await (await admin.get(`/controls/${controlId}/delete`)).text();
    expect(confirm).toContain('This cannot be deleted yet: other records still refer to this control');
    // One finding, by its name and linked to its page.
    expect(confirm).toContain(`<li><span>1 audit finding:</span> <a href="/audits/findings/${findingId}">${findingTitle}</a></li>`);
    expect(confirm).toContain(`<a href="/controls/${controlId}">open it</a>`);

    const refused = await admin.post(`/controls/${controlId}/delete`, {});
    expect(refused.status).toBe(409);
    const html = await refused.text();
    expect(html).toContain('<nav class="sidenav"');
    expect(html).toContain('Not deleted: other records still refer to this control');
    expect(html).toContain(`<a href="/audits/findings/${findingId}">${findingTitle}</a>`);
    expect(html).not.toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} is still referenced/);
  });
});
