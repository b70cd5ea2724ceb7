import { t, type Static } from 'elysia';
import { Type } from '@sinclair/typebox';

/** What an administrator enters in Settings › Sign-in for OpenID Connect (the client secret is write-only). */
export const OidcSettingsInput = t.Object({
  enabled: t.Boolean({ description: 'Offer "Sign in with <provider name>" on the sign-in page' }),
  providerName: t.String({ maxLength: 80, description: 'Shown on the sign-in button' }),
  issuer: t.String({ maxLength: 500, description: 'Issuer URL; discovered at <issuer>/.well-known/openid-configuration when saved' }),
  clientId: t.String({ maxLength: 300 }),
  clientSecret: t.String({ maxLength: 1000, description: 'Blank keeps the stored secret while the issuer and client ID stay the same; never shown back' }),
  emailClaim: t.String({ maxLength: 100, description: 'Claim holding the e-mail address (blank: email)' }),
  trustUnverifiedEmail: t.Boolean({
    description: 'Accept an e-mail the provider does not mark verified (email_verified absent); one marked false is always refused',
  }),
  jitEnabled: t.Boolean({ description: 'Create unknown people on their first sign-in' }),
  jitGroupId: t.String({ maxLength: 36, description: 'Group that people created at sign-in join' }),
  ssoOnly: t.Boolean({ description: 'Refuse password sign-in except for break-glass administrators' }),
}, { additionalProperties: false });
export type OidcSettingsInput = Static<typeof OidcSettingsInput>;

/** What is stored under the settings key: the input (secret included) and the provider metadata found on save. */
export interface StoredOidcSettings extends Omit<OidcSettingsInput, 'ssoOnly'> {
  /** The discovered provider metadata (authorization, token, userinfo and JWKS endpoints), from the last save. */
  metadata: Record<string, unknown> | null;
  discoveredAt: string | null;
}

export const DEFAULT_OIDC_SETTINGS: StoredOidcSettings = {
  enabled: false, providerName: '', issuer: '', clientId: '', clientSecret: '', emailClaim: 'email', trustUnverifiedEmail: false,
  jitEnabled: false, jitGroupId: '', metadata: null, discoveredAt: null,
};

/** The settings as the page shows them: never the secret, only whether one is stored. */
export interface OidcSettingsView extends Omit<OidcSettingsInput, 'clientSecret'> {
  clientSecretSet: boolean;
  discoveredAt: string | null;
}

/* ---------- Directory (LDAP) sign-in (Settings › Directory (LDAP)) ---------- */

export const GroupMapping = t.Object({
  directoryGroupDn: t.String({ minLength: 1, maxLength: 1000, description: 'DN of the group in the directory' }),
  groupId: t.String({ format: 'uuid', description: 'The group here its members are put in' }),
}, { additionalProperties: false });

/** Settings › Directory (LDAP), kept as one value in the settings table (the service account's password apart). */
export const LdapSettings = t.Object({
  enabled: t.Boolean({ description: 'Sign in people without a password here against the directory' }),
  url: t.String({ maxLength: 500, description: 'ldap://host[:port] or ldaps://host[:port]' }),
  startTls: t.Boolean({ description: 'Upgrade an ldap:// connection with StartTLS before any password is sent' }),
  caCertificate: t.String({ maxLength: 20_000, description: 'PEM of the certificate authority to trust for ldaps:// and StartTLS; blank trusts the system ones' }),
  bindDn: t.String({ maxLength: 1000, description: 'DN of the service account that searches for people' }),
  baseDn: t.String({ maxLength: 1000, description: 'Where people are searched for (subtree)' }),
  userFilter: t.String({ maxLength: 1000, description: 'LDAP filter finding one person; {login} stands for the typed e-mail, escaped (RFC 4515)' }),
  emailAttribute: t.String({ maxLength: 100, description: 'Attribute holding the e-mail address' }),
  nameAttribute: t.String({ maxLength: 100, description: 'Attribute holding the display name' }),
  groupMappings: t.Array(GroupMapping, { maxItems: 50, description: 'Directory group → group here; memberships of these groups follow the directory' }),
  createUsers: t.Boolean({ description: 'Create an account here on the first sign-in of a person the filter finds' }),
  timeoutSeconds: Type.Integer({ minimum: 1, maximum: 60, description: 'Seconds to wait for the directory' }),
}, { additionalProperties: false });
export type LdapSettings = Static<typeof LdapSettings>;
export type GroupMapping = Static<typeof GroupMapping>;

/** What Save and Test connection receive: the settings and a new password, blank to keep the stored one. */
export type LdapSettingsInput = LdapSettings & { bindPassword: string };

/** What the page shows: never the password, only whether one is stored. */
export type LdapSettingsView = LdapSettings & { hasBindPassword: boolean };

export const DEFAULT_LDAP_SETTINGS: LdapSettings = {
  enabled: false, url: '', startTls: false, caCertificate: '', bindDn: '', baseDn: '',
  userFilter: '(&(objectClass=inetOrgPerson)(mail={login}))', emailAttribute: 'mail', nameAttribute: 'cn',
  groupMappings: [], createUsers: false, timeoutSeconds: 5,
};

/** What Test connection found: how many entries the user filter sees, or why the directory could not be used. */
export type ConnectionTest = { ok: true; entries: number; more: boolean } | { ok: false; reason: string };
