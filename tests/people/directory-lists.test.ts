import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { groupRoles } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser, unique, type TestUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';
import { addGroupMember, createGroup, createUser, setUserStatus } from '../../src/modules/people/service';
import { systemActor } from '../../src/platform/permissions/permissions';

/**
 * Settings › Users and Settings › Groups as lists: the filter bar (search, status, role, group), headers that sort with
 * the sort in the address, paging with the total, and the Export of exactly the filtered rows (byte order mark, labels,
 * names, formula-like cells neutralised, times in the reader's zone).
 */

let env: TestEnv;
let admin: Browser;
const TAG = unique('Listed');
let alice: TestUser;
let bob: TestUser;
let carol: TestUser;
let crowdGroup: string;
const FORMULA = `=cmd|' /C calc'!A0 ${TAG}`;

/** The screen's total line, the names in its table in order, and its pager text. */
async function usersScreen(query: string) {
  const res = await admin.get(`/settings/users${query}`);
  const html = await res.text();
  const table = html.slice(html.indexOf('id="user-table"'), html.indexOf('</table>', html.indexOf('id="user-table"')));
  const names = [...table.matchAll(/<tr><td data-label="[^"]+"><span>([^<]+)<\/span>/g)].map((m) => m[1]);
  return { status: res.status, html, names, total: /<p class="results-bar"><span class="muted">([^<]+)<\/span>/.exec(html)?.[1] };
}

/** Whether the page holds the text (a page is too long to print when it does not). */
const holds = (html: string, text: string) => html.includes(text);

async function csv(path: string) {
  const res = await admin.get(path);
  expect(res.status, path).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { res, bom: [...bytes.slice(0, 3)], lines: new TextDecoder().decode(bytes.slice(3)).split('\r\n').filter(Boolean) };
}

beforeAll(async () => {
  env = await testEnv();
  alice = await makeUser(env, { 'risks:read': 'all' }, `${TAG} Alice`);
  bob = await makeUser(env, { 'risks:read': 'all' }, `${TAG} Bob`);
  carol = await makeUser(env, { 'controls:read': 'all' }, `${TAG} Carol`);
  await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), bob.id, 'deactivated'));
  // 52 more people in one group: more than the page of 50.
  crowdGroup = await env.ctx.db.transaction(async (tx) => {
    const { id: groupId } = await createGroup(tx, systemActor(), { name: `${TAG} crowd`, description: 'Many people' });
    for (let i = 0; i < 52; i++) {
      const { id } = await createUser(tx, systemActor(), { email: `${TAG.toLowerCase()}-crowd-${i}@test.example`, name: `${TAG} crowd ${String(i).padStart(2, '0')}` });
      await addGroupMember(tx, systemActor(), groupId, id);
    }
    await createUser(tx, systemActor(), { email: `${TAG.toLowerCase()}-formula@test.example`, name: FORMULA });
    const { id: pair } = await createGroup(tx, systemActor(), { name: `${TAG} pair`, description: 'Two people' });
    await addGroupMember(tx, systemActor(), pair, alice.id);
    await addGroupMember(tx, systemActor(), pair, carol.id);
    return groupId;
  });
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 120_000);

describe('Settings › Users: the filter bar', () => {
  test('searches names and email addresses', async () => {
    const byName = await usersScreen(`?q=${encodeURIComponent(`${TAG} Alice`)}`);
    expect(byName.status).toBe(200);
    expect(byName.names).toEqual([`${TAG} Alice`]);
    expect(byName.total).toBe('1 user matches these filters');
    const byEmail = await usersScreen(`?q=${encodeURIComponent(carol.email)}`);
    expect(byEmail.names).toEqual([`${TAG} Carol`]);
  });

  test('filters by status, by a role its groups give, and by group; the filters stay in the bar', async () => {
    const deactivated = await usersScreen(`?q=${encodeURIComponent(TAG)}&status=deactivated`);
    expect(deactivated.names).toEqual([`${TAG} Bob`]);
    expect(deactivated.html).toContain('<span class="status-deactivated">Deactivated</span>');
    expect(deactivated.html).toMatch(/<option value="deactivated" selected>Deactivated<\/option>/);
    const active = await usersScreen(`?q=${encodeURIComponent(`${TAG} Ca`)}&status=active`);
    expect(active.names).toEqual([`${TAG} Carol`]);

    const [{ roleId: roleOfAlice }] = await env.ctx.db.select({ roleId: groupRoles.roleId }).from(groupRoles).where(eq(groupRoles.groupId, alice.groupId));
    const byRole = await usersScreen(`?roleId=${roleOfAlice}`);
    expect(byRole.names).toEqual([`${TAG} Alice`]);
    // The user's roles and groups are named in the row.
    expect(byRole.html).toMatch(/<span class="tag">role-[^<]+<\/span>/);
    const byGroup = await usersScreen(`?groupId=${carol.groupId}`);
    expect(byGroup.names).toEqual([`${TAG} Carol`]);
    // An id that is no id reads as no filter.
    expect((await usersScreen('?groupId=nonsense&status=gone')).status).toBe(200);
  });
});

