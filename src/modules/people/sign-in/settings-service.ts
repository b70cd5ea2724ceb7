import { and, eq, inArray, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import type { Db, DbOrTx } from '../../../../db/client';
import { ADMINISTRATOR_ROLE } from '../../../platform/modules/reference-data';
import { groups, settings, users } from '../../../../db/schema';
import { appendAudit } from '../../../platform/audit/audit';
import { AppError, conflict, forbidden, invalid, notFound, type FieldProblem } from '../../../platform/core/errors';
import { recordChange } from '../../../platform/audit/history';
import { queueMail } from '../../../platform/mail/mail';
import { requirePermission, systemActor, type Actor } from '../../../platform/permissions/permissions';
import { auditEveryRefusal, decoyPasswordCheck, reserveAttempt, signIn, THROTTLED_MESSAGE, type NewSession, type SecondStep } from '../../../platform/http/sessions';
import { openSecret, sealSecret } from '../../../platform/http/sealed-secrets';
import type { Config } from '../../../config';
import { administratorEmails, requireEveryRight } from '../service';
import { SSO_ONLY_KEY, ssoOnly, administratorCondition, endSessionsOutsideBreakGlass, countBreakGlassAdministrators, isBreakGlassAdministrator, requireBreakGlassRemains, groupHoldsAdministrator } from './break-glass';
import { discoverIssuer } from './oidc';
import { DEFAULT_OIDC_SETTINGS, type OidcSettingsInput, type OidcSettingsView, type StoredOidcSettings } from './schema';

export const OIDC_SETTINGS_KEY = 'signIn.oidc';
const CLIENT_SECRET_PURPOSE = 'oidc_client_secret';
type Keyed = Pick<Config, 'ENCRYPTION_KEY'>;
export const SSO_ONLY_NEEDS_BREAK_GLASS =
  'Only single sign-on can be required once at least one active administrator is marked break-glass (on their user page), so someone can still sign in if the identity provider is down.';
export const SSO_ONLY_NEEDS_OIDC = 'Only single sign-on can be required once OpenID Connect sign-in is turned on and configured.';

/** The stored OpenID Connect settings, the client secret included (never hand these to a page). */
export async function oidcSettings(db: DbOrTx): Promise<StoredOidcSettings> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, OIDC_SETTINGS_KEY));
  return { ...DEFAULT_OIDC_SETTINGS, ...((row?.value as Partial<StoredOidcSettings> | undefined) ?? {}) };
}

/**
 * The settings with the client secret unsealed, for talking to the provider (the stored secret is sealed with
 * ENCRYPTION_KEY when the server has one); UNAVAILABLE when the key cannot open it.
 */
export function withClientSecret(config: Keyed, s: StoredOidcSettings): StoredOidcSettings {
  if (!s.clientSecret) return s;
  return { ...s, clientSecret: openSecret(config, CLIENT_SECRET_PURPOSE, s.clientSecret, 'OpenID Connect client secret', 'An administrator enters it again in Settings › Sign-in.') };
}

/** OpenID Connect sign-in is offered: turned on, with the provider found when the settings were saved. */
export const oidcReady = (s: StoredOidcSettings): boolean =>
  s.enabled && Boolean(s.issuer && s.clientId && s.clientSecret && s.metadata);

/** Opening Settings › Sign-in needs settings:read; the secret is never part of what it shows. */
export async function readSignInSettings(db: DbOrTx, actor: Actor): Promise<OidcSettingsView> {
  requirePermission(actor, 'settings:read');
  const [stored, only] = await Promise.all([oidcSettings(db), ssoOnly(db)]);
  const { clientSecret, metadata: _metadata, ...rest } = stored;
  return { ...rest, clientSecretSet: clientSecret !== '', ssoOnly: only };
}

function requireAdministrator(actor: Actor, what: string): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], `settings:update at level all needed to ${what}`), { actor });
  }
}

