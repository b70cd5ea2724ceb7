/**
 * Sign-in against an LDAP directory (docs/sign-in.md, LDAP): the settings (Settings › Directory (LDAP)), the test of
 * the connection, and the sign-in itself. A person the directory knows is found with the service account and the
 * configured filter, then proven by a bind as their own entry with the typed password; here they are created (when
 * just-in-time creation is on), kept in step with the mapped groups, and go through the same second step, throttle and
 * session as password sign-in.
 */
import { X509Certificate } from 'node:crypto';
import { isIP } from 'node:net';
import { eq, inArray, sql } from 'drizzle-orm';
import { Client, Filter, FilterParser, InvalidCredentialsError, NoSuchObjectError, ResultCodeError, SizeLimitExceededError, type Entry } from 'ldapts';
import type { ConnectionOptions } from 'node:tls';
import type { DbOrTx } from '../../../../db/client';
import { ADMINISTRATOR_ROLE } from '../../../platform/modules/reference-data';
import { groupMembers, groupRoles, groups, loginAttempts, roles, settings, users } from '../../../../db/schema';
import type { Config } from '../../../config';
import { appendAudit } from '../../../platform/audit/audit';
import type { AppContext } from '../../../platform/http/context';
import { AppError, forbidden, invalid, type FieldProblem } from '../../../platform/core/errors';
import { queueMail } from '../../../platform/mail/mail';
import { requirePermission, systemActor, type Actor } from '../../../platform/permissions/permissions';
import type { RefusalLimiter } from '../../../platform/http/refusals';
import { openSecret, sealSecret } from '../../../platform/http/sealed-secrets';
import {
  decoyPasswordCheck, openSession, reserveAttempt, THROTTLED_MESSAGE, WRONG_CREDENTIALS,
  type AfterPassword, type NewSession, type PasswordChecked, type SecondStep,
} from '../../../platform/http/sessions';
import { addGroupMember, administratorEmails, createUser, removeGroupMember, requireEveryRight, updateUser } from '../service';
import { DEFAULT_LDAP_SETTINGS, type ConnectionTest, type GroupMapping, type LdapSettings, type LdapSettingsInput, type LdapSettingsView } from './schema';
import { ssoOnly } from './break-glass';
import { passwordSignIn } from './settings-service';
import { isUuid } from '../../../platform/core/uuid';

export const LDAP_SETTING = 'signIn.ldap';
const SEAL_PURPOSE = 'settings:signIn.ldap:bindPassword';
export const LOGIN_PLACEHOLDER = '{login}';

/**
 * Every refused sign-in while directory sign-in is on, the directory down included: one answer (401) whether the
 * account has a password here or not, so an outage does not tell who does (the cause is in the Audit Log).
 */
export const DIRECTORY_SIGN_IN_REFUSED = `${WRONG_CREDENTIALS} If you sign in with your directory password and are sure of it, the directory may not be answering: try again in a few minutes or tell an administrator.`;
export const NO_ACCOUNT_HERE = 'The directory accepted your password, but you have no account here. Ask an administrator to add you.';

/* ---------- Settings ---------- */

type Stored = LdapSettings & { bindPasswordSealed: string | null };

async function storedSettings(db: DbOrTx): Promise<Stored> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, LDAP_SETTING));
  return { ...DEFAULT_LDAP_SETTINGS, bindPasswordSealed: null, ...((row?.value as Partial<Stored> | undefined) ?? {}) };
}

const viewOf = ({ bindPasswordSealed, ...rest }: Stored): LdapSettingsView => ({ ...rest, hasBindPassword: bindPasswordSealed !== null });

/** Opening the page needs settings:read. */
export async function readLdapSettings(db: DbOrTx, actor: Actor): Promise<LdapSettingsView> {
  requirePermission(actor, 'settings:read');
  return viewOf(await storedSettings(db));
}

