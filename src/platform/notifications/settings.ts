import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { mailPreferences, settings } from '../../../db/schema';
import type { Config } from '../../config';
import { appendAudit } from '../audit/audit';
import { AppError, invalid, type FieldProblem } from '../core/errors';
import { holdsEveryRight, requirePermission, type Actor } from '../permissions/permissions';
import { openSecret, sealSecret } from '../http/sealed-secrets';

/** Settings › Notifications: the switch for API and CSV changes, and the daily reminder sweep's time. */
export const NotificationSettings = Type.Object({
  notifyOnApiChanges: Type.Boolean({ description: 'Rule mails also for changes made through the REST API, CSV imports, the bundle loader, SCIM and the assistant endpoint' }),
  reminderHour: Type.Integer({ minimum: 0, maximum: 23 }),
  timeZone: Type.String({ minLength: 1, maxLength: 64 }),
  paused: Type.Boolean(),
});
export type NotificationSettings = Static<typeof NotificationSettings>;

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { notifyOnApiChanges: false, reminderHour: 7, timeZone: 'UTC', paused: false };

/** Settings › Mail: the SMTP server, the sender, and the organisation's own mail domains (rules may mail addresses there). */
export const MailSettings = Type.Object({
  host: Type.String({ maxLength: 253 }),
  port: Type.Integer({ minimum: 1, maximum: 65535 }),
  security: Type.Union([Type.Literal('starttls'), Type.Literal('tls'), Type.Literal('none')]),
  username: Type.String({ maxLength: 320 }),
  /** Sealed (sealed-secrets.ts); never shown again. */
  password: Type.String({ maxLength: 2000 }),
  from: Type.String({ maxLength: 320 }),
  domains: Type.Array(Type.String({ maxLength: 253 }), { maxItems: 50 }),
  /** A private certificate authority the SMTP server's certificate is signed by (PEM), when not a public one. */
  caCertificate: Type.String({ maxLength: 20_000 }),
});
export type MailSettings = Static<typeof MailSettings>;

const NOTIFICATIONS_KEY = 'notifications';
const MAIL_KEY = 'mail';
const PASSWORD_PURPOSE = 'smtp-password';

async function readSetting<T extends object>(db: DbOrTx, key: string, defaults: T): Promise<T> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, key));
  return { ...defaults, ...((row?.value as Partial<T> | undefined) ?? {}) };
}

async function writeSetting(tx: DbOrTx, key: string, value: object): Promise<void> {
  await tx.insert(settings).values({ key, value }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
}

export const notificationSettings = (db: DbOrTx) => readSetting(db, NOTIFICATIONS_KEY, DEFAULT_NOTIFICATION_SETTINGS);

/** Time zones people can choose: the ones this runtime knows (PostgreSQL knows the same IANA names). */
export const TIME_ZONES: readonly string[] = ['UTC', ...Intl.supportedValuesOf('timeZone').filter((zone) => zone !== 'UTC')];

/** Changing these needs settings:update at level all; every save is audited, pausing and resuming reminders as their own entries. */
export async function saveNotificationSettings(tx: DbOrTx, actor: Actor, input: NotificationSettings): Promise<NotificationSettings> {
  requireSettingsAdministrator(actor, 'notification settings');
  const problems: FieldProblem[] = [...Value.Errors(NotificationSettings, input)].map((e) => ({ field: e.path.slice(1) || '(settings)', message: e.message }));
  if (!TIME_ZONES.includes(input.timeZone)) problems.push({ field: 'timeZone', message: `"${input.timeZone}" is not a time zone` });
  if (problems.length) throw invalid(problems);
  const before = await notificationSettings(tx);
  await writeSetting(tx, NOTIFICATIONS_KEY, input);
  const changes = changedKeys(before, input);
  if (Object.keys(changes).length === 0) return input;
  const events = [{ module: 'settings', action: 'update', recordType: 'setting', recordId: NOTIFICATIONS_KEY, details: { changes } }];
  if (before.paused !== input.paused) {
    events.push({ module: 'settings', action: input.paused ? 'reminders.pause' : 'reminders.resume', recordType: 'setting', recordId: NOTIFICATIONS_KEY, details: { changes: {} } });
  }
  await appendAudit(tx, actor, events);
  return input;
}

const changedKeys = <T extends Record<string, unknown>>(before: T, after: T) => Object.fromEntries(Object.keys(after).flatMap((key) =>
  JSON.stringify(before[key]) === JSON.stringify(after[key]) ? [] : [[key, { before: before[key], after: after[key] }]]));

function requireSettingsAdministrator(actor: Actor, what: string): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], `settings:update at level all needed for ${what}`), { actor });
  }
}

export const DEFAULT_MAIL_SETTINGS: MailSettings = { host: '', port: 587, security: 'starttls', username: '', password: '', from: '', domains: [], caCertificate: '' };

export const mailSettings = (db: DbOrTx) => readSetting(db, MAIL_KEY, DEFAULT_MAIL_SETTINGS);

