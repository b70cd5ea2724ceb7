import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq, gt, max } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createApp } from '../../src/app';
import { saveAssistantSettings } from '../../src/modules/assistant/settings-service';
import { IDP_UNREACHABLE } from '../../src/modules/assistant/idp';
import { DEFAULT_ASSISTANT_SETTINGS } from '../../src/modules/assistant/schema';
import { startTestEnv, ADMIN_EMAIL, type TestEnv } from '../helpers/app';
import { adminActor, makeUser } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

/**
 * Identity-provider access tokens, against keys made here and a JWKS served on loopback as the tenant's: the right
 * token signs its user in; a wrong audience, issuer, scope, signature or expiry, or an unknown user, is refused 401
 * with the RFC 9728 pointer.
 */

const TENANT = 'contoso-tenant';
const CLIENT = 'client-123';
/** A tenant whose key set answers 503, as an identity provider that is down. */
const DOWN_TENANT = 'down-tenant';
let downFetches = 0;
let env: TestEnv;
let jwks: ReturnType<typeof Bun.serve>;
let server: ReturnType<ReturnType<typeof createApp>['listen']>;
let base: string;
let authority: string;
let signing: CryptoKey;
let stranger: CryptoKey;

beforeAll(async () => {
  const keys = await generateKeyPair('RS256');
  signing = keys.privateKey;
  stranger = (await generateKeyPair('RS256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(keys.publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  jwks = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: (req) => {
    const path = new URL(req.url).pathname;
    if (path === `/${DOWN_TENANT}/discovery/v2.0/keys`) {
      downFetches += 1;
      return new Response('maintenance', { status: 503 });
    }
    return path === `/${TENANT}/discovery/v2.0/keys` ? Response.json({ keys: [jwk] }) : new Response('no', { status: 404 });
  } });
  authority = `http://127.0.0.1:${jwks.port}`;
  env = await startTestEnv({ IDP_AUTHORITY: authority });
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, {
    ...DEFAULT_ASSISTANT_SETTINGS, enabled: true, acceptIdpTokens: true, tenantId: TENANT, clientId: CLIENT,
  }));
  server = createApp(env.ctx).listen({ port: 0, hostname: '127.0.0.1' });
  base = `http://127.0.0.1:${server.server!.port}`;
}, 60_000);

afterAll(async () => {
  await server?.stop();
  jwks?.stop(true);
});

const token = (claims: Record<string, unknown> = {}, options: { key?: CryptoKey; expires?: string; issuer?: string; audience?: string } = {}) =>
  new SignJWT({ scp: 'Mcp.Access', email: ADMIN_EMAIL, email_verified: true, ...claims })
    .setProtectedHeader({ alg: 'RS256', kid: 'test-key' })
    .setIssuer(options.issuer ?? `${authority}/${TENANT}/v2.0`)
    .setAudience(options.audience ?? `api://${CLIENT}`)
    .setIssuedAt()
    .setExpirationTime(options.expires ?? '10m')
    .sign(options.key ?? signing);

const listTools = (bearer: string) => fetch(`${base}/api/mcp`, {
  method: 'POST',
  headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
});