describe('Settings › Users: sorting and paging', () => {
  test('a header sorts by its column, the other way on a second click, the sort kept in the address', async () => {
    const byName = await usersScreen(`?groupId=${crowdGroup}`);
    expect(byName.names[0]).toBe(`${TAG} crowd 00`);
    // Listed by name unless a header chose otherwise: the Name header says so and offers the other way.
    expect(holds(byName.html, `<th scope="col" aria-sort="ascending"><a href="/settings/users?groupId=${crowdGroup}&sort=-name" class="sort"`)).toBe(true);
    const descending = await usersScreen(`?groupId=${crowdGroup}&sort=-name`);
    expect(descending.names[0]).toBe(`${TAG} crowd 51`);
    expect(holds(descending.html, '<th scope="col" aria-sort="descending"><a href')).toBe(true);
    // The header now offers the other way; paging keeps the sort.
    expect(holds(descending.html, `<a href="/settings/users?groupId=${crowdGroup}&sort=name" class="sort"`)).toBe(true);
    expect(holds(descending.html, `href="/settings/users?groupId=${crowdGroup}&sort=-name&page=2"`)).toBe(true);
    // The sort is a field of the filter bar's form kept in the results (swapped with them), so a filter applied next keeps it.
    expect(holds(descending.html, '<form method="get" action="/settings/users" id="user-filters"')).toBe(true);
    expect(holds(descending.html, '<div class="table-wrap" id="user-table"><input type="hidden" name="sort" value="-name" form="user-filters"/>')).toBe(true);
    const byStatus = await usersScreen(`?q=${encodeURIComponent(TAG)}&sort=-status`);
    expect(byStatus.names[0]).toBe(`${TAG} Bob`);
    // Ascending, the active come first: 55 of them fill the first page of 50.
    expect((await usersScreen(`?q=${encodeURIComponent(TAG)}&sort=status`)).names).not.toContain(`${TAG} Bob`);
  });

  test('pages hold 50 with the total: the crowd of 52 is 50 on page 1 and 2 on page 2', async () => {
    const first = await usersScreen(`?groupId=${crowdGroup}`);
    expect(first.names).toHaveLength(50);
    expect(first.html).toContain('1–50 of 52');
    expect(first.total).toBe('52 users match these filters');
    const second = await usersScreen(`?groupId=${crowdGroup}&page=2`);
    expect(second.names).toEqual([`${TAG} crowd 50`, `${TAG} crowd 51`]);
    expect(second.html).toContain('51–52 of 52');
  });
});