/** What Settings › Mail shows: the stored settings without the password, and whether one is kept. */
export async function mailSettingsView(db: DbOrTx): Promise<Omit<MailSettings, 'password'> & { hasPassword: boolean }> {
  const { password, ...shown } = await mailSettings(db);
  return { ...shown, hasPassword: password !== '' };
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i;
export const EMAIL = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/**
 * Saving the mail settings needs every right at level all: whoever picks the SMTP server receives every mail, password
 * reset links included. A blank password keeps the stored one (clearPassword drops it). Audited without the password.
 */
export async function saveMailSettings(
  tx: DbOrTx, actor: Actor, config: Pick<Config, 'ENCRYPTION_KEY'>, input: MailSettings & { clearPassword?: boolean },
): Promise<void> {
  if (!holdsEveryRight(actor)) throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'every right at level all needed for mail settings'), { actor });
  const { clearPassword, ...values } = input;
  const problems: FieldProblem[] = [...Value.Errors(MailSettings, values)].map((e) => ({ field: e.path.slice(1).split('/')[0] || '(settings)', message: e.message }));
  const host = values.host.trim();
  if (host && !/^[a-z0-9.-]+$/i.test(host) && !/^\[?[0-9a-f:.]+\]?$/i.test(host)) problems.push({ field: 'host', message: 'must be a host name or address' });
  if (values.from.trim() && !EMAIL.test(values.from.trim().replace(/^.*<(.*)>$/, '$1'))) problems.push({ field: 'from', message: 'must be an address, optionally with a name: GRC <grc@example.com>' });
  const domains = [...new Set(values.domains.map((d) => d.trim().toLowerCase().replace(/^@/, '')).filter(Boolean))];
  const badDomain = domains.find((d) => !DOMAIN.test(d));
  if (badDomain) problems.push({ field: 'domains', message: `"${badDomain}" is not a domain name` });
  if (values.caCertificate.trim() && !values.caCertificate.includes('-----BEGIN CERTIFICATE-----')) problems.push({ field: 'caCertificate', message: 'must be a PEM certificate' });
  if (problems.length) throw invalid(problems);
  const before = await mailSettings(tx);
  const password = clearPassword ? '' : values.password ? sealSecret(config, PASSWORD_PURPOSE, values.password) : before.password;
  const after: MailSettings = { ...values, host, from: values.from.trim(), username: values.username.trim(), domains, caCertificate: values.caCertificate.trim(), password };
  await writeSetting(tx, MAIL_KEY, after);
  const { password: _b, ...shownBefore } = before;
  const { password: _a, ...shownAfter } = after;
  const changes = changedKeys(shownBefore, shownAfter);
  if (before.password !== after.password) Object.assign(changes, { password: { before: before.password ? 'set' : 'none', after: after.password ? (values.password ? 'replaced' : 'set') : 'none' } });
  await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'setting', recordId: MAIL_KEY, details: { changes } }]);
}

export const smtpPassword = (config: Pick<Config, 'ENCRYPTION_KEY'>, stored: string) =>
  stored ? openSecret(config, PASSWORD_PURPOSE, stored, 'SMTP password', 'Enter it again in Settings › Mail.') : '';

/** Whether an address is in one of the organisation's own mail domains (a rule may mail it). */
export const inOwnDomains = (domains: readonly string[], address: string) =>
  domains.includes(address.slice(address.lastIndexOf('@') + 1).toLowerCase());

/* ---------- A person's own mail preferences ---------- */

export interface MailPreferences {
  digests: boolean;
  ruleMails: boolean;
}

export async function mailPreferencesOf(db: DbOrTx, userId: string): Promise<MailPreferences> {
  const [row] = await db.select({ digests: mailPreferences.digests, ruleMails: mailPreferences.ruleMails }).from(mailPreferences).where(eq(mailPreferences.userId, userId));
  return row ?? { digests: true, ruleMails: true };
}

/** Anyone signed in may turn their own digests and rule mails off and on; security alerts to administrators stay. Audited. */
export async function saveMailPreferences(tx: DbOrTx, actor: Actor, input: MailPreferences): Promise<void> {
  if (!actor.userId || actor.kind !== 'user') throw new AppError('FORBIDDEN', 'forbidden', [], 'only a signed-in person has mail preferences');
  const before = await mailPreferencesOf(tx, actor.userId);
  await tx.insert(mailPreferences).values({ userId: actor.userId, ...input })
    .onConflictDoUpdate({ target: mailPreferences.userId, set: { ...input, updatedAt: new Date() } });
  const changes = changedKeys({ ...before }, { ...input });
  if (Object.keys(changes).length) {
    await appendAudit(tx, actor, [{ module: 'settings', action: 'update', recordType: 'mailPreferences', recordId: actor.userId, details: { changes } }]);
  }
}

/** Settings › Mail as the mailer takes it (the password opened), or null while no server is set there. */
export async function smtpSettings(db: DbOrTx, config: Pick<Config, 'ENCRYPTION_KEY'>) {
  const s = await mailSettings(db);
  return s.host ? { ...s, password: smtpPassword(config, s.password) } : null;
}
