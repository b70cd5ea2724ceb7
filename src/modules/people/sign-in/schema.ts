import { t, type Static } from 'elysia';

/** What an administrator enters in Settings › Sign-in for OpenID Connect (the client secret is write-only). */
export const OidcSettingsInput = t.Object({
  enabled: t.Boolean({ description: 'Offer "Sign in with <provider name>" on the sign-in page' }),
  providerName: t.String({ maxLength: 80, description: 'Shown on the sign-in button' }),
  issuer: t.String({ maxLength: 500, description: 'Issuer URL; discovered at <issuer>/.well-known/openid-configuration when saved' }),
  clientId: t.String({ maxLength: 300 }),
  clientSecret: t.String({ maxLength: 1000, description: 'Blank keeps the stored secret; never shown back' }),
  emailClaim: t.String({ maxLength: 100, description: 'Claim holding the e-mail address (blank: email)' }),
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
  enabled: false, providerName: '', issuer: '', clientId: '', clientSecret: '', emailClaim: 'email', jitEnabled: false, jitGroupId: '',
  metadata: null, discoveredAt: null,
};

/** The settings as the page shows them: never the secret, only whether one is stored. */
export interface OidcSettingsView extends Omit<OidcSettingsInput, 'clientSecret'> {
  clientSecretSet: boolean;
  discoveredAt: string | null;
}
