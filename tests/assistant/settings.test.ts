import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import { auditLog, outbox, settings } from '../../db/schema';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser, type Browser } from '../helpers/browser';
import { makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

let env: TestEnv;
let admin: Browser;
beforeAll(async () => {
  env = await testEnv();
  admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
});

describe('Settings › AI assistants', () => {
  test('an administrator saves the settings: audited, and every administrator is emailed', async () => {
    const res = await admin.post('/settings/assistants', { enabled: 'on', includePrivacy: '', acceptIdpTokens: '', tenantId: '', clientId: '', applicationIdUri: '', requiredScope: '' });
    expect(res.status, await res.clone().text()).toBe(303);
    const page = await (await admin.get('/settings/assistants?done=saved')).text();
    expect(page).toContain('AI assistant settings saved');
    expect(page).toMatch(/name="enabled" value="on" checked/);
    const [entry] = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordType, 'setting'), eq(auditLog.recordId, 'assistant'))).orderBy(desc(auditLog.seq)).limit(1);
    expect(entry.details).toMatchObject({ changes: { enabled: { before: false, after: true } } });
    const [mail] = await env.ctx.db.select().from(outbox).where(eq(outbox.subject, 'Security alert: AI assistant settings saved')).orderBy(desc(outbox.id)).limit(1);
    expect(mail.recipients).toContain(ADMIN_EMAIL);
    await admin.post('/settings/assistants', { enabled: '' });
  });

  test('identity-provider tokens need the tenant and client IDs; the URI and scope default as the spec says', async () => {
    const refused = await admin.post('/settings/assistants', { acceptIdpTokens: 'on', tenantId: '', clientId: '' });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    expect(page).toContain('needed to accept identity-provider access tokens');
    const saved = await admin.post('/settings/assistants', { acceptIdpTokens: 'on', tenantId: 'contoso-tenant', clientId: 'client-123' });
    expect(saved.status).toBe(303);
    expect(await (await admin.get('/settings/assistants')).text()).toContain('Blank gives api://client-123');
    await admin.post('/settings/assistants', {});
  });

  test('a settings manager (settings:update at level all, not every right) cannot save them: 403, the reason audited, nothing changed', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:create': 'all', 'settings:update': 'all' });
    const browser = await signedInBrowser(env, manager.email, manager.password);
    expect(await (await browser.get('/settings/assistants')).text()).toContain('Only administrators change these settings.');
    const before = (await env.ctx.db.select().from(settings).where(eq(settings.key, 'assistant')))[0]?.value ?? null;
    const refused = await browser.post('/settings/assistants', { enabled: 'on', acceptIdpTokens: 'on', tenantId: 'their-own-tenant', clientId: 'their-app' });
    expect(refused.status).toBe(403);
    const [denial] = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(desc(auditLog.seq)).limit(1);
    expect((denial.details as { reason: string }).reason).toStartWith('Changing AI assistant settings needs every right at level all');
    expect((await env.ctx.db.select().from(settings).where(eq(settings.key, 'assistant')))[0]?.value ?? null).toEqual(before);
  });

  test('people with settings:read see the page but cannot save it', async () => {
    const reader = await makeUser(env, { 'settings:read': 'all' });
    const browser = await signedInBrowser(env, reader.email, reader.password);
    const page = await (await browser.get('/settings/assistants')).text();
    expect(page).toContain('Only administrators change these settings.');
    const refused = await browser.post('/settings/assistants', { enabled: 'on' });
    expect(refused.status).toBe(403);
    const other = await makeUser(env, { 'risks:read': 'all' });
    expect(await refusalOf(env, async () => (await signedInBrowser(env, other.email, other.password)).get('/settings/assistants'))).toEqual(refusedWith(403, undefined, 'user right settings:read missing'));
  });
});