/** Who may sign in is an administrator's decision: saving and testing need settings:update at level all. */
function requireSignInAdmin(actor: Actor): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for directory sign-in'), { actor });
  }
  requireEveryRight(actor, 'Changing directory sign-in');
  if (actor.via === 'mcp') throw forbidden('assistants cannot change sign-in settings');
}

const ATTRIBUTE = /^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)+)$/;
const looksLikeDn = (value: string) => /^[^=,]+=[^,]/.test(value.trim());

function urlProblem(url: string, startTls: boolean): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return 'must be an address such as ldaps://directory.example.com or ldap://directory.example.com:389';
  }
  if (parsed.protocol !== 'ldap:' && parsed.protocol !== 'ldaps:') return 'must start with ldap:// or ldaps://';
  if (!parsed.hostname) return 'must name the directory host';
  if ((parsed.pathname && parsed.pathname !== '/') || parsed.search || parsed.hash || parsed.username) return 'must hold only ldap(s)://host and an optional port';
  if (startTls && parsed.protocol === 'ldaps:') return 'StartTLS is for ldap:// addresses; ldaps:// is encrypted already';
  return null;
}

/** Every problem with the settings at once, so the form can mark each field. */
function settingsProblems(s: LdapSettings, password: PasswordOnForm, here: GroupsHere): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const needed = (field: string, value: string, what: string) => {
    if (s.enabled && !value.trim()) problems.push({ field, message: `is needed to sign in through the directory (${what})` });
  };
  needed('url', s.url, 'where the directory is');
  if (s.url.trim()) {
    const problem = urlProblem(s.url, s.startTls);
    if (problem) problems.push({ field: 'url', message: problem });
  }
  if (s.caCertificate.trim()) {
    try {
      new X509Certificate(s.caCertificate.trim());
    } catch {
      problems.push({ field: 'caCertificate', message: 'must be a certificate in PEM form (-----BEGIN CERTIFICATE----- …)' });
    }
  }
  needed('bindDn', s.bindDn, 'the service account that searches');
  if (s.bindDn.trim() && !looksLikeDn(s.bindDn)) problems.push({ field: 'bindDn', message: 'must be a DN such as cn=grc-reader,dc=example,dc=com' });
  if (password === 'stored for another directory' && s.enabled) {
    problems.push({ field: 'bindPassword', message: 'must be entered again: the directory address, TLS settings or bind DN changed, and the stored password is only ever sent where it was saved for' });
  } else if (s.enabled && password === 'none') problems.push({ field: 'bindPassword', message: 'is needed: the service account never binds without a password' });
  needed('baseDn', s.baseDn, 'where people are searched for');
  if (s.baseDn.trim() && !looksLikeDn(s.baseDn)) problems.push({ field: 'baseDn', message: 'must be a DN such as ou=people,dc=example,dc=com' });
  if (!s.userFilter.includes(LOGIN_PLACEHOLDER)) {
    problems.push({ field: 'userFilter', message: `must contain ${LOGIN_PLACEHOLDER}, which stands for the typed e-mail` });
  } else {
    try {
      FilterParser.parseString(userFilterFor(s.userFilter, 'someone@example.com'));
    } catch {
      problems.push({ field: 'userFilter', message: 'is not an LDAP filter (RFC 4515), for example (&(objectClass=inetOrgPerson)(mail={login}))' });
    }
  }
  if (!ATTRIBUTE.test(s.emailAttribute)) problems.push({ field: 'emailAttribute', message: 'must be an attribute name such as mail' });
  if (!ATTRIBUTE.test(s.nameAttribute)) problems.push({ field: 'nameAttribute', message: 'must be an attribute name such as cn or displayName' });
  s.groupMappings.forEach((m, i) => {
    if (!looksLikeDn(m.directoryGroupDn)) problems.push({ field: `groupMappings.${i}`, message: 'the directory group must be a DN such as cn=auditors,ou=groups,dc=example,dc=com' });
    else if (!here.existing.has(m.groupId)) problems.push({ field: `groupMappings.${i}`, message: 'choose the group here its members go in' });
    else if (here.administrators.has(m.groupId)) {
      problems.push({ field: `groupMappings.${i}`, message: `that group holds the ${ADMINISTRATOR_ROLE} role: who is an administrator here is not left to the directory` });
    }
  });
  if (!Number.isInteger(s.timeoutSeconds) || s.timeoutSeconds < 1 || s.timeoutSeconds > 60) {
    problems.push({ field: 'timeoutSeconds', message: 'must be a whole number of seconds from 1 to 60' });
  }
  return problems;
}

