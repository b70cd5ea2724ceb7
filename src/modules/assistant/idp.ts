import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { AppContext } from '../../platform/http/context';
import { AppError, unauthorized } from '../../platform/core/errors';
import { platformService } from '../../platform/http/installed';
import type { Actor } from '../../platform/permissions/permissions';
import { loadUserRightsByEmail } from '../people/rights';
import type { AssistantSettings } from './schema';
import { effectiveIdp } from './settings-service';

/**
 * Identity-provider access tokens on /api/mcp (Settings › AI assistants): a JWT signed by a key of the tenant's JWKS,
 * issued by the tenant (v2.0 issuer, or the v1 issuer of Microsoft Entra ID), for the Application ID URI or the client
 * ID, within its validity (one minute of clock skew), holding the required scope in `scp`. It signs in the active user
 * whose verified e-mail the token carries (verifiedEmail); anyone else is refused (401, audited).
 */

/**
 * The tenant's signing keys, cached (jose refetches for an unknown key at most every 30 s). A fetch that fails is
 * remembered too: for the next 30 s tokens are answered 503 at once instead of each one sending a request to an
 * identity provider that is down (or to an address that does not answer).
 */
const KEY_REFETCH_MS = 30_000;
const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
const keysUnreachableUntil = new Map<string, number>();
const keysOf = (url: string) => {
  let set = keySets.get(url);
  if (!set) {
    if (keySets.size > 20) keySets.clear();
    keySets.set(url, (set = createRemoteJWKSet(new URL(url), { cooldownDuration: KEY_REFETCH_MS, timeoutDuration: 5_000 })));
  }
  return set;
};

export const IDP_UNREACHABLE = 'The identity provider\'s signing keys cannot be fetched at the moment, so its tokens cannot be checked; try again shortly, or use an API token.';

/** 503 with the reason, and counted like every refusal (audited, folded, limited per client). */
const providerUnreachable = (reason: string) => new AppError('UNAVAILABLE', IDP_UNREACHABLE, [], `identity-provider token not checked: ${reason}`);

export const idpIssuer = (authority: string, tenantId: string) => `${authority.replace(/\/$/, '')}/${tenantId}/v2.0`;

export function protectedResourceMetadata(ctx: AppContext, settings: AssistantSettings, origin: string) {
  const idp = effectiveIdp(settings);
  return {
    resource: `${origin}/api/mcp`,
    authorization_servers: [idpIssuer(ctx.config.IDP_AUTHORITY, settings.tenantId)],
    scopes_supported: [`${idp.applicationIdUri}/${idp.requiredScope}`],
    bearer_methods_supported: ['header'],
    resource_name: 'GRC service AI-assistant endpoint',
  };
}

function refusal(reason: string) {
  return unauthorized(`identity-provider token refused: ${reason}`);
}

const isAddress = (value: unknown): value is string => typeof value === 'string' && value.includes('@');

/**
 * The address the token vouches for. `preferred_username`, `upn` and a bare `email` are not proof: an identity
 * provider lets a tenant's own administrator (or, for `email`, the person) type any address there, so whoever chose the
 * tenant in the settings could sign in as anyone. Accepted: `email` with `email_verified` (OpenID Connect) or Microsoft
 * Entra ID's `xms_edov` (the address's domain is verified by the tenant) true, or Entra's `verified_primary_email`.
 */
export function verifiedEmail(payload: JWTPayload): string | undefined {
  if (isAddress(payload.email) && (payload.email_verified === true || payload.xms_edov === true)) return payload.email;
  const verified = [payload.verified_primary_email].flat().find(isAddress);
  return verified;
}

export async function idpActor(ctx: AppContext, settings: AssistantSettings, token: string): Promise<Actor> {
  const authority = ctx.config.IDP_AUTHORITY.replace(/\/$/, '');
  const idp = effectiveIdp(settings);
  const issuers = [idpIssuer(authority, settings.tenantId), `https://sts.windows.net/${settings.tenantId}/`];
  const keysUrl = `${authority}/${settings.tenantId}/discovery/v2.0/keys`;
  if ((keysUnreachableUntil.get(keysUrl) ?? 0) > Date.now()) throw providerUnreachable('keys unreachable a moment ago');
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keysOf(keysUrl), {
      issuer: issuers, audience: [idp.applicationIdUri, settings.clientId], clockTolerance: 60, requiredClaims: ['exp'],
    }));
  } catch (error) {
    // No keys could be had (refused connection, time-out, not a key set): the provider's fault, not the token's.
    // (jose reports an answer other than 200 as its generic error.)
    if (error instanceof joseErrors.JWKSTimeout || error instanceof joseErrors.JWKSInvalid || !(error instanceof joseErrors.JOSEError) || error.code === 'ERR_JOSE_GENERIC') {
      keysUnreachableUntil.set(keysUrl, Date.now() + KEY_REFETCH_MS);
      throw providerUnreachable(error instanceof Error ? (error as { code?: string }).code ?? error.name : 'fetch failed');
    }
    throw refusal(error.code);
  }
  const scopes = typeof payload.scp === 'string' ? payload.scp.split(' ') : [];
  if (!scopes.includes(idp.requiredScope)) throw refusal(`scope ${idp.requiredScope} missing`);
  const email = verifiedEmail(payload);
  if (!email) throw refusal('no verified e-mail claim (email with email_verified or xms_edov true, or verified_primary_email)');
  const rights = await loadUserRightsByEmail(ctx.db, email.toLowerCase());
  const actor = rights ? await platformService('screenActor')(ctx.db, rights.userId) : null;
  if (!actor) throw refusal(`no active user ${email}`);
  return { ...actor, via: 'mcp', source: 'identity-provider token' };
}
