import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { apiTokens } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeToken, makeUser, unique, type TestUser } from '../helpers/factories';
import { csvOf, inOrder, listScreen } from '../helpers/lists';
import { revokeToken } from '../../src/modules/apiTokens/service';

/**
 * Settings › API tokens and the active sessions of Settings › Sessions as lists: search, a select each (a token's
 * status and creator; how a session signed in), headers that sort with the sort in the address, paging with the total,
 * and Export CSV of the filtered rows (names, scopes in words, times in the reader's zone). A token the reader may not
 * see is never listed nor exported.
 */

let env: TestEnv;
let admin: Browser;
const TAG = unique('Tokened');
const tokenRights = { 'apiTokens:read': 'own', 'apiTokens:create': 'own', 'apiTokens:update': 'own', 'risks:read': 'all', 'controls:read': 'all' } as const;
let owner: TestUser;
let other: TestUser;
const names = { apple: `${TAG} apple`, banana: `${TAG} banana`, cherry: `${TAG} cherry` };

beforeAll(async () => {
  env = await testEnv();
  owner = await makeUser(env, tokenRights, `${TAG.toLowerCase()}-owner`);
  other = await makeUser(env, tokenRights, `${TAG.toLowerCase()}-other`);
  await makeToken(env, await owner.actor(), ['risks:read'], names.banana);
  await makeToken(env, await owner.actor(), ['risks:read', 'controls:read'], names.apple);
  await makeToken(env, await other.actor(), ['controls:read'], names.cherry);
  const [{ id }] = await env.ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.name, names.banana));
  const actor = await owner.actor(); // read before the transaction: PGlite's one connection is the transaction's
  await env.ctx.db.transaction(async (tx) => revokeToken(tx, actor, id));
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
}, 60_000);

const q = encodeURIComponent(TAG);

describe('Settings › API tokens as a list', () => {
  test('searches names, creators and scopes; filters by status and by creator', async () => {
    const all = await listScreen(admin, `/settings/api-tokens?q=${q}`, 'token');
    expect(all.status).toBe(200);
    expect(all.total).toBe('3 tokens match these filters');
    const revoked = await listScreen(admin, `/settings/api-tokens?q=${q}&status=revoked`, 'token');
    expect(inOrder(revoked.rows, Object.values(names))).toEqual([names.banana]);
    expect(revoked.rows[0]).toContain('Revoked');
    const active = await listScreen(admin, `/settings/api-tokens?q=${q}&status=active`, 'token');
    expect(inOrder(active.rows, Object.values(names)).sort()).toEqual([names.apple, names.cherry]);
    expect((await listScreen(admin, `/settings/api-tokens?q=${q}&status=expired`, 'token')).rows).toEqual(['No tokens match these filters.']);
    // Scopes read as words, and the search finds them.
    expect(active.rows.find((r) => r.includes(names.apple))).toContain('Controls: read');
    const byCreator = await listScreen(admin, `/settings/api-tokens?q=${q}&createdBy=${other.id}`, 'token');
    expect(inOrder(byCreator.rows, Object.values(names))).toEqual([names.cherry]);
    expect(byCreator.html).toContain(`<option value="${other.id}" selected>${TAG.toLowerCase()}-other &lt;${other.email}&gt;</option>`);
  });

  test('newest first unless a header says otherwise; the sort is kept in the address', async () => {
    const newest = await listScreen(admin, `/settings/api-tokens?q=${q}`, 'token');
    expect(inOrder(newest.rows, Object.values(names))).toEqual([names.cherry, names.apple, names.banana]);
    expect(newest.html).toContain('<th scope="col" aria-sort="descending"><a href="/settings/api-tokens?q=' + q + '&sort=createdAt" class="sort"');
    const byName = await listScreen(admin, `/settings/api-tokens?q=${q}&sort=name`, 'token');
    expect(inOrder(byName.rows, Object.values(names))).toEqual([names.apple, names.banana, names.cherry]);
    const byStatus = await listScreen(admin, `/settings/api-tokens?q=${q}&sort=-status`, 'token');
    expect(inOrder(byStatus.rows, Object.values(names))[0]).toBe(names.banana);
    expect(byStatus.pager).toBe('1–3 of 3');
  });

  test('Export: the filtered tokens in the list order, creators by name, scopes in words, times in the zone the link carries', async () => {
    const screen = await listScreen(admin, `/settings/api-tokens?q=${q}&status=active&sort=name`, 'token');
    expect(screen.html).toContain(`href="/settings/api-tokens/export.csv?q=${q}&status=active&sort=name" download="" data-reader-zone=""`);
    const { bom, lines } = await csvOf(admin, `/settings/api-tokens/export.csv?q=${q}&status=active&sort=name&tz=Asia%2FTokyo`, 'api-tokens');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Name,Scopes,Created by,Created (Asia/Tokyo),Last used (Asia/Tokyo),Last valid day,Status');
    expect(lines).toHaveLength(3);
    expect(lines[1]).toMatch(new RegExp(`^${names.apple},"Risks: read; Controls: read",${TAG.toLowerCase()}-owner <${owner.email}>,\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2},,\\d{4}-\\d{2}-\\d{2},Active$`));
    expect(lines[2]).toStartWith(`${names.cherry},Controls: read,${TAG.toLowerCase()}-other <`);
  });

  test('a reader at level own lists and exports only their own tokens', async () => {
    const b = await signedInBrowser(env, owner.email, owner.password);
    const own = await listScreen(b, `/settings/api-tokens?q=${q}`, 'token');
    expect(inOrder(own.rows, Object.values(names)).sort()).toEqual([names.apple, names.banana]);
    const { lines } = await csvOf(b, `/settings/api-tokens/export.csv?q=${q}`, 'api-tokens');
    expect(lines.join('\n')).not.toContain(names.cherry);
    expect(lines).toHaveLength(3);
    // Asking for another's tokens by creator finds nothing: that creator is not one the filter takes.
    expect((await csvOf(b, `/settings/api-tokens/export.csv?q=${q}&createdBy=${other.id}`, 'api-tokens')).lines).toHaveLength(3);
  });
});