function trimmed(s: LdapSettings): LdapSettings {
  return {
    ...s, url: s.url.trim(), caCertificate: s.caCertificate.trim(), bindDn: s.bindDn.trim(), baseDn: s.baseDn.trim(),
    userFilter: s.userFilter.trim(), emailAttribute: s.emailAttribute.trim(), nameAttribute: s.nameAttribute.trim(),
    groupMappings: s.groupMappings.map((m) => ({ directoryGroupDn: m.directoryGroupDn.trim(), groupId: m.groupId })),
  };
}

interface GroupsHere {
  existing: ReadonlySet<string>;
  administrators: ReadonlySet<string>;
}

const NO_GROUPS: GroupsHere = { existing: new Set(), administrators: new Set() };

/** Of these groups here: which exist, and which hold the Administrator role. */
async function groupsHere(db: DbOrTx, ids: string[]): Promise<GroupsHere> {
  const valid = [...new Set(ids)].filter(isUuid);
  if (!valid.length) return NO_GROUPS;
  const rows = await db.select({ id: groups.id, role: roles.name }).from(groups)
    .leftJoin(groupRoles, eq(groupRoles.groupId, groups.id)).leftJoin(roles, eq(roles.id, groupRoles.roleId))
    .where(inArray(groups.id, valid));
  return {
    existing: new Set(rows.map((r) => r.id)),
    administrators: new Set(rows.filter((r) => r.role === ADMINISTRATOR_ROLE).map((r) => r.id)),
  };
}

/** What the form's blank or filled password field means for the service account's password. */
type PasswordOnForm = 'typed' | 'stored' | 'stored for another directory' | 'none';

/** The parts of the settings that decide where the service account's password is sent. */
const PASSWORD_DESTINATION = ['url', 'startTls', 'caCertificate', 'bindDn'] as const;

/**
 * A blank password keeps the stored one only while it would go to the same directory, over the same TLS settings, for
 * the same account: otherwise whoever edits the settings could have it sent to a server of their choosing.
 */
function passwordOnForm(typed: string, before: Stored, next: LdapSettings): PasswordOnForm {
  if (typed !== '') return 'typed';
  if (before.bindPasswordSealed === null) return 'none';
  return PASSWORD_DESTINATION.every((key) => before[key] === next[key]) ? 'stored' : 'stored for another directory';
}

/**
 * Saves the settings (settings:update at level all). A blank password keeps the stored one (see passwordOnForm); a
 * new one is sealed with ENCRYPTION_KEY. Audited (the password only as "changed") and mailed to every administrator as a security alert.
 */