/** Who may sign in, and through which provider, is an administrator's decision (requireEveryRight says why). */
function requireSignInAdministrator(actor: Actor): void {
  requireAdministrator(actor, 'change sign-in settings');
  requireEveryRight(actor, 'Changing sign-in settings');
}

const CLAIM_PATTERN = /^[A-Za-z0-9_.:-]{1,100}$/;
const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** An issuer is an https URL; plain http only on this machine's loopback (a provider run locally or by the tests). */
export function issuerProblem(issuer: string): string | null {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return 'must be a URL such as https://login.example.com/realms/staff';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return null;
  return 'must start with https:// (plain http only on a loopback address)';
}

/** Marks or unmarks an administrator as break-glass (settings:update at level all); audited with History. */
export async function setBreakGlass(tx: DbOrTx, actor: Actor, userId: string, breakGlass: boolean): Promise<void> {
  requireAdministrator(actor, 'mark break-glass administrators');
  const [user] = await tx.select({ id: users.id, email: users.email, breakGlass: users.breakGlass }).from(users).where(eq(users.id, userId)).for('update');
  if (!user) throw notFound(`User ${userId}`);
  if (user.breakGlass === breakGlass) return;
  if (breakGlass) {
    const [admin] = await tx.select({ id: users.id }).from(users).where(and(eq(users.id, userId), administratorCondition(sql`${users.id}`)));
    if (!admin) throw conflict(`${user.email} is not an administrator: only members of a group holding the ${ADMINISTRATOR_ROLE} role can be break-glass administrators`);
  }
  await tx.update(users).set({ breakGlass, updatedAt: new Date() }).where(eq(users.id, userId));
  await recordChange(tx, actor, { module: 'settings', recordType: 'user', recordId: userId, action: 'update', before: { breakGlass: user.breakGlass }, after: { breakGlass } });
  if (!breakGlass) await requireBreakGlassRemains(tx);
}

/** A save, checked and with the provider's metadata discovered, ready to be written in a transaction. */
export interface PreparedSignInSettings {
  oidc: StoredOidcSettings;
  ssoOnly: boolean;
}

/**
 * Checks the form and discovers the issuer, outside any transaction (it waits on the network). Needs settings:update
 * at level all before anything else, so nobody else can make the service fetch a URL. A blank secret keeps the stored
 * one while the issuer and client ID are unchanged; an issuer that cannot be discovered is refused with the reason.
 */
