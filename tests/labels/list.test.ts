import { beforeAll, describe, expect, test } from 'bun:test';
import { testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { createLabel } from '../../src/modules/labels/service';

/**
 * Settings › Labels as a list: search over names and descriptions, headers that sort (name, colour, description, when
 * added) with the sort in the address, paging with the total, and Export CSV of exactly the searched labels.
 */

let env: TestEnv;
let reader: Browser;
const TAG = unique('Labelled');
const [amber, blue, crimson] = ['amber', 'blue', 'crimson'].map((n) => `${TAG} ${n}`);

beforeAll(async () => {
  env = await testEnv();
  const actor = await adminActor(env);
  await env.ctx.db.transaction(async (tx) => {
    await createLabel(tx, actor, { name: blue, color: '#0000ff', description: 'Cool' });
    await createLabel(tx, actor, { name: crimson, color: '#aa0000', description: '@SUM(1+1) looks like a formula' });
    await createLabel(tx, actor, { name: amber, color: '#ffbf00', description: 'Warm and bright' });
  });
  const user = await makeUser(env, { 'settings:read': 'all' });
  reader = await signedInBrowser(env, user.email, user.password);
}, 60_000);

const q = encodeURIComponent(TAG);

describe('Settings › Labels as a list', () => {
  test('searches names and descriptions; sorts by name unless a header says otherwise', async () => {
    const all = await listScreen(reader, `/settings/labels?q=${q}`, 'label');
    expect(all.status).toBe(200);
    expect(all.total).toBe('3 labels match these filters');
    expect(inOrder(all.rows, [blue, crimson, amber])).toEqual([amber, blue, crimson]);
    expect(all.html).toContain(`<th scope="col" aria-sort="ascending"><a href="/settings/labels?q=${q}&sort=-name" class="sort"`);
    expect(inOrder((await listScreen(reader, `/settings/labels?q=${encodeURIComponent('bright')}`, 'label')).rows, [amber, blue, crimson])).toEqual([amber]);
    const byColour = await listScreen(reader, `/settings/labels?q=${q}&sort=-color`, 'label');
    expect(inOrder(byColour.rows, [amber, blue, crimson])).toEqual([amber, crimson, blue]);
    expect(byColour.html).toContain('<input type="hidden" name="sort" value="-color" form="label-filters"/>');
    expect(byColour.pager).toBe('1–3 of 3');
    expect((await listScreen(reader, `/settings/labels?q=${q}-none`, 'label')).rows).toEqual(['No labels match these filters.']);
  });

  test('Export: the searched labels in the list order, no formula, the link carrying the search and sort', async () => {
    const screen = await listScreen(reader, `/settings/labels?q=${q}&sort=-name`, 'label');
    expect(screen.html).toContain(`href="/settings/labels/export.csv?q=${q}&sort=-name" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(reader, `/settings/labels/export.csv?q=${q}&sort=-name`, 'labels');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Label,Colour,Description,Added (UTC)');
    expect(lines.slice(1).map((l) => l.replace(/,\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/, ''))).toEqual([
      `${crimson},#aa0000,'@SUM(1+1) looks like a formula`, `${blue},#0000ff,Cool`, `${amber},#ffbf00,Warm and bright`,
    ]);
  });

  test('the list and its download need settings:read', async () => {
    const other = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, other.email, other.password);
    expect((await b.get('/settings/labels')).status).toBe(403);
    expect((await b.get('/settings/labels/export.csv')).status).toBe(403);
  });
});