export async function saveLdapSettings(tx: DbOrTx, actor: Actor, config: Pick<Config, 'ENCRYPTION_KEY'>, input: LdapSettingsInput): Promise<LdapSettingsView> {
  requireSignInAdmin(actor);
  const { bindPassword, ...rest } = input;
  const next = trimmed(rest);
  const before = await storedSettings(tx);
  const password = passwordOnForm(bindPassword, before, next);
  const problems = settingsProblems(next, password, await groupsHere(tx, next.groupMappings.map((m) => m.groupId)));
  if (problems.length) throw invalid(problems);
  // Turned off with a new destination, the stored password is dropped rather than asked for: it is typed again on
  // turning it back on.
  const bindPasswordSealed = password === 'typed' ? sealSecret(config, SEAL_PURPOSE, bindPassword) : password === 'stored' ? before.bindPasswordSealed : null;
  const after: Stored = { ...next, bindPasswordSealed };
  await tx.insert(settings).values({ key: LDAP_SETTING, value: after })
    .onConflictDoUpdate({ target: settings.key, set: { value: after, updatedAt: new Date() } });
  const changes: Record<string, unknown> = {};
  for (const key of Object.keys(next) as (keyof LdapSettings)[]) {
    if (JSON.stringify(before[key]) !== JSON.stringify(next[key])) changes[key] = { before: before[key], after: next[key] };
  }
  if (bindPasswordSealed !== before.bindPasswordSealed) changes.bindPassword = bindPasswordSealed ? 'changed' : 'removed';
  await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: LDAP_SETTING, details: { changes } }]);
  await queueMail(tx, {
    kind: 'security-alert',
    recipients: await administratorEmails(tx),
    subject: 'Security alert: directory (LDAP) sign-in settings saved',
    body: [
      `The directory (LDAP) sign-in settings were saved by ${actor.email ?? actor.userId ?? 'the system'}.`,
      '',
      `Sign-in through the directory: ${after.enabled ? 'on' : 'off'}`,
      `Directory: ${after.url || '(none)'}${after.startTls ? ' with StartTLS' : ''}`,
      `Just-in-time creation of accounts: ${after.createUsers ? 'on' : 'off'}`,
      `Mapped groups: ${after.groupMappings.length}`,
      '',
      `Changed: ${Object.keys(changes).join(', ') || 'nothing'}`,
    ].join('\n'),
  });
  return viewOf(after);
}

/* ---------- Talking to the directory ---------- */

/** The directory did not answer as a directory should (down, timed out, TLS refused, the service account refused). */
export class DirectoryUnavailable extends Error {}

/** The typed login put into the filter, escaped per RFC 4515 so it can only ever be a value (no `*`, `(`, `)`, `\`, NUL). */
export const userFilterFor = (filter: string, login: string) => filter.split(LOGIN_PLACEHOLDER).join(Filter.escape(login));

interface Connection {
  settings: LdapSettings;
  bindPassword: string;
}

function tlsOptions(s: LdapSettings): ConnectionOptions {
  const host = new URL(s.url).hostname.replace(/^\[(.*)\]$/, '$1');
  // The certificate is checked against the host either way; SNI carries names only (RFC 6066), never an address.
  return { minVersion: 'TLSv1.2', ...(isIP(host) ? {} : { servername: host }), ...(s.caCertificate ? { ca: [s.caCertificate] } : {}) };
}

/** Why the directory could not be used, in words an administrator can act on. */
function unavailableReason(error: unknown, s: LdapSettings): string {
  if (error instanceof DirectoryUnavailable) return error.message;
  if (error instanceof InvalidCredentialsError) return 'the directory refused the service account (check the bind DN and password)';
  if (error instanceof NoSuchObjectError) return `the base DN ${s.baseDn} does not exist in the directory`;
  if (error instanceof ResultCodeError) return `the directory answered: ${error.message} (result code ${error.code})`;
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ECONNREFUSED') return `nothing answers at ${s.url} (connection refused)`;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `the host in ${s.url} is not known`;
  if (/time(d)? ?out/i.test(message)) return `no answer from ${s.url} within ${s.timeoutSeconds} seconds`;
  return `${s.url}: ${message}`;
}

/** A connection, encrypted by StartTLS when asked, not yet bound. Closed by the caller. */
async function connect(s: LdapSettings): Promise<Client> {
  const ms = s.timeoutSeconds * 1000;
  const client = new Client({ url: s.url, timeout: ms, connectTimeout: ms, ...(s.url.startsWith('ldaps:') ? { tlsOptions: tlsOptions(s) } : {}) });
  if (s.startTls) {
    try {
      await client.startTLS(tlsOptions(s));
    } catch (error) {
      await close(client);
      throw error;
    }
  }
  return client;
}

async function close(client: Client): Promise<void> {
  await client.unbind().catch(() => {});
}