export async function prepareSignInSettings(db: DbOrTx, actor: Actor, input: OidcSettingsInput, config: Keyed): Promise<PreparedSignInSettings> {
  requireSignInAdministrator(actor);
  const before = await oidcSettings(db);
  const issuer = input.issuer.trim().replace(/\/+$/, '');
  const clientId = input.clientId.trim();
  // The stored secret is only ever sent to the provider and client it was saved for.
  const secretForAnotherClient = !input.clientSecret && before.clientSecret !== '' && (issuer !== before.issuer || clientId !== before.clientId);
  const oidc: StoredOidcSettings = {
    enabled: input.enabled,
    providerName: input.providerName.trim(),
    issuer,
    clientId,
    clientSecret: input.clientSecret ? sealSecret(config, CLIENT_SECRET_PURPOSE, input.clientSecret) : secretForAnotherClient ? '' : before.clientSecret,
    emailClaim: input.emailClaim.trim() || 'email',
    trustUnverifiedEmail: input.trustUnverifiedEmail,
    jitEnabled: input.jitEnabled,
    jitGroupId: input.jitGroupId.trim(),
    metadata: null,
    discoveredAt: null,
  };
  const problems: FieldProblem[] = [];
  const needed = (field: keyof StoredOidcSettings, message: string) => {
    if (oidc.enabled && !oidc[field]) problems.push({ field, message });
  };
  needed('providerName', 'is needed for the sign-in button');
  needed('issuer', 'is needed to turn OpenID Connect sign-in on');
  needed('clientId', 'is needed to turn OpenID Connect sign-in on');
  // Turned off, a secret saved for another client is dropped rather than asked for (clientSecret is '' then).
  if (secretForAnotherClient && oidc.enabled) problems.push({ field: 'clientSecret', message: 'must be entered again: the issuer or client ID changed, and the stored secret is only ever sent to the provider it was saved for' });
  else needed('clientSecret', 'is needed to turn OpenID Connect sign-in on');
  const issuerError = oidc.issuer ? issuerProblem(oidc.issuer) : null;
  if (issuerError) problems.push({ field: 'issuer', message: issuerError });
  if (!CLAIM_PATTERN.test(oidc.emailClaim)) problems.push({ field: 'emailClaim', message: 'must be a claim name (letters, digits, _ . : -)' });
  if (oidc.jitEnabled && !oidc.jitGroupId) problems.push({ field: 'jitGroupId', message: 'choose the group new people join' });
  if (oidc.jitGroupId) {
    const [group] = /^[0-9a-f-]{36}$/i.test(oidc.jitGroupId)
      ? await db.select({ id: groups.id }).from(groups).where(eq(groups.id, oidc.jitGroupId)) : [];
    if (!group) problems.push({ field: 'jitGroupId', message: 'is not a group' });
    else if (await groupHoldsAdministrator(db, oidc.jitGroupId)) {
      problems.push({ field: 'jitGroupId', message: `holds the ${ADMINISTRATOR_ROLE} role: people created at sign-in must not become administrators` });
    }
  }
  if (problems.length) throw invalid(problems);
  if (oidc.issuer && oidc.clientId) {
    try {
      oidc.metadata = await discoverIssuer(oidc.issuer, oidc.clientId);
      oidc.discoveredAt = new Date().toISOString();
    } catch (error) {
      throw invalid([{ field: 'issuer', message: error instanceof Error ? error.message : String(error) }]);
    }
  }
  return { oidc, ssoOnly: input.ssoOnly };
}

const secretFingerprint = (secret: string) => (secret ? createHash('sha256').update(secret).digest('hex').slice(0, 12) : '');

/**
 * Writes prepared sign-in settings (settings:update at level all). "Only SSO sign-in" needs OpenID Connect on and an
 * active break-glass administrator (409 otherwise); turning it on ends every other session but break-glass
 * administrators'. Audited without the secret (only whether it changed) and emailed to every administrator.
 */
export async function saveSignInSettings(tx: DbOrTx, actor: Actor, prepared: PreparedSignInSettings, keepSessionId: string | null = null): Promise<void> {
  requireSignInAdministrator(actor);
  if (actor.via === 'mcp') throw forbidden('assistants cannot change sign-in settings');
  const { oidc } = prepared;
  if (prepared.ssoOnly) {
    if (!oidcReady(oidc)) throw conflict(SSO_ONLY_NEEDS_OIDC);
    if ((await countBreakGlassAdministrators(tx)) === 0) throw conflict(SSO_ONLY_NEEDS_BREAK_GLASS);
  }
  const [before, beforeOnly] = await Promise.all([oidcSettings(tx), ssoOnly(tx)]);
  for (const [key, value] of [[OIDC_SETTINGS_KEY, oidc], [SSO_ONLY_KEY, prepared.ssoOnly]] as const) {
    await tx.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
  }
  const shown = ['enabled', 'providerName', 'issuer', 'clientId', 'emailClaim', 'trustUnverifiedEmail', 'jitEnabled', 'jitGroupId'] as const;
  const changes: Record<string, { before: unknown; after: unknown }> = {};
  for (const key of shown) if (before[key] !== oidc[key]) changes[key] = { before: before[key], after: oidc[key] };
  if (secretFingerprint(before.clientSecret) !== secretFingerprint(oidc.clientSecret)) changes.clientSecret = { before: before.clientSecret ? 'set' : 'none', after: oidc.clientSecret ? 'replaced' : 'removed' };
  if (beforeOnly !== prepared.ssoOnly) changes.ssoOnly = { before: beforeOnly, after: prepared.ssoOnly };
  const sessionsEnded = prepared.ssoOnly && !beforeOnly ? await endSessionsOutsideBreakGlass(tx, keepSessionId) : 0;
  await appendAudit(tx, actor, [{
    module: 'settings', action: 'update', recordType: 'setting', recordId: 'sign-in',
    details: { changes, discoveredAt: oidc.discoveredAt, ...(sessionsEnded ? { sessionsEnded } : {}) },
  }]);
  const [jitGroup] = oidc.jitGroupId ? await tx.select({ name: groups.name }).from(groups).where(inArray(groups.id, [oidc.jitGroupId])) : [];
  await queueMail(tx, {
    kind: 'security-alert',
    recipients: await administratorEmails(tx),
    subject: 'Security alert: sign-in settings saved',
    body: [
      `The sign-in settings were saved by ${actor.email ?? actor.userId}.`,
      '',
      `OpenID Connect sign-in: ${oidc.enabled ? `on (${oidc.providerName}, issuer ${oidc.issuer}, client ${oidc.clientId}, e-mail claim ${oidc.emailClaim})` : 'off'}`,
      `E-mail addresses not marked verified by the provider: ${oidc.trustUnverifiedEmail ? 'accepted' : 'refused'}`,
      `Create people at first sign-in: ${oidc.jitEnabled ? `on, into ${jitGroup?.name ?? oidc.jitGroupId}` : 'off'}`,
      `Only SSO sign-in: ${prepared.ssoOnly ? 'on (password sign-in only for break-glass administrators)' : 'off'}`,
      ...(sessionsEnded ? [`Sessions ended (everyone but break-glass administrators signs in again): ${sessionsEnded}`] : []),
      '',
      `Changed: ${Object.keys(changes).join(', ') || 'nothing'}`,
    ].join('\n'),
  });
}

