import { beforeAll, describe, expect, test } from 'bun:test';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { adminActor, makeUser, unique } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { createRole } from '../../src/modules/people/service';

/**
 * Settings › Roles as a list: the filter bar (search over names, descriptions and rights; kind; a module the role has
 * rights on), headers that sort with the sort in the address, and Export CSV of exactly the filtered roles, rights in
 * words ('Controls: update (own)').
 */

let env: TestEnv;
let admin: Browser;
const TAG = unique('Roled');
const [alpha, beta, gamma] = ['alpha', 'beta', 'gamma'].map((n) => `${TAG} ${n}`);

beforeAll(async () => {
  env = await testEnv();
  const actor = await adminActor(env);
  await env.ctx.db.transaction(async (tx) => {
    await createRole(tx, actor, { name: alpha, description: 'Reads risks', permissions: [{ permission: 'risks:read', level: 'all' }] });
    await createRole(tx, actor, {
      name: beta, description: 'Looks after own controls',
      permissions: [{ permission: 'controls:read', level: 'own' }, { permission: 'controls:update', level: 'own' }],
    });
    await createRole(tx, actor, { name: gamma, description: '=HYPERLINK("http://evil.example")', permissions: [] });
  });
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);

const q = encodeURIComponent(TAG);

describe('Settings › Roles: the filter bar and the sorting headers', () => {
  test('searches names and descriptions; filters by a module the role has rights on and by kind', async () => {
    const all = await listScreen(admin, `/settings/roles?q=${q}`, 'role');
    expect(all.status).toBe(200);
    expect(all.total).toBe('3 roles match these filters');
    expect(inOrder(all.rows, [gamma, beta, alpha])).toEqual([alpha, beta, gamma]);
    // Rights read as words, not keys.
    expect(all.rows.find((r) => r.includes(beta))).toContain('Controls: update (own)');
    expect((await listScreen(admin, `/settings/roles?q=${encodeURIComponent('own controls')}`, 'role')).rows.some((r) => r.includes(beta))).toBe(true);

    const controls = await listScreen(admin, `/settings/roles?q=${q}&module=controls`, 'role');
    expect(inOrder(controls.rows, [alpha, beta, gamma])).toEqual([beta]);
    expect(controls.html).toMatch(/<option value="controls" selected>Controls<\/option>/);
    const builtIn = await listScreen(admin, `/settings/roles?q=${q}&kind=builtIn`, 'role');
    expect(builtIn.rows).toEqual(['No roles match these filters.']);
    // A value the filter does not take reads as no filter.
    expect((await listScreen(admin, `/settings/roles?q=${q}&kind=nonsense&module=nowhere`, 'role')).total).toBe('3 roles match these filters');
  });

  test('a header sorts by its column, the other way on a second click; the sort is kept in the address and the filter bar', async () => {
    const byName = await listScreen(admin, `/settings/roles?q=${q}`, 'role');
    expect(byName.html).toContain(`<th scope="col" aria-sort="ascending"><a href="/settings/roles?q=${q}&sort=-name" class="sort"`);
    const descending = await listScreen(admin, `/settings/roles?q=${q}&sort=-name`, 'role');
    expect(inOrder(descending.rows, [alpha, beta, gamma])).toEqual([gamma, beta, alpha]);
    expect(descending.html).toContain('<input type="hidden" name="sort" value="-name" form="role-filters"/>');
    const byRights = await listScreen(admin, `/settings/roles?q=${q}&sort=-rights`, 'role');
    expect(inOrder(byRights.rows, [alpha, beta, gamma])).toEqual([beta, alpha, gamma]);
    expect(byRights.pager).toBe('1–3 of 3');
  });
});

describe('Settings › Roles: Export', () => {
  test('the filtered roles in the list order as CSV: byte order mark, kinds and rights in words, no formula; the link carries the filters', async () => {
    const screen = await listScreen(admin, `/settings/roles?q=${q}&sort=-name`, 'role');
    expect(screen.html).toContain(`href="/settings/roles/export.csv?q=${q}&sort=-name" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(admin, `/settings/roles/export.csv?q=${q}&sort=-name`, 'roles');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines).toEqual([
      'Role,Description,Kind,Rights',
      `${gamma},"'=HYPERLINK(""http://evil.example"")",Custom,`,
      `${beta},Looks after own controls,Custom,"Controls: read (own); Controls: update (own)"`,
      `${alpha},Reads risks,Custom,Risks: read (all)`,
    ]);
    expect((await csvOf(admin, `/settings/roles/export.csv?q=${q}&module=risks`, 'roles')).lines.slice(1)).toEqual([`${alpha},Reads risks,Custom,Risks: read (all)`]);
  });

  test('reading the list and its download needs settings:read', async () => {
    const reader = await makeUser(env, { 'risks:read': 'all' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    expect((await b.get('/settings/roles')).status).toBe(403);
    expect((await b.get(`/settings/roles/export.csv?q=${q}`)).status).toBe(403);
  });
});