/** Runs `work` with a connection bound as the service account; any failure of the directory is DirectoryUnavailable. */
async function asServiceAccount<T>(c: Connection, work: (client: Client) => Promise<T>): Promise<T> {
  if (!c.bindPassword) throw new DirectoryUnavailable('no service account password is stored');
  let client: Client | undefined;
  try {
    client = await connect(c.settings);
    await client.bind(c.settings.bindDn, c.bindPassword);
    return await work(client);
  } catch (error) {
    throw new DirectoryUnavailable(unavailableReason(error, c.settings));
  } finally {
    if (client) await close(client);
  }
}

const firstValue = (entry: Entry, attribute: string): string => {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  const first = Array.isArray(value) ? value[0] : value;
  return typeof first === 'string' ? first.trim() : Buffer.isBuffer(first) ? first.toString('utf8').trim() : '';
};

const allValues = (entry: Entry, attribute: string): string[] => {
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase());
  const value = key ? entry[key] : undefined;
  return (Array.isArray(value) ? value : value === undefined ? [] : [value]).map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v)));
};

/** DNs compared the way people write them: case and spaces around separators do not matter. */
const normalDn = (dn: string) => dn.replace(/\s*([,=+])\s*/g, '$1').toLowerCase();
const sameDn = (a: string, b: string) => normalDn(a) === normalDn(b);

async function connectionFor(config: Pick<Config, 'ENCRYPTION_KEY'>, s: Stored): Promise<Connection> {
  const { bindPasswordSealed, ...rest } = s;
  return { settings: rest, bindPassword: bindPasswordSealed ? openSecret(config, SEAL_PURPOSE, bindPasswordSealed, 'directory service account password') : '' };
}

const COUNT_LIMIT = 1000;

/**
 * Test connection (settings:update at level all): binds as the service account with the values on the form (a blank
 * password means the stored one, while the destination is unchanged) and counts the entries the filter finds under
 * the base DN with any login.
 */
export async function testLdapConnection(db: DbOrTx, actor: Actor, config: Pick<Config, 'ENCRYPTION_KEY'>, input: LdapSettingsInput): Promise<ConnectionTest> {
  requireSignInAdmin(actor);
  const { bindPassword, ...rest } = input;
  const s = trimmed(rest);
  const stored = await storedSettings(db);
  const problems = settingsProblems({ ...s, enabled: true, groupMappings: [] }, passwordOnForm(bindPassword, stored, s), NO_GROUPS);
  if (problems.length) throw invalid(problems);
  const password = bindPassword !== '' ? bindPassword : (await connectionFor(config, stored)).bindPassword;
  try {
    return await asServiceAccount({ settings: s, bindPassword: password }, async (client) => {
      // Any login: the placeholder becomes a wildcard, so (mail={login}) counts every entry with an e-mail.
      const filter = s.userFilter.split(LOGIN_PLACEHOLDER).join('*');
      try {
        const { searchEntries } = await client.search(s.baseDn, { scope: 'sub', filter, attributes: ['1.1'], sizeLimit: COUNT_LIMIT });
        return { ok: true as const, entries: searchEntries.length, more: false };
      } catch (error) {
        if (error instanceof SizeLimitExceededError) return { ok: true as const, entries: COUNT_LIMIT, more: true };
        throw error;
      }
    });
  } catch (error) {
    if (error instanceof DirectoryUnavailable) return { ok: false, reason: error.message };
    throw error;
  }
}

interface DirectoryPerson {
  dn: string;
  email: string;
  name: string;
  /** The mapped directory groups this person is a member of. */
  memberOf: GroupMapping[];
}

type Lookup = { found: DirectoryPerson } | { refused: string };

/**
 * Finds the person with the service account, proves the password with a bind as their own entry on a connection of
 * its own, and then reads which mapped groups hold them. Throws DirectoryUnavailable when the directory fails.
 */
