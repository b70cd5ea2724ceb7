import { eq, lt, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import type { Db } from '../../../../db/client';
import { oidcSignIns, users } from '../../../../db/schema';
import type { AuditEvent } from '../../../platform/audit/audit';
import { AppError, type ErrorCode } from '../../../platform/core/errors';
import { systemActor, type Actor } from '../../../platform/permissions/permissions';
import { TOO_MANY_REFUSALS, type RefusalLimiter } from '../../../platform/http/refusals';
import { startSession, type NewSession } from '../../../platform/http/sessions';
import { createUser } from '../service';
import { groupHoldsAdministrator } from './break-glass';
import type { StoredOidcSettings } from './schema';

/** How long a started sign-in waits for the provider's answer. */
export const OIDC_SIGN_IN_MINUTES = 10;
const NETWORK_TIMEOUT_SECONDS = 10;
const SCOPE = 'openid email profile';
const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The email_verified claim as true, false or absent (null); some providers send it as the string "true" or "false". */
const emailVerified = (claim: unknown): boolean | null =>
  claim === true || claim === 'true' ? true : claim === false || claim === 'false' ? false : null;

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

export const CALLBACK_PATH = '/sign-in/oidc/callback';

/** The address the provider sends people back to: PUBLIC_URL when set (behind a proxy), else this request's origin. */
export const redirectUriFor = (publicUrl: string | undefined, request: Request): string =>
  `${(publicUrl ?? new URL(request.url).origin).replace(/\/+$/, '')}${CALLBACK_PATH}`;

const insecureAllowed = (issuer: string) => new URL(issuer).protocol === 'http:';

/** OpenID Connect's default client authentication (client_secret_basic) unless the provider only takes the secret in the body. */
function clientAuthentication(metadata: Record<string, unknown>, secret: string): client.ClientAuth {
  const methods = metadata.token_endpoint_auth_methods_supported;
  if (Array.isArray(methods) && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')) return client.ClientSecretPost(secret);
  return client.ClientSecretBasic(secret);
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * Finds the provider at `<issuer>/.well-known/openid-configuration` (Settings › Sign-in, on save) and returns its
 * metadata, which is stored with the settings: sign-ins then need no discovery. The document must name this issuer
 * exactly and offer the authorization code flow with PKCE (S256).
 */
export async function discoverIssuer(issuer: string, clientId: string): Promise<Record<string, unknown>> {
  let found: client.Configuration;
  try {
    found = await client.discovery(new URL(issuer), clientId, undefined, undefined, {
      execute: insecureAllowed(issuer) ? [client.allowInsecureRequests] : [], timeout: NETWORK_TIMEOUT_SECONDS,
    });
  } catch (error) {
    throw new Error(`no OpenID provider answered at ${issuer}/.well-known/openid-configuration (${describe(error)})`);
  }
  const metadata = { ...found.serverMetadata() } as Record<string, unknown>;
  const methods = metadata.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) throw new Error(`the provider at ${issuer} does not support PKCE with S256`);
  if (!metadata.authorization_endpoint || !metadata.token_endpoint || !metadata.jwks_uri) {
    throw new Error(`the provider at ${issuer} names no authorization, token or key endpoint`);
  }
  return metadata;
}

/** One client configuration per saved settings in this process (it also keeps the provider's keys once fetched). */
const configurations = new Map<string, client.Configuration>();

function configurationFor(s: StoredOidcSettings): client.Configuration {
  const key = sha256(JSON.stringify([s.discoveredAt, s.issuer, s.clientId, s.clientSecret]));
  let found = configurations.get(key);
  if (!found) {
    const metadata = s.metadata as unknown as client.ServerMetadata;
    found = new client.Configuration(metadata, s.clientId, undefined, clientAuthentication(s.metadata ?? {}, s.clientSecret));
    found.timeout = NETWORK_TIMEOUT_SECONDS;
    if (insecureAllowed(s.issuer)) client.allowInsecureRequests(found);
    if (configurations.size > 20) configurations.clear();
    configurations.set(key, found);
  }
  return found;
}

/**
 * Starts a sign-in: a fresh state, nonce and PKCE verifier are kept server-side (keyed by the state's hash, for
 * OIDC_SIGN_IN_MINUTES) and the browser is sent to the provider. The caller also puts the state in a short-lived
 * HttpOnly cookie, so the answer is accepted only in the browser that asked for it.
 */
export async function startOidcSignIn(db: Db, s: StoredOidcSettings, redirectUri: string, next: string): Promise<{ url: string; state: string }> {
  const state = client.randomState();
  const nonce = client.randomNonce();
  const codeVerifier = client.randomPKCECodeVerifier();
  await db.transaction(async (tx) => {
    await tx.delete(oidcSignIns).where(lt(oidcSignIns.expiresAt, new Date()));
    await tx.insert(oidcSignIns).values({
      id: sha256(state), nonce, codeVerifier, next, redirectUri, expiresAt: new Date(Date.now() + OIDC_SIGN_IN_MINUTES * 60_000),
    });
  });
  const url = client.buildAuthorizationUrl(configurationFor(s), {
    redirect_uri: redirectUri, scope: SCOPE, state, nonce,
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256',
  });
  return { url: url.toString(), state };
}

/** Messages a person sees when the provider's answer is refused. */
export const OIDC_MESSAGES = {
  jitGroupAdministrators: 'No account can be created for you: the group new people join now holds the Administrator role. Ask an administrator to choose another group in Settings › Sign-in.',
  noState: 'The answer from the identity provider carried no sign-in state, so it cannot be matched to a sign-in started here. Start again from the sign-in page.',
  wrongState: 'This answer from the identity provider does not belong to the sign-in started in this browser. Start again from the sign-in page.',
  stateGone: 'This sign-in has expired or was already completed. Start again from the sign-in page.',
  providerError: 'The identity provider did not sign you in',
  codeRefused: 'The identity provider refused the sign-in code: it was already used or has expired. Start again from the sign-in page.',
  expired: 'The ID token from the identity provider has expired (or is not yet valid). Start again; if this keeps happening, the clock of the identity provider or of this service is wrong.',
  unverifiable: 'The answer from the identity provider could not be verified, so nobody was signed in. Start again; if this keeps happening, tell an administrator.',
  unreachable: 'The identity provider could not be reached. Try again in a moment.',
  noEmail: 'The identity provider sent no e-mail address for you, so no account could be matched. Ask an administrator to check the sign-in settings.',
  unverifiedEmail: 'The identity provider says your e-mail address is not verified, so it cannot be used to sign in. Verify it with the identity provider first.',
  unconfirmedEmail: 'The identity provider did not say your e-mail address is verified, so it cannot be used to sign in here. Ask an administrator.',
  deactivated: 'Your account here is deactivated. Ask an administrator to reactivate it.',
  unknown: 'There is no account here for this e-mail address, and accounts are not created at sign-in. Ask an administrator to create one.',
  notConfigured: 'Sign-in through an identity provider is not set up here. Sign in with your e-mail and password, or ask an administrator.',
} as const;

export interface OidcCallback {
  /** The callback URL as requested (its query carries code, state, iss or error). */
  url: URL;
  /** The state kept in the browser's cookie, if any. */
  cookieState: string | undefined;
  ip: string;
  sessionHours: number;
  refusals: Pick<RefusalLimiter, 'record'>;
}

export interface OidcSignedIn extends NewSession {
  next: string;
}

type ClaimSource = Record<string, unknown>;

/**
 * Completes a sign-in from the provider's answer. Checks, in order: a state is present and matches this browser's
 * cookie; it names a sign-in started here, unexpired and not yet completed (it is used up now, so a replay fails);
 * the code is exchanged with the PKCE verifier; the ID token's signature, issuer, audience, expiry and nonce are
 * validated (openid-client). The e-mail comes from the configured claim (ID token, else UserInfo); an address the
 * provider marks unverified is refused. An active account with that address (any case) is signed in; a deactivated
 * one is refused; an unknown one is created in the configured group when just-in-time creation is on. Every refusal
 * is audited as `signin.failed` (folded like other refusals) and answered with AppError carrying a message for people.
 */
export async function finishOidcSignIn(db: Db, s: StoredOidcSettings, callback: OidcCallback): Promise<OidcSignedIn> {
  const refuse = async (code: ErrorCode, message: string, reason: string, extra: Record<string, unknown> = {}, userId: string | null = null): Promise<never> => {
    const actor: Actor = { ...systemActor('screen'), userId };
    const event: AuditEvent = {
      module: 'security', action: 'signin.failed', recordType: userId ? 'user' : null, recordId: userId,
      details: { method: 'oidc', reason, ip: callback.ip, ...extra },
    };
    const outcome = await callback.refusals.record(callback.ip, actor, event);
    if (outcome.limited) throw new AppError('THROTTLED', TOO_MANY_REFUSALS);
    throw new AppError(code, message);
  };

  const params = callback.url.searchParams;
  const state = params.get('state');
  if (!state) return refuse('INVALID', OIDC_MESSAGES.noState, 'no state');
  if (state.length > 200 || !callback.cookieState || callback.cookieState !== state) return refuse('INVALID', OIDC_MESSAGES.wrongState, 'state does not match this browser');
  const [started] = await db.delete(oidcSignIns).where(eq(oidcSignIns.id, sha256(state))).returning();
  if (!started || started.expiresAt.getTime() < Date.now()) return refuse('INVALID', OIDC_MESSAGES.stateGone, 'state unknown, used or expired');

  const config = configurationFor(s);
  const current = new URL(started.redirectUri);
  current.search = callback.url.search;
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: started.codeVerifier, expectedState: state, expectedNonce: started.nonce, idTokenExpected: true,
    }, { redirect_uri: started.redirectUri });
  } catch (error) {
    if (error instanceof client.AuthorizationResponseError) {
      const detail = error.error_description ?? error.error;
      return refuse('UNAUTHORIZED', `${OIDC_MESSAGES.providerError}: ${detail}.`, 'provider error', { error: error.error });
    }
    if (error instanceof client.ResponseBodyError) {
      if (error.error === 'invalid_grant') return refuse('UNAUTHORIZED', OIDC_MESSAGES.codeRefused, 'code refused', { error: error.error });
      return refuse('UNAUTHORIZED', OIDC_MESSAGES.unverifiable, 'token endpoint error', { error: error.error });
    }
    const code = (error as { code?: unknown }).code;
    if (code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') return refuse('UNAUTHORIZED', OIDC_MESSAGES.expired, 'ID token expired', { error: code });
    if (error instanceof client.ClientError && (code === 'OAUTH_TIMEOUT' || code === 'OAUTH_ABORT' || error.cause instanceof TypeError)) {
      return refuse('UNAVAILABLE', OIDC_MESSAGES.unreachable, 'provider unreachable', { error: describe(error) });
    }
    if (error instanceof TypeError || (error instanceof Error && error.name === 'TimeoutError')) {
      return refuse('UNAVAILABLE', OIDC_MESSAGES.unreachable, 'provider unreachable', { error: describe(error) });
    }
    return refuse('UNAUTHORIZED', OIDC_MESSAGES.unverifiable, 'ID token not valid', { error: typeof code === 'string' ? code : describe(error) });
  }

  const idClaims = (tokens.claims() ?? {}) as ClaimSource;
  const subject = String(idClaims.sub ?? '');
  let source: ClaimSource = idClaims;
  if (typeof idClaims[s.emailClaim] !== 'string' && tokens.access_token && s.metadata?.userinfo_endpoint) {
    try {
      source = (await client.fetchUserInfo(config, tokens.access_token, subject)) as ClaimSource;
    } catch (error) {
      return refuse('UNAUTHORIZED', OIDC_MESSAGES.unverifiable, 'userinfo refused', { error: describe(error), subject });
    }
  }
  const raw = source[s.emailClaim];
  const email = typeof raw === 'string' ? raw.trim() : '';
  if (!email || email.length > 254 || !EMAIL_PATTERN.test(email)) return refuse('FORBIDDEN', OIDC_MESSAGES.noEmail, 'no e-mail claim', { claim: s.emailClaim, subject });
  // email_verified speaks for the email claim only: an address from another claim is as good as the administrator's trust.
  const verified = s.emailClaim === 'email' ? emailVerified(source.email_verified ?? idClaims.email_verified) : null;
  // Accounts are matched by e-mail: one the provider has not verified could be anyone's.
  if (verified === false || (verified === null && !s.trustUnverifiedEmail)) {
    if (verified === false) return refuse('FORBIDDEN', OIDC_MESSAGES.unverifiedEmail, 'e-mail not verified', { email, subject });
    return refuse('FORBIDDEN', OIDC_MESSAGES.unconfirmedEmail, 'e-mail not marked verified', { email, subject });
  }

  const [user] = await db.select({ id: users.id, status: users.status }).from(users).where(sql`lower(${users.email}) = lower(${email})`);
  if (user && user.status !== 'active') return refuse('FORBIDDEN', OIDC_MESSAGES.deactivated, 'account deactivated', { email, subject }, user.id);
  if (!user && !s.jitEnabled) return refuse('FORBIDDEN', OIDC_MESSAGES.unknown, 'unknown e-mail', { email, subject });
  // Checked again here: the group may have been given the Administrator role since the settings were saved.
  if (!user && (await groupHoldsAdministrator(db, s.jitGroupId))) {
    return refuse('FORBIDDEN', OIDC_MESSAGES.jitGroupAdministrators, 'just-in-time group holds the Administrator role', { email, subject });
  }

  const name = typeof source.name === 'string' && source.name.trim() ? source.name.trim().slice(0, 200) : email;
  const session = await db.transaction(async (tx) => {
    let id = user?.id;
    if (!id) {
      // Just-in-time: created by the sign-in itself, with the provider named as the source in the Audit Log and History.
      const jit: Actor = { ...systemActor('screen'), source: `just-in-time creation at OpenID Connect sign-in (${s.issuer})` };
      ({ id } = await createUser(tx, jit, { email, name, groupIds: [s.jitGroupId] }));
    }
    return startSession(tx, id, email, callback.sessionHours, {
      method: 'oidc', issuer: s.issuer, subject, ip: callback.ip, ...(user ? {} : { createdJustInTime: true }),
    }, 'oidc');
  });
  return { ...session, next: started.next };
}