describe('Settings › Users: Export', () => {
  test('the filtered users as CSV: byte order mark, labels and names, no formula, times in UTC without a zone', async () => {
    const { res, bom, lines } = await csv(`/settings/users/export.csv?q=${encodeURIComponent(TAG)}&status=deactivated`);
    expect(res.headers.get('content-type')).toContain('text/csv');
    expect(res.headers.get('content-disposition')).toMatch(/attachment; filename="users-\d{4}-\d{2}-\d{2}\.csv"/);
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Name,Email,Status,Groups,Roles,Break-glass,Created (UTC)');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toStartWith(`${TAG} Bob,${bob.email},Deactivated,group-`);
    expect(lines[1]).toMatch(/,No,\d{4}-\d{2}-\d{2} \d{2}:\d{2}$/);
    const formula = await csv(`/settings/users/export.csv?q=${encodeURIComponent('=cmd')}`);
    expect(formula.lines[1]).toStartWith(`'=cmd|' /C calc'!A0 ${TAG},`);
  });

  test('follows every filter and the sort, and writes times in the zone the link carries', async () => {
    const all = await csv(`/settings/users/export.csv?groupId=${crowdGroup}&sort=-name&tz=Asia%2FTokyo`);
    expect(all.lines).toHaveLength(53);
    expect(all.lines[0]).toEndWith(',Created (Asia/Tokyo)');
    expect(all.lines[1]).toStartWith(`${TAG} crowd 51,`);
    const screen = await usersScreen(`?groupId=${crowdGroup}&sort=-name`);
    expect(holds(screen.html, `href="/settings/users/export.csv?groupId=${crowdGroup}&sort=-name" download="" data-reader-zone=""`)).toBe(true);
    // The same user, once in UTC and once in Tokyo (UTC+9 all year).
    const [utc] = (await csv(`/settings/users/export.csv?q=${encodeURIComponent(carol.email)}`)).lines.slice(1);
    const [tokyo] = (await csv(`/settings/users/export.csv?q=${encodeURIComponent(carol.email)}&tz=Asia/Tokyo`)).lines.slice(1);
    const at = (line: string) => Date.parse(`${line.slice(-16).replace(' ', 'T')}:00Z`);
    expect(at(tokyo) - at(utc)).toBe(9 * 3_600_000);
    // A zone this runtime does not know is UTC, said so in the header.
    expect((await csv('/settings/users/export.csv?tz=Mars%2FOlympus')).lines[0]).toEndWith(',Created (UTC)');
  });
});

describe('Settings › Groups: search, sort, paging and Export', () => {
  test('searches names and descriptions, sorts by members, names members by name', async () => {
    const res = await admin.get(`/settings/groups?q=${encodeURIComponent(`${TAG} crowd`)}`);
    const html = await res.text();
    expect(res.status).toBe(200);
    expect(html).toContain('1 group matches these filters');
    expect(html).toContain(`<span>${TAG} crowd 00 &lt;${TAG.toLowerCase()}-crowd-0@test.example&gt;</span>`);
    expect(await (await admin.get('/settings/groups?q=Many+people')).text()).toContain(`<strong>${TAG} crowd</strong>`);
    const groupNames = async (query: string) => {
      const html = await (await admin.get(`/settings/groups${query}`)).text();
      return { html, names: [...html.slice(html.indexOf('id="group-table"')).matchAll(/<td data-label="Group"><strong>([^<]+)<\/strong>/g)].map((m) => m[1]) };
    };
    const byMembers = await groupNames(`?q=${encodeURIComponent(TAG)}&sort=-members`);
    expect(byMembers.names).toEqual([`${TAG} crowd`, `${TAG} pair`]);
    expect((await groupNames(`?q=${encodeURIComponent(TAG)}&sort=members`)).names).toEqual([`${TAG} pair`, `${TAG} crowd`]);
    const byMembersHtml = byMembers.html;
    expect(byMembersHtml).toContain('aria-sort="descending"');
    expect(byMembersHtml).toContain('1–2 of 2');
  });

  test('the searched groups as CSV: members and roles by name', async () => {
    const { bom, lines } = await csv(`/settings/groups/export.csv?q=${encodeURIComponent(`${TAG} crowd`)}`);
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Group,Description,Members,Member count,Roles');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toStartWith(`${TAG} crowd,Many people,"${TAG} crowd 00 <${TAG.toLowerCase()}-crowd-0@test.example>; ${TAG} crowd 01 <`);
    expect(lines[1]).toEndWith(',52,');
  });
});

describe('Settings › Users and Groups are for readers of settings', () => {
  test('without settings:read the lists and their downloads are refused', async () => {
    const reader = await makeUser(env, { 'risks:read': 'all' });
    const browser = await signedInBrowser(env, reader.email, reader.password);
    for (const path of ['/settings/users', '/settings/users/export.csv', '/settings/groups', '/settings/groups/export.csv']) {
      expect(await refusalOf(env, () => browser.get(path)), path).toEqual(refusedWith(403, undefined, 'user right settings:read missing'));
    }
  });
});