async function checkWithDirectory(c: Connection, login: string, password: string): Promise<Lookup> {
  const s = c.settings;
  return asServiceAccount(c, async (service) => {
    let entries: Entry[];
    try {
      entries = (await service.search(s.baseDn, {
        scope: 'sub', filter: userFilterFor(s.userFilter, login), attributes: [s.emailAttribute, s.nameAttribute, 'memberOf'], sizeLimit: 2,
      })).searchEntries;
    } catch (error) {
      if (error instanceof SizeLimitExceededError) return { refused: 'the directory filter matched more than one entry' };
      throw error;
    }
    if (entries.length !== 1) {
      // A second connection and bind, as a found person's would take, so the time taken does not tell who exists.
      await decoyBind(c);
      return { refused: entries.length === 0 ? 'not found in the directory' : 'the directory filter matched more than one entry' };
    }
    const [entry] = entries;

    const user = await connect(s);
    try {
      await user.bind(entry.dn, password);
    } catch (error) {
      if (error instanceof InvalidCredentialsError) return { refused: 'wrong password' };
      // Locked, expired or otherwise refused by the directory's own policy: a refusal, not an outage.
      if (error instanceof ResultCodeError) return { refused: `the directory refused the bind: ${error.message}` };
      throw error;
    } finally {
      await close(user);
    }

    const email = firstValue(entry, s.emailAttribute);
    if (!email) return { refused: `the directory entry has no ${s.emailAttribute}` };
    const listed = allValues(entry, 'memberOf');
    const memberOf: GroupMapping[] = [];
    for (const mapping of s.groupMappings) {
      if (listed.some((dn) => sameDn(dn, mapping.directoryGroupDn)) || await holds(service, mapping.directoryGroupDn, entry.dn)) memberOf.push(mapping);
    }
    const notDirectly = s.groupMappings.filter((m) => !memberOf.includes(m));
    if (notDirectly.length) {
      const enclosing = await enclosingGroups(service, entry.dn, notDirectly.map((m) => m.directoryGroupDn));
      memberOf.push(...notDirectly.filter((m) => enclosing.some((dn) => sameDn(dn, m.directoryGroupDn))));
    }
    return { found: { dn: entry.dn, email, name: firstValue(entry, s.nameAttribute) || email, memberOf } };
  });
}

/** Connects and binds as the service account again (never with the typed password), for timing only. */
async function decoyBind(c: Connection): Promise<void> {
  let client: Client | undefined;
  try {
    client = await connect(c.settings);
    await client.bind(c.settings.bindDn, c.bindPassword);
  } catch {
    // Only the time matters.
  } finally {
    if (client) await close(client);
  }
}

/** Whether a group entry (groupOfNames or groupOfUniqueNames) lists `memberDn`; the directory does the DN matching. */
async function holds(client: Client, groupDn: string, memberDn: string): Promise<boolean> {
  const escaped = Filter.escape(memberDn);
  try {
    const { searchEntries } = await client.search(groupDn, { scope: 'base', filter: `(|(member=${escaped})(uniqueMember=${escaped}))`, attributes: ['1.1'] });
    return searchEntries.length > 0;
  } catch (error) {
    // A mapped group since removed from the directory holds nobody.
    if (error instanceof NoSuchObjectError) return false;
    throw error;
  }
}

/** How many levels of groups within groups are followed up from a person (their own groups are the first). */
const NESTING_DEPTH = 5;
/** DNs put in one search's filter, so a person in many groups never makes one huge filter. */
const DNS_PER_SEARCH = 50;
const GROUP_CLASSES = '(|(objectClass=groupOfNames)(objectClass=groupOfUniqueNames)(objectClass=group))';

/** A DN's parent (the DN without its first RDN; an escaped comma does not separate). */
const parentDn = (dn: string) => dn.split(/(?<!\\),/).slice(1).join(',').trim();

/**
 * The groups that hold `memberDn` through other groups (nested groups, as Active Directory and many directories use),
 * looked for in the containers of the mapped groups, level by level up to NESTING_DEPTH; a group seen once is not
 * followed again, so a cycle of groups ends.
 */
