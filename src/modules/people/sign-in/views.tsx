import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../../views/components/form';
import { BareLayout } from '../../../../views/layout';
import type { OidcSettingsView } from './schema';

function Checkbox({ name, label, checked, disabled, hint }: { name: string; label: string; checked: boolean; disabled: boolean; hint?: string }): JSX.Element {
  return (
    <div class="field">
      <label class="inline"><input type="checkbox" name={name} value="on" checked={checked} disabled={disabled} aria-describedby={hint ? `h-${name}` : undefined} /> <span safe>{label}</span></label>
      {hint && <span class="hint" id={`h-${name}`} safe>{hint}</span>}
    </div>
  );
}

export interface SignInSettingsProps {
  csrfToken: string;
  canSave: boolean;
  values: OidcSettingsView;
  redirectUri: string;
  groups: { id: string; name: string }[];
  breakGlassCount: number;
  done?: boolean;
  error?: string;
  errors?: FieldErrors;
}

/** Settings › Sign-in: OpenID Connect (provider, client, e-mail claim, just-in-time creation) and "Only SSO sign-in". */
export function SignInSettingsPage(p: SignInSettingsProps): JSX.Element {
  const v = p.values;
  const errors = p.errors ?? {};
  const disabled = !p.canSave;
  return (
    <>
      <Flash kind="success" message={p.done ? 'Sign-in settings saved; every administrator was emailed.' : undefined} />
      <Flash kind="error" message={p.error} />
      <p>People sign in through your organisation's identity provider with OpenID Connect (authorization code with PKCE).
        Register this service there as a confidential web client with this redirect URI (sign-in against an LDAP directory is set
        on <a href="/settings/sign-in/ldap">Settings › Directory (LDAP)</a>):</p>
      <pre class="secret" id="redirect-uri" safe>{p.redirectUri}</pre>
      <form method="post" action="/settings/sign-in" class="card form">
        <CsrfField token={p.csrfToken} />
        <h2>OpenID Connect</h2>
        <Checkbox name="enabled" label="Offer sign-in through the identity provider" checked={v.enabled} disabled={disabled} />
        <Field label="Provider name" name="providerName" value={v.providerName} error={errors.providerName} maxlength={80}
          hint="Shown on the sign-in page as “Sign in with …”, for example Contoso SSO" />
        <Field label="Issuer" name="issuer" value={v.issuer} error={errors.issuer} maxlength={500}
          hint={`Checked when you save, at <issuer>/.well-known/openid-configuration${v.discoveredAt ? `; last found ${v.discoveredAt.slice(0, 16).replace('T', ' ')} UTC` : ''}`} />
        <Field label="Client ID" name="clientId" value={v.clientId} error={errors.clientId} maxlength={300} />
        <Field label="Client secret" name="clientSecret" type="password" error={errors.clientSecret} maxlength={1000} autocomplete="off"
          hint={v.clientSecretSet ? 'A secret is stored and never shown. Leave blank to keep it while the issuer and client ID stay the same; type a new one to replace it.' : 'No secret stored yet.'} />
        <Field label="Claim holding the e-mail address" name="emailClaim" value={v.emailClaim} error={errors.emailClaim} maxlength={100}
          hint="Usually email; people are matched to accounts by this address (any case), so it must be one the provider has verified (email_verified true)." />
        <Checkbox name="trustUnverifiedEmail" label="Also accept addresses the provider does not mark verified" checked={v.trustUnverifiedEmail} disabled={disabled}
          hint="Turn on only for a provider that never sends email_verified but lets nobody choose their own address (Microsoft Entra ID, for one), or to take the address from a claim other than email. An address marked unverified is refused either way." />
        <h2>New people</h2>
        <Checkbox name="jitEnabled" label="Create an account at first sign-in for people without one" checked={v.jitEnabled} disabled={disabled}
          hint="Off: people need an account here first (created by an administrator or through SCIM)." />
        <Field label="Group new people join" name="jitGroupId" error={errors.jitGroupId}>
          <Select name="jitGroupId" options={[{ value: '', label: '(choose a group)' }, ...p.groups.map((g) => ({ value: g.id, label: g.name }))]} selected={v.jitGroupId} />
        </Field>
        <h2>Password sign-in</h2>
        <Checkbox name="ssoOnly" label="Only SSO sign-in" checked={v.ssoOnly} disabled={disabled}
          hint={`Refuses password sign-in and password reset links for everyone except break-glass administrators (marked on their user page; now ${p.breakGlassCount} active). Needs OpenID Connect on and at least one break-glass administrator.`} />
        {errors.ssoOnly && <p class="error" role="alert" safe>{errors.ssoOnly}</p>}
        {p.canSave ? <button type="submit">Save</button> : <p class="muted">Only administrators change these settings.</p>}
      </form>
    </>
  );
}

/** The sign-in page's link to the identity provider (a link, not a form: the provider is another site). */
export function SsoSignInOption({ providerName, next, ssoOnly }: { providerName: string; next: string; ssoOnly: boolean }): JSX.Element {
  const href = next === '/' ? '/sign-in/oidc' : `/sign-in/oidc?next=${encodeURIComponent(next)}`;
  return (
    <div class="card">
      <p><a class="button" href={href} safe>{`Sign in with ${providerName}`}</a></p>
      {ssoOnly && <p class="muted">Password sign-in below is for break-glass administrators only.</p>}
    </div>
  );
}

/** A refused answer from the identity provider: what happened and the way back. */
export function OidcSignInFailed({ message }: { message: string }): JSX.Element {
  return (
    <BareLayout title="Sign-in failed">
      <div class="card">
        <Flash kind="error" message={message} />
        <p><a href="/sign-in">Back to sign in</a></p>
      </div>
    </BareLayout>
  );
}

/** On a user's edit page (administrators): the break-glass mark. */
export function BreakGlassCard({ csrfToken, userId, breakGlass }: { csrfToken: string; userId: string; breakGlass: boolean }): JSX.Element {
  return (
    <div class="card" id="break-glass">
      <h2>Break-glass</h2>
      <p class="muted">A break-glass administrator may still sign in with a password while only SSO sign-in is allowed
        (Settings › Sign-in), for when the identity provider is unavailable. Only for members of a group holding the Administrator role.</p>
      <form method="post" action={`/settings/users/${userId}/break-glass`}>
        <CsrfField token={csrfToken} />
        <input type="hidden" name="breakGlass" value={breakGlass ? 'off' : 'on'} />
        <p>{breakGlass ? <strong>Marked break-glass.</strong> : 'Not break-glass.'}{' '}
          <button type="submit" class="secondary">{breakGlass ? 'Remove break-glass mark' : 'Mark as break-glass administrator'}</button></p>
      </form>
    </div>
  );
}

export function BreakGlassRefused({ message, userId }: { message: string; userId: string }): JSX.Element {
  return (
    <div class="card">
      <Flash kind="error" message={message} />
      <p><a href={`/settings/users/${userId}`}>Back to the user</a></p>
    </div>
  );
}
