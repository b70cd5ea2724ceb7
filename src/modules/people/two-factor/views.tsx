import { renderSVG } from 'uqr';
import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../../views/components/form';
import { BareLayout } from '../../../../views/layout';
import { PENDING_MINUTES, RECOVERY_CODE_COUNT, TWO_FACTOR_RULES, type Enrolment, type TwoFactorRule, type TwoFactorStatus } from './service';

const RULE_LABELS: Record<TwoFactorRule, string> = {
  nobody: 'Nobody (each person chooses)',
  administrators: 'Administrators (people who may change users, roles or settings)',
  everyone: 'Everyone',
};

const CODE_HINT = 'The 6-digit code your authenticator app shows now.';

/** A 6-digit code field: numeric keyboard on phones, filled in by password managers that hold the code. */
const CodeField = ({ error, label = 'Code', hint = CODE_HINT }: { error?: string; label?: string; hint?: string }) => (
  <Field label={label} name="code" error={error} required autocomplete="one-time-code" maxlength={24} hint={hint} />
);

/** The QR code of the otpauth:// address (drawn server-side as SVG) and the secret as text for apps that cannot scan. */
export function EnrolmentQr({ enrolment }: { enrolment: Enrolment }) {
  // uqr draws only rectangles from the address; nothing user-supplied reaches the markup unescaped.
  const svg = renderSVG(enrolment.uri, { border: 2, pixelSize: 6 }).replace('<svg ', '<svg role="img" aria-label="QR code to scan with your authenticator app" ');
  return (
    <div class="two-factor-qr">
      <ol>
        <li>Open an authenticator app (for example one from your phone's app store, or your password manager).</li>
        <li>Scan this QR code, or type the key below into the app.</li>
        <li>Enter the 6-digit code the app shows to finish.</li>
      </ol>
      <div class="qr">{svg}</div>
      <p>Key for typing in: <code class="secret" id="two-factor-key" safe>{enrolment.secret.match(/.{1,4}/g)!.join(' ')}</code></p>
      <p class="muted">Time-based (TOTP), 6 digits, every 30 seconds, SHA-1. The key is not shown again once you finish.</p>
    </div>
  );
}

/** The confirm form below the QR code; `action` differs between Settings and the sign-in step. */
export function ConfirmEnrolmentForm({ action, csrfToken, error }: { action: string; csrfToken?: string; error?: string }) {
  return (
    <form method="post" action={action} class="narrow-form">
      {csrfToken && <CsrfField token={csrfToken} />}
      <CodeField error={error} />
      <button type="submit">Turn on two-factor sign-in</button>
    </form>
  );
}

export function RecoveryCodes({ codes, continueTo }: { codes: string[]; continueTo?: string }) {
  return (
    <div class="card" role="status">
      <h2>Your recovery codes</h2>
      <p>
        Keep these {String(RECOVERY_CODE_COUNT)} codes somewhere safe (a password manager, or printed). Each signs you in
        once if you lose your device. They are not shown again.
      </p>
      <ul class="recovery-codes">
        {codes.map((code) => <li><code safe>{code}</code></li>)}
      </ul>
      {continueTo && <p><a class="button" href={continueTo}>Continue</a></p>}
    </div>
  );
}

/** Settings › Two-factor sign-in for the signed-in person. */
export function TwoFactorSettings(p: {
  csrfToken: string; status: TwoFactorStatus; rule: TwoFactorRule; required: boolean; done?: string; errors?: FieldErrors; error?: string;
}) {
  const errors = p.errors ?? {};
  if (!p.status.enrolled) {
    return (
      <section id="two-factor">
        <Flash kind="success" message={p.done === 'disabled' ? 'Two-factor sign-in is off.' : undefined} />
        <Flash kind="error" message={p.error} />
        <div class="card">
          <p>
            Two-factor sign-in asks for a code from an app on your phone after your password, so a stolen password alone
            cannot open your account.{p.required ? ' Your organisation requires it for you.' : ''}
          </p>
          <form method="post" action="/settings/two-factor/begin">
            <CsrfField token={p.csrfToken} />
            <button type="submit">Set up two-factor sign-in</button>
          </form>
        </div>
      </section>
    );
  }
  return (
    <section id="two-factor">
      <Flash kind="success" message={p.done === 'enabled' ? 'Two-factor sign-in is on.' : undefined} />
      <Flash kind="error" message={p.error} />
      <div class="card">
        <p><strong class="status-ok">On</strong> since <span safe>{p.status.confirmedAt!.toISOString().slice(0, 10)}</span>. Signing in asks for a code from your authenticator app.</p>
        <p><span safe>{`${p.status.recoveryCodesLeft} of ${RECOVERY_CODE_COUNT}`}</span> recovery codes unused.</p>
      </div>
      <div class="card">
        <h2>New recovery codes</h2>
        <form method="post" action="/settings/two-factor/recovery-codes" class="narrow-form">
          <CsrfField token={p.csrfToken} />
          <p class="muted">Makes {String(RECOVERY_CODE_COUNT)} new codes; the old ones stop working.</p>
          <Field label="Code" name="code" error={errors.recoveryCode} required autocomplete="one-time-code" maxlength={24} hint={CODE_HINT} />
          <button type="submit" class="secondary">Make new recovery codes</button>
        </form>
      </div>
      <div class="card">
        <h2>Turn off</h2>
        {p.required && <p>Your organisation requires two-factor sign-in for you: you will be asked to set it up again at your next sign-in.</p>}
        <form method="post" action="/settings/two-factor/disable" class="narrow-form">
          <CsrfField token={p.csrfToken} />
          <Field label="Current password" name="currentPassword" type="password" error={errors.currentPassword} required autocomplete="current-password" maxlength={200} />
          <Field label="Code or recovery code" name="code" error={errors.code} required autocomplete="one-time-code" maxlength={24} hint={CODE_HINT} />
          <button type="submit" class="danger">Turn off two-factor sign-in</button>
        </form>
      </div>
    </section>
  );
}

/** The rule on Settings › Sessions: who must use a second factor. */
export function TwoFactorRuleCard({ csrfToken, rule, canUpdate, error }: { csrfToken: string; rule: TwoFactorRule; canUpdate: boolean; error?: string }) {
  return (
    <div class="card" id="two-factor-rule">
      <h2>Two-factor sign-in</h2>
      {canUpdate ? (
        <form method="post" action="/settings/two-factor/rule">
          <CsrfField token={csrfToken} />
          <Field label="Required for" name="twoFactorRule" error={error}
            hint="Someone required to use it who has not set it up is taken to set it up right after their password, and can do nothing else first. Saving it ends the password sessions of those it now covers who have no second factor.">
            <Select name="twoFactorRule" options={TWO_FACTOR_RULES.map((r) => ({ value: r, label: RULE_LABELS[r] }))} selected={rule} />
          </Field>
          <button type="submit">Save</button>
        </form>
      ) : (
        <p>Required for: <strong safe>{RULE_LABELS[rule]}</strong></p>
      )}
      <p class="muted">API and SCIM tokens are not affected; people signing in through the identity provider use its own second factor.</p>
    </div>
  );
}

/** On a user's Edit page (administrators): where the second factor is managed. */
export const TwoFactorUserCard = ({ userId }: { userId: string }) => (
  <div class="card">
    <h2>Two-factor sign-in</h2>
    <p><a href={`/settings/users/${userId}/two-factor`}>Two-factor sign-in of this user</a> (see whether it is on, or reset it).</p>
  </div>
);

export function TwoFactorUserContent({ csrfToken, user, enrolled, done }: { csrfToken: string; user: { id: string; name: string; email: string }; enrolled: boolean; done?: boolean }) {
  return (
    <section id="two-factor-user">
      <p><a href={`/settings/users/${user.id}`}>Back to <span safe>{user.name}</span></a></p>
      <Flash kind="success" message={done ? 'Second factor reset; their sessions have ended.' : undefined} />
      <div class="card">
        {enrolled ? (
          <form method="post" action={`/settings/users/${user.id}/two-factor/reset`}>
            <CsrfField token={csrfToken} />
            <p>Two-factor sign-in is <strong>on</strong> for <span safe>{user.email}</span>.</p>
            <p>Resetting removes their authenticator key and recovery codes and ends their sessions. They sign in with their
              password alone next time (or set up a new device first if two-factor sign-in is required for them).</p>
            <button type="submit" class="danger">Reset second factor</button>
          </form>
        ) : <p>Two-factor sign-in is <strong>off</strong> for <span safe>{user.email}</span>.</p>}
      </div>
    </section>
  );
}

/* ---------- The sign-in step (outside the shell) ---------- */

export function CodeStepPage({ email, error, gone }: { email: string; error?: string; gone?: boolean }) {
  return (
    <BareLayout title="Two-factor sign-in">
      <div class="card">
        <Flash kind="error" message={error} />
        {gone ? <p><a href="/sign-in">Sign in again</a></p> : (
          <>
            <p>Signing in as <strong safe>{email}</strong>.</p>
            <form method="post" action="/sign-in/two-factor">
              <Field label="Code" name="code" required autocomplete="one-time-code" maxlength={24}
                hint="The 6-digit code from your authenticator app, or one of your recovery codes." />
              <button type="submit">Continue</button>
            </form>
            <form method="post" action="/sign-in/two-factor/cancel" class="inline">
              <button type="submit" class="link">Start again</button>
            </form>
          </>
        )}
      </div>
    </BareLayout>
  );
}

export function EnrolStepPage({ email, enrolment, error }: { email: string; enrolment: Enrolment; error?: string }) {
  return (
    <BareLayout title="Set up two-factor sign-in">
      <div class="card">
        <Flash kind="error" message={error} />
        <p>Your organisation requires two-factor sign-in for <strong safe>{email}</strong>. Set it up to finish signing in
          (within {String(PENDING_MINUTES)} minutes).</p>
        <EnrolmentQr enrolment={enrolment} />
        <ConfirmEnrolmentForm action="/sign-in/two-factor/enrol" />
      </div>
    </BareLayout>
  );
}

export const EnrolledPage = ({ codes, next }: { codes: string[]; next: string }) => (
  <BareLayout title="Two-factor sign-in is on">
    <RecoveryCodes codes={codes} continueTo={next} />
  </BareLayout>
);