async function enclosingGroups(client: Client, memberDn: string, mappedDns: string[]): Promise<string[]> {
  const bases = [...new Set(mappedDns.map(parentDn).filter(Boolean))];
  const seen = new Map<string, string>();
  let frontier = [memberDn];
  for (let depth = 0; depth < NESTING_DEPTH && frontier.length; depth += 1) {
    const next: string[] = [];
    for (let i = 0; i < frontier.length; i += DNS_PER_SEARCH) {
      const members = frontier.slice(i, i + DNS_PER_SEARCH).map((dn) => Filter.escape(dn)).map((dn) => `(member=${dn})(uniqueMember=${dn})`).join('');
      for (const base of bases) {
        const found = await groupsMatching(client, base, `(&${GROUP_CLASSES}(|${members}))`);
        for (const dn of found) {
          const key = normalDn(dn);
          if (!seen.has(key)) {
            seen.set(key, dn);
            next.push(dn);
          }
        }
      }
    }
    frontier = next;
  }
  return [...seen.values()];
}

async function groupsMatching(client: Client, base: string, filter: string): Promise<string[]> {
  try {
    return (await client.search(base, { scope: 'sub', filter, attributes: ['1.1'] })).searchEntries.map((e) => e.dn);
  } catch (error) {
    // A container since removed holds no groups.
    if (error instanceof NoSuchObjectError) return [];
    throw error;
  }
}

/* ---------- Sign-in ---------- */

export interface SignInOptions {
  sessionHours: number;
  refusals: Pick<RefusalLimiter, 'record'>;
  afterPassword: AfterPassword;
}

/**
 * The sign-in form's one door: password sign-in for a person with a password here (or while directory sign-in is
 * off), otherwise sign-in against the directory. Both pass the same throttle, the same second step and openSession.
 * While only single sign-on is allowed (docs/sign-in.md) the directory is not asked: a directory password is a
 * password, so everyone but break-glass administrators is refused by password sign-in's own rule.
 */
export async function signInWithPasswordOrDirectory(
  ctx: Pick<AppContext, 'db' | 'config'>, emailInput: string, password: string, ip: string, options: SignInOptions,
): Promise<NewSession | SecondStep> {
  const email = emailInput.trim().toLowerCase();
  const stored = await storedSettings(ctx.db);
  if (!stored.enabled || await ssoOnly(ctx.db)) return passwordSignIn(ctx.db, emailInput, password, ip, options);
  if (!(await hasPasswordHere(ctx.db, email))) return signInThroughDirectory(ctx, stored, email, password, ip, options);
  try {
    return await passwordSignIn(ctx.db, emailInput, password, ip, options);
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED') throw new AppError('UNAUTHORIZED', DIRECTORY_SIGN_IN_REFUSED);
    throw error;
  }
}

async function hasPasswordHere(db: DbOrTx, email: string): Promise<boolean> {
  const [row] = await db.select({ id: users.id }).from(users).where(sql`lower(${users.email}) = ${email} and ${users.passwordHash} is not null`);
  return row !== undefined;
}

const directoryActor = (email: string): Actor => ({ ...systemActor('screen'), source: `directory (LDAP) sign-in of ${email}` });