/* ---------- Password sign-in while only single sign-on is allowed ---------- */

export const ssoOnlyPasswordMessage = (providerName: string) =>
  `Only single sign-on is allowed here: use “Sign in with ${providerName || 'your identity provider'}”. Password sign-in is kept for break-glass administrators, and this e-mail and password are not one of theirs.`;

/**
 * The sign-in form's password sign-in. While only single sign-on is allowed, it is refused for everyone but active
 * break-glass administrators: audited as `signin.failed` (reason `single sign-on only`), with one message whether the
 * address is unknown, someone else's or a break-glass administrator's with a wrong password, so the answer does not
 * tell who is break-glass. Break-glass administrators go through the usual checks (throttle included).
 */
export async function passwordSignIn(
  db: Db, emailInput: string, password: string, ip: string, options: Parameters<typeof signIn>[4],
): Promise<NewSession | SecondStep> {
  if (!(await ssoOnly(db))) return signIn(db, emailInput, password, ip, options);
  const message = ssoOnlyPasswordMessage((await oidcSettings(db)).providerName);
  const email = emailInput.trim().toLowerCase();
  const [user] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email}`);
  if (!user || !(await isBreakGlassAdministrator(db, user.id))) {
    // Counted, timed and audited as a break-glass administrator's wrong password is, so neither the answers nor the
    // point where they turn into "paused" tell who is break-glass.
    const actor: Actor = { ...systemActor('screen'), userId: user?.id ?? null };
    const refusal = (reason: string) => ({
      module: 'security', action: 'signin.failed', recordType: user ? 'user' : null, recordId: user?.id ?? null, details: { email, ip, reason },
    });
    if ((await reserveAttempt(db, email, ip)) === null) {
      await (options.refusals ?? auditEveryRefusal(db)).record(ip, actor, refusal('throttled'));
      throw new AppError('THROTTLED', THROTTLED_MESSAGE);
    }
    await decoyPasswordCheck(password);
    await db.transaction((tx) => appendAudit(tx, actor, [refusal('single sign-on only')]));
    throw new AppError('UNAUTHORIZED', message);
  }
  try {
    return await signIn(db, emailInput, password, ip, options);
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED') throw new AppError('UNAUTHORIZED', message);
    throw error;
  }
}
