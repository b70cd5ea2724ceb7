import { BareLayout } from '../../../../views/layout';
import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, type FieldErrors } from '../../../../views/components/form';
import { RESET_LINK_INVALID } from '../service';
import { DONE_MESSAGES } from './directory';

/* ---------- Sign-in ---------- */

function SignInForm({ email, next, error, notice }: { email: string; next: string; error?: string; notice?: string }) {
  return (
    <form method="post" action="/sign-in" class="card">
      <Flash kind="success" message={notice} />
      <Flash kind="error" message={error} />
      <input type="hidden" name="next" value={next} />
      <Field label="Email" name="email" type="email" value={email} required autocomplete="username" maxlength={254} />
      <Field label="Password" name="password" type="password" required autocomplete="current-password" maxlength={200} />
      <button type="submit">Sign in</button>
    </form>
  );
}

export const signInPage = ({ sso, ...props }: { email: string; next: string; error?: string; notice?: string; sso: JSX.Element }) =>
  <BareLayout title="Sign in"><>{sso}<SignInForm {...props} /></></BareLayout>;

export function ResetPasswordForm({ secret, csrf, email, error, errors = {}, closed = false }: {
  secret: string; csrf?: string; email: string; error?: string; errors?: FieldErrors;
  /** The link is valid but passwords are not allowed for this person (only SSO sign-in): the message, no form. */
  closed?: boolean;
}) {
  if (closed) {
    return (
      <BareLayout title="Set your password">
        <div class="card"><Flash kind="error" message={error} /><p><a href="/sign-in">Go to sign-in</a></p></div>
      </BareLayout>
    );
  }
  return (
    <BareLayout title="Set your password">
      <form method="post" action={`/reset-password/${secret}`} class="card">
        <Flash kind="error" message={error} />
        {csrf && <CsrfField token={csrf} />}
        <p>New password for <strong safe>{email}</strong>.</p>
        <Field label="New password" name="password" type="password" error={errors.password} required autocomplete="new-password" maxlength={200}
          hint="At least 12 characters, not a commonly used password." />
        <button type="submit">Set password</button>
      </form>
    </BareLayout>
  );
}

export const resetLinkGone = () => (
  <BareLayout title="Set your password">
    <div class="card"><Flash kind="error" message={RESET_LINK_INVALID} /><p><a href="/sign-in">Sign in</a></p></div>
  </BareLayout>
);

export function PasswordContent(p: { csrfToken: string; done?: boolean; errors?: FieldErrors; error?: string }) {
  const errors = p.errors ?? {};
  return (
    <form method="post" action="/settings/password" class="card narrow-form">
      <Flash kind="success" message={p.done ? DONE_MESSAGES['password-changed'] : undefined} />
      <Flash kind="error" message={p.error} />
      <CsrfField token={p.csrfToken} />
      <Field label="Current password" name="currentPassword" type="password" error={errors.currentPassword} required autocomplete="current-password" maxlength={200} />
      <Field label="New password" name="newPassword" type="password" error={errors.newPassword ?? errors.password} required autocomplete="new-password" maxlength={200}
        hint="At least 12 characters, not a commonly used password. Your other sessions end when it changes." />
      <button type="submit">Change password</button>
    </form>
  );
}