async function signInThroughDirectory(
  ctx: Pick<AppContext, 'db' | 'config'>, stored: Stored, email: string, password: string, ip: string, options: SignInOptions,
): Promise<NewSession | SecondStep> {
  const { db } = ctx;
  const attemptId = await reserveAttempt(db, email, ip);
  if (attemptId === null) {
    await options.refusals.record(ip, systemActor('screen'), { module: 'security', action: 'signin.failed', details: { email, ip, reason: 'throttled' } });
    throw new AppError('THROTTLED', THROTTLED_MESSAGE);
  }
  // Every refusal is answered, timed (a password check) and audited as a wrong password here is, so neither the answer
  // nor its time tells an account with a password here from one in the directory, the directory down included.
  const fail = async (reason: string, userId: string | null = null, more: Record<string, unknown> = {}): Promise<never> => {
    try {
      await decoyPasswordCheck(password);
    } catch (busy) {
      await db.delete(loginAttempts).where(eq(loginAttempts.id, attemptId));
      throw busy;
    }
    await db.transaction((tx) => appendAudit(tx, { ...systemActor('screen'), userId }, [{
      module: 'security', action: 'signin.failed', recordType: userId ? 'user' : null, recordId: userId,
      details: { email, ip, reason, via: 'directory', ...more },
    }]));
    throw new AppError('UNAUTHORIZED', DIRECTORY_SIGN_IN_REFUSED);
  };

  // An empty password would make the bind an unauthenticated one (RFC 4513 §5.1.2), which some directories accept
  // as if it were right: it is never sent.
  if (password === '') return fail('empty password');
  if (email.length > 254 || password.length > 1000) return fail('too long');

  let lookup: Lookup;
  try {
    lookup = await checkWithDirectory(await connectionFor(ctx.config, stored), email, password);
  } catch (error) {
    if (!(error instanceof DirectoryUnavailable) && !(error instanceof AppError && error.code === 'UNAVAILABLE')) throw error;
    // Counted like a wrong password: a 503 here beside a 401 for an account with a password here would tell anyone,
    // while the directory is down, who has one.
    return fail('directory unreachable', null, { error: error.message });
  }
  if ('refused' in lookup) return fail(lookup.refused);
  const person = lookup.found;

  const [existing] = await db.select({ id: users.id, name: users.name, email: users.email, status: users.status, hash: users.passwordHash })
    .from(users).where(sql`lower(${users.email}) = ${person.email.toLowerCase()}`);
  if (existing?.status === 'deactivated') return fail('account deactivated', existing.id);
  // An account with a password here signs in with it: a directory entry carrying its address (a filter matching
  // another attribute, or a mail value someone could edit) must not open it.
  if (existing?.hash) return fail('the account here has a password; the directory does not sign it in', existing.id);
  if (!existing && !stored.createUsers) {
    await db.transaction((tx) => appendAudit(tx, systemActor('screen'), [{
      module: 'security', action: 'signin.failed', details: { email, ip, reason: 'no account here (just-in-time creation is off)', via: 'directory' },
    }]));
    throw new AppError('UNAUTHORIZED', NO_ACCOUNT_HERE);
  }

  // A mapped group given the Administrator role since the mapping was saved no longer follows the directory.
  const here = await groupsHere(db, stored.groupMappings.map((m) => m.groupId));
  const mappedHere = [...here.existing].filter((id) => !here.administrators.has(id));
  const belongs = new Set(person.memberOf.map((m) => m.groupId));
  const heldNow = existing && mappedHere.length
    ? new Set((await db.select({ groupId: groupMembers.groupId }).from(groupMembers)
      .where(sql`${groupMembers.userId} = ${existing.id} and ${inArray(groupMembers.groupId, mappedHere)}`)).map((r) => r.groupId))
    : new Set<string>();
  const actor = directoryActor(person.email);
  const userId = await db.transaction(async (tx) => {
    const id = existing ? existing.id : (await createUser(tx, actor, { email: person.email, name: person.name.slice(0, 200) })).id;
    if (existing && existing.name !== person.name.slice(0, 200)) await updateUser(tx, actor, id, { name: person.name.slice(0, 200), email: existing.email });
    // Only the mapped groups follow the directory; memberships given here in other groups are left alone.
    for (const groupId of mappedHere) {
      if (belongs.has(groupId) && !heldNow.has(groupId)) await addGroupMember(tx, actor, groupId, id);
      if (!belongs.has(groupId) && heldNow.has(groupId)) await removeGroupMember(tx, actor, groupId, id);
    }
    return id;
  });

  const checked: PasswordChecked = { userId, email, ip, attemptIds: [attemptId] };
  const later = await options.afterPassword(checked);
  if (later) return later;
  return openSession(db, checked, options.sessionHours, { via: 'directory', dn: person.dn });
}