describe('identity-provider access tokens', () => {
  test('a token from the tenant for the application, with the scope, signs its user in', async () => {
    const res = await listTools(await token());
    expect(res.status, await res.clone().text()).toBe(200);
    expect(((await res.json()) as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(5);
    const byClientId = await listTools(await token({}, { audience: CLIENT }));
    expect(byClientId.status).toBe(200);
  });

  test('wrong audience, issuer, scope, signature or expiry, or an unknown user: 401 pointing at the resource metadata', async () => {
    const other = await makeUser(env, { 'risks:read': 'own' });
    const cases: [string, string][] = [
      ['audience', await token({}, { audience: 'api://someone-else' })],
      ['issuer', await token({}, { issuer: `${authority}/other-tenant/v2.0` })],
      ['scope', await token({ scp: 'User.Read' })],
      ['signature', await token({}, { key: stranger })],
      ['expiry', await token({}, { expires: '-5m' })],
      ['unknown user', await token({ email: 'nobody@test.example' })],
    ];
    for (const [what, bad] of cases) {
      const res = await listTools(bad);
      expect(res.status, what).toBe(401);
      expect(res.headers.get('www-authenticate'), what).toBe(`Bearer realm="grc-service", error="invalid_token", resource_metadata="${base}/.well-known/oauth-protected-resource"`);
    }
    expect((await listTools(await token({ email: other.email }))).status).toBe(200);
  });

  test('only a verified e-mail claim names the user: email with email_verified or xms_edov, or verified_primary_email', async () => {
    const seqNow = async () => (await env.ctx.db.select({ seq: max(auditLog.seq) }).from(auditLog))[0].seq ?? 0;
    const reasonsSince = async (since: number) => (await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
      .where(and(gt(auditLog.seq, since), eq(auditLog.action, 'permission.denied'))).orderBy(desc(auditLog.seq))).map((e) => (e.details as { reason: string }).reason);
    const NO_VERIFIED = 'identity-provider token refused: no verified e-mail claim (email with email_verified or xms_edov true, or verified_primary_email)';
    // What a tenant's own administrator (or the person) can type: never enough to become someone here.
    const unverified: [string, Record<string, unknown>][] = [
      ['preferred_username', { email: undefined, email_verified: undefined, preferred_username: ADMIN_EMAIL }],
      ['upn', { email: undefined, email_verified: undefined, upn: ADMIN_EMAIL }],
      ['email without email_verified', { email_verified: undefined }],
      ['email_verified false', { email_verified: false }],
      ['email_verified as text', { email_verified: 'true' }],
    ];
    for (const [what, claims] of unverified) {
      const since = await seqNow();
      const res = await listTools(await token(claims));
      expect(res.status, what).toBe(401);
      expect(await reasonsSince(since), what).toEqual([NO_VERIFIED]);
    }
    for (const [what, claims] of [
      ['xms_edov', { email_verified: undefined, xms_edov: true }],
      ['verified_primary_email', { email: undefined, email_verified: undefined, verified_primary_email: [ADMIN_EMAIL] }],
    ] as [string, Record<string, unknown>][]) {
      expect((await listTools(await token(claims))).status, what).toBe(200);
    }
  });

  test('with the provider unreachable: 503 saying so (not a database error), audited, and one outbound fetch per 30 s however many tokens', async () => {
    const admin = await adminActor(env);
    const down = { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true, acceptIdpTokens: true, tenantId: DOWN_TENANT, clientId: CLIENT };
    await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, down));
    try {
      const since = (await env.ctx.db.select({ seq: max(auditLog.seq) }).from(auditLog))[0].seq ?? 0;
      for (let i = 0; i < 5; i += 1) {
        const res = await listTools(await token({}, { issuer: `${authority}/${DOWN_TENANT}/v2.0` }));
        expect(res.status).toBe(503);
        expect(((await res.json()) as { error: string }).error).toBe(IDP_UNREACHABLE);
      }
      expect(downFetches).toBe(1);
      const reasons = (await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
        .where(and(gt(auditLog.seq, since), eq(auditLog.action, 'permission.denied')))).map((e) => (e.details as { reason: string }).reason);
      expect(reasons).toHaveLength(5);
      expect(reasons[0]).toStartWith('identity-provider token not checked: ');
      expect(reasons.slice(1)).toEqual(Array(4).fill('identity-provider token not checked: keys unreachable a moment ago'));
    } finally {
      await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...down, tenantId: TENANT }));
    }
  });

  test('the protected resource metadata names the tenant and the scope while the setting is on', async () => {
    const res = await fetch(`${base}/.well-known/oauth-protected-resource`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      resource: `${base}/api/mcp`, authorization_servers: [`${authority}/${TENANT}/v2.0`], scopes_supported: [`api://${CLIENT}/Mcp.Access`],
      bearer_methods_supported: ['header'], resource_name: 'GRC service AI-assistant endpoint',
    });
    const admin = await adminActor(env);
    await env.ctx.db.transaction((tx) => saveAssistantSettings(tx, admin, { ...DEFAULT_ASSISTANT_SETTINGS, enabled: true }));
    expect(await refusalOf(env, async () => fetch(`${base}/.well-known/oauth-protected-resource`))).toEqual(refusedWith(404, undefined));
    expect((await listTools(await token())).status).toBe(401);
  });
});
