import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq } from 'drizzle-orm';
import { apiTokens, auditLog } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { bearer, makeToken, makeUser, unique } from '../helpers/factories';
import { signedInBrowser } from '../helpers/browser';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

const tokenRights = { 'apiTokens:read': 'own', 'apiTokens:create': 'own', 'apiTokens:update': 'own', 'risks:read': 'all' } as const;

describe('Settings › API tokens screen', () => {
  test('a user at level own sees only their own tokens; level all sees everyone\'s', async () => {
    const owner = await makeUser(env, tokenRights);
    const other = await makeUser(env, tokenRights);
    const mineName = unique('mine');
    const theirsName = unique('theirs');
    await makeToken(env, await owner.actor(), ['risks:read'], mineName);
    await makeToken(env, await other.actor(), ['risks:read'], theirsName);

    const ownView = await (await (await signedInBrowser(env, owner.email, owner.password)).get('/settings/api-tokens')).text();
    expect(ownView).toContain(mineName);
    expect(ownView).not.toContain(theirsName);

    const auditor = await makeUser(env, { 'apiTokens:read': 'all' });
    const res = await (await signedInBrowser(env, auditor.email, auditor.password)).get('/settings/api-tokens?page=1');
    expect(res.status).toBe(200);
    const allView = await res.text();
    expect(allView).toContain(mineName);
    expect(allView).toContain(theirsName);
    // Every header but Scopes sorts the list (a link naming the column).
    expect(allView).toContain('>Scopes</th>');
    for (const header of ['Name', 'Created by', 'Created', 'Last used', 'Expires', 'Status']) expect(allView).toContain(`<span>${header}</span><span class="sort-mark"`);
    // Without apiTokens:create there is no create form; without update, no revoke buttons.
    expect(allView).not.toContain('Create token');
    expect(allView).not.toContain('/revoke"');
  });

  test('creating shows the secret once, offers only the scopes the user holds, and the token works', async () => {
    const user = await makeUser(env, tokenRights);
    const b = await signedInBrowser(env, user.email, user.password);
    const form = await (await b.get('/settings/api-tokens')).text();
    expect(form).toContain('value="risks:read"');
    expect(form).not.toContain('value="risks:create"');
    const name = unique('Loader (page test)');
    const res = await b.post('/settings/api-tokens', { name, scopes: ['risks:read'], expiresAt: '' });
    expect(res.status, await res.clone().text()).toBe(201);
    const html = await res.text();
    const secret = /class="secret">(aat_[A-Za-z0-9_-]+)</.exec(html)?.[1];
    expect(secret).toBeDefined();
    expect(html).toContain(name);
    expect((await env.request('/api/v1/risks', bearer(secret!))).status).toBe(200);

    const later = await (await b.get('/settings/api-tokens')).text();
    expect(later).toContain(name);
    expect(later).not.toContain(secret!);
    const [row] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.name, name));
    expect(row.tokenHash).not.toBe(secret);
  });

  test('a refused create re-renders the form with the problems inline and keeps what was typed', async () => {
    const user = await makeUser(env, tokenRights);
    const b = await signedInBrowser(env, user.email, user.password);
    const noScope = await b.post('/settings/api-tokens', { name: 'no scopes" autofocus onfocus="alert(1)' });
    expect(noScope.status).toBe(400);
    const html = await noScope.text();
    expect(html).toContain('tick at least one scope');
    expect(html).toContain('value="no scopes&#34; autofocus onfocus=&#34;alert(1)"');
    expect(html).not.toContain('onfocus="alert');
    const beyond = await b.post('/settings/api-tokens', { name: 'too much', scopes: ['risks:delete'] });
    expect(beyond.status).toBe(400);
    expect(await beyond.text()).toContain('exceed your own rights');
  });

  test('revoking asks for confirmation, works, stops the token, and is audited', async () => {
    const user = await makeUser(env, tokenRights);
    const name = unique('to revoke');
    const secret = await makeToken(env, await user.actor(), ['risks:read'], name);
    const [row] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.name, name));
    const b = await signedInBrowser(env, user.email, user.password);
    const confirm = await b.get(`/settings/api-tokens/${row.id}/revoke`);
    expect(confirm.status).toBe(200);
    expect(await confirm.text()).toContain('cannot be undone');
    const res = await b.post(`/settings/api-tokens/${row.id}/revoke`, {});
    expect(res.status, await res.clone().text()).toBe(303);
    expect((await env.request('/api/v1/risks', bearer(secret))).status).toBe(401);
    const list = await (await b.get('/settings/api-tokens?done=revoked')).text();
    expect(list).toContain('Token revoked');
    expect(list).toContain('status-revoked');
    const audit = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.action, 'revoke'), eq(auditLog.recordId, row.id)));
    expect(audit).toHaveLength(1);
    expect(audit[0].actorUserId).toBe(user.id);
    expect(audit[0].via).toBe('screen');
  });

  test("revoking another user's token at level own is refused", async () => {
    const owner = await makeUser(env, tokenRights);
    const name = unique('not yours');
    await makeToken(env, await owner.actor(), ['risks:read'], name);
    const [row] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.name, name));
    const intruder = await makeUser(env, tokenRights);
    const b = await signedInBrowser(env, intruder.email, intruder.password);
    const res = await b.post(`/settings/api-tokens/${row.id}/revoke`, {});
    expect([403, 404]).toContain(res.status);
    const [after] = await env.ctx.db.select().from(apiTokens).where(eq(apiTokens.id, row.id));
    expect(after.revokedAt).toBeNull();
  });

  test('the maximum token lifetime is changed on the Sessions page by an administrator only', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const bad = await admin.post('/settings/sessions', { maxLifetimeDays: 'soon' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('must be an integer');
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const rb = await signedInBrowser(env, reader.email, reader.password);
    expect(await refusalOf(env, async () => rb.post('/settings/sessions', { maxLifetimeDays: '30' }))).toEqual(refusedWith(403, undefined, 'user right settings:update missing'));
    const ok = await admin.post('/settings/sessions', { maxLifetimeDays: '365' });
    expect(ok.status).toBe(303);
    expect(await (await admin.get('/settings/sessions')).text()).toContain('value="365"');
  });
});
