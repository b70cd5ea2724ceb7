import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { AppContext } from '../../platform/http/context';
import { unauthorized } from '../../platform/core/errors';
import { platformService } from '../../platform/http/installed';
import type { Actor } from '../../platform/permissions/permissions';
import { loadUserRightsByEmail } from '../people/rights';
import type { AssistantSettings } from './schema';
import { effectiveIdp } from './settings-service';

/**
 * Identity-provider access tokens on /api/mcp (Settings › AI assistants): a JWT signed by a key of the tenant's JWKS,
 * issued by the tenant (v2.0 issuer, or the v1 issuer of Microsoft Entra ID), for the Application ID URI or the client
 * ID, within its validity (one minute of clock skew), holding the required scope in `scp`. It signs in the active user
 * whose e-mail is the token's `email`, `preferred_username` or `upn`; anyone else is refused (401, audited).
 */

const keySets = new Map<string, ReturnType<typeof createRemoteJWKSet>>();
const keysOf = (url: string) => {
  let set = keySets.get(url);
  if (!set) keySets.set(url, (set = createRemoteJWKSet(new URL(url), { cooldownDuration: 30_000 })));
  return set;
};

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

export async function idpActor(ctx: AppContext, settings: AssistantSettings, token: string): Promise<Actor> {
  const authority = ctx.config.IDP_AUTHORITY.replace(/\/$/, '');
  const idp = effectiveIdp(settings);
  const issuers = [idpIssuer(authority, settings.tenantId), `https://sts.windows.net/${settings.tenantId}/`];
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keysOf(`${authority}/${settings.tenantId}/discovery/v2.0/keys`), {
      issuer: issuers, audience: [idp.applicationIdUri, settings.clientId], clockTolerance: 60, requiredClaims: ['exp'],
    }));
  } catch (error) {
    if (error instanceof joseErrors.JOSEError) throw refusal(error.code);
    throw error;
  }
  const scopes = typeof payload.scp === 'string' ? payload.scp.split(' ') : [];
  if (!scopes.includes(idp.requiredScope)) throw refusal(`scope ${idp.requiredScope} missing`);
  const email = [payload.email, payload.preferred_username, payload.upn].find((v): v is string => typeof v === 'string' && v.includes('@'));
  if (!email) throw refusal('no e-mail, preferred_username or upn claim');
  const rights = await loadUserRightsByEmail(ctx.db, email.toLowerCase());
  const actor = rights ? await platformService('screenActor')(ctx.db, rights.userId) : null;
  if (!actor) throw refusal(`no active user ${email}`);
  return { ...actor, via: 'mcp', source: 'identity-provider token' };
}