describe('Settings › Sessions: the active sessions as a list', () => {
  test('searched, filtered by how they signed in, sorted by name, exported with names and times in the reader zone', async () => {
    const SESSIONS = unique('sessioned').toLowerCase();
    const q = encodeURIComponent(SESSIONS);
    const ann = await makeUser(env, { 'risks:read': 'all' }, `${SESSIONS}-ann`);
    const zed = await makeUser(env, { 'risks:read': 'all' }, `${SESSIONS}-zed`);
    await signedInBrowser(env, ann.email, ann.password);
    await signedInBrowser(env, zed.email, zed.password);
    const people = [`${SESSIONS}-ann`, `${SESSIONS}-zed`];

    const screen = await listScreen(admin, `/settings/sessions?q=${q}&sort=-name`, 'session');
    expect(screen.status).toBe(200);
    expect(screen.total).toBe('2 active sessions match these filters');
    expect(inOrder(screen.rows, people)).toEqual([people[1], people[0]]);
    expect(screen.rows[0]).toContain('Password');
    expect((await listScreen(admin, `/settings/sessions?q=${q}&sort=name`, 'session')).rows[0]).toContain(people[0]);
    expect((await listScreen(admin, `/settings/sessions?q=${q}&signedInWith=oidc`, 'session')).rows).toEqual(['No active sessions match these filters.']);
    expect(screen.html).toContain(`href="/settings/sessions/export.csv?q=${q}&sort=-name" download="" data-reader-zone=""`);

    const { bom, lines } = await csvOf(admin, `/settings/sessions/export.csv?q=${q}&sort=-name&tz=Europe%2FParis`, 'sessions');
    expect(bom).toEqual([0xef, 0xbb, 0xbf]);
    expect(lines[0]).toBe('Name,Email,Signed in with,Signed in (Europe/Paris),Last request (Europe/Paris),Expires (Europe/Paris)');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(','))).toEqual([`${people[1]},${zed.email},Password`, `${people[0]},${ann.email},Password`]);

    // Sessions are for administrators: a settings reader at level own sees neither the list nor its download.
    const reader = await makeUser(env, { 'settings:read': 'own' });
    const b = await signedInBrowser(env, reader.email, reader.password);
    expect(await (await b.get('/settings/sessions')).text()).not.toContain('id="session-table"');
    expect((await b.get('/settings/sessions/export.csv')).status).toBe(403);
  });
});
