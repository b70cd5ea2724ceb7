import { levelOf, MODULES, rightsOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { Flash } from '../../../views/components/flash';
import { CsrfField, Field, type FieldErrors, type Option } from '../../../views/components/form';
import { Tags, Text, When } from '../../../views/components/table';
import { FilteredList, type ListPage, type ListState } from '../../../views/components/list';
import type { TokenView } from './schema';
import type { ActiveSession } from '../people/service';
import type { SessionSettings } from '../../platform/http/sessions';
import type { TwoFactorRule } from '../people/two-factor/service';
import { TwoFactorRuleCard } from '../people/two-factor/views';
import { lastValidDay } from './service';
import { scopeLabel, SIGN_IN_LABELS, TOKEN_STATUS_OPTIONS } from './lists';

export interface CreateForm {
  name: string;
  expiresAt: string;
  scopes: string[];
}

/** Scopes a user may put on a token: only what they hold, grouped by module for the checkboxes. */
function grantableScopes(viewer: Actor): { module: string; scopes: Permission[] }[] {
  return MODULES.map((module) => ({
    module,
    scopes: rightsOf(module).map((r) => `${module}:${r}` as Permission).filter((p) => levelOf(viewer, p) !== null),
  })).filter((group) => group.scopes.length > 0);
}

/** Own token: apiTokens:update; another's: apiTokens:update at level all (the service re-checks). */
const mayRevoke = (viewer: Actor, token: TokenView) => {
  const level = levelOf(viewer, 'apiTokens:update');
  return token.status === 'Active' && (level === 'all' || (level === 'own' && token.createdBy.id === viewer.userId));
};

interface TokensProps {
  viewer: Actor;
  csrfToken: string;
  tokens: ListPage<TokenView>;
  state: ListState;
  /** The creators of the tokens the viewer sees, for the creator filter. */
  creators: Option[];
  maxDays: number;
  done?: string;
  created?: { name: string; secret: string };
  form?: CreateForm;
  errors?: FieldErrors;
  error?: string;
}

export function TokensContent(props: TokensProps) {
  const { viewer, csrfToken, tokens, maxDays } = props;
  const canCreate = levelOf(viewer, 'apiTokens:create') !== null;
  const form = props.form ?? { name: '', expiresAt: '', scopes: [] };
  const errors = props.errors ?? {};
  const failed = props.error !== undefined || Object.keys(errors).length > 0;
  return (
    <section id="api-tokens">
      <Flash kind="success" message={props.done === 'revoked' ? 'Token revoked. It stops working at once.' : undefined} />
      {props.created && (
        <div class="card flash-success" role="status" id="new-token">
          <strong>Token “<span safe>{props.created.name}</span>” created.</strong>
          <p>Copy the secret now. It is shown only this once and cannot be recovered; only its hash is stored.</p>
          <code class="secret" safe>{props.created.secret}</code>
        </div>
      )}
      {canCreate && (
        <details class="card" open={failed}>
          <summary><strong>Create token</strong></summary>
          <form method="post" action="/settings/api-tokens">
            <Flash kind="error" message={props.error} />
            <CsrfField token={csrfToken} />
            <Field label="Name" name="name" value={form.name} error={errors.name} required maxlength={120}
              hint="Say what uses the token and who owns it, e.g. “Bundle loader (J. Smith)”." />
            <Field label="Expiry date" name="expiresAt" type="date" value={form.expiresAt} error={errors.expiresAt}
              hint={maxDays === 0 ? 'Optional. Blank means the token never expires.' : `Optional. At most ${maxDays} days from today; blank gets the maximum.`} />
            <fieldset aria-describedby={errors.scopes ? 'scopes-error' : undefined}>
              <legend>Scopes</legend>
              <p class="muted">Only the rights you hold are offered. Tick at least one.</p>
              {errors.scopes && <p class="error" id="scopes-error" role="alert" safe>{errors.scopes}</p>}
              {grantableScopes(viewer).map((group) => (
                <div class="field">
                  <strong safe>{group.module}</strong>
                  <div class="checks">
                    {group.scopes.map((scope) => (
                      <label>
                        <input type="checkbox" name="scopes" value={scope} checked={form.scopes.includes(scope)} />
                        <span safe>{scope.split(':')[1]}</span>
                      </label>
                    ))}
                  </div>
                </div>
              ))}
            </fieldset>
            <button type="submit">Create token</button>
          </form>
        </details>
      )}
      <FilteredList<TokenView> path="/settings/api-tokens" name="token" one="token" many="tokens" state={props.state} page={tokens} defaultSort="-createdAt"
        empty="No API tokens." search="Search names, creators and scopes"
        selects={[
          { name: 'status', label: 'Status', options: [...TOKEN_STATUS_OPTIONS] },
          ...(props.creators.length > 1 ? [{ name: 'createdBy', label: 'Created by', any: 'Anyone', options: props.creators }] : []),
        ]}
        columns={[
          { header: 'Name', sort: 'name', cell: (t) => <Text value={t.name} /> },
          { header: 'Scopes', cell: (t) => <Tags values={t.scopes.map(scopeLabel)} /> },
          { header: 'Created by', sort: 'createdBy', cell: (t) => <Text value={t.createdBy.name} /> },
          { header: 'Created', sort: 'createdAt', cell: (t) => <When value={t.createdAt} local /> },
          { header: 'Last used', sort: 'lastUsedAt', cell: (t) => <When value={t.lastUsedAt} empty="never" local /> },
          { header: 'Expires', sort: 'expiresAt', cell: (t) => <Text value={lastValidDay(t.expiresAt ? new Date(t.expiresAt) : null) ?? 'never'} /> },
          { header: 'Status', sort: 'status', cell: (t) => <span class={`status-${t.status.toLowerCase()}`} safe>{t.status}</span> },
          {
            header: '',
            cell: (t) => mayRevoke(viewer, t)
              ? <a class="button small danger" href={`/settings/api-tokens/${t.id}/revoke`} aria-label={`Revoke ${t.name}`}>Revoke</a>
              : '',
          },
        ]}
      />
    </section>
  );
}

export function RevokeConfirm({ token, csrfToken }: { token: TokenView; csrfToken: string }) {
  return (
    <div class="card">
      <p>
        Revoke the token “<strong safe>{token.name}</strong>” created by <span safe>{token.createdBy.email}</span>?
        Anything using it stops working at once. This cannot be undone.
      </p>
      <form method="post" action={`/settings/api-tokens/${token.id}/revoke`} class="actions">
        <CsrfField token={csrfToken} />
        <button type="submit" class="danger">Revoke token</button>
        <a href="/settings/api-tokens">Cancel</a>
      </form>
    </div>
  );
}

/** Signed-in sessions, for administrators (settings:read at level all), each with the power to end it. */
function ActiveSessions({ viewer, csrfToken, sessions, state }: { viewer: Actor; csrfToken: string; sessions: ListPage<ActiveSession>; state: ListState }) {
  const canEnd = levelOf(viewer, 'settings:update') === 'all';
  return (
    <div class="card">
      <h2>Active sessions</h2>
      <FilteredList<ActiveSession> path="/settings/sessions" name="session" one="active session" many="active sessions" state={state} page={sessions} defaultSort="-createdAt"
        empty="No active sessions." search="Search names and emails"
        selects={[{ name: 'signedInWith', label: 'Signed in with', options: Object.entries(SIGN_IN_LABELS).map(([value, label]) => ({ value, label })) }]}
        columns={[
          { header: 'User', sort: 'name', cell: (s) => <><Text value={s.name} /> <span class="muted" safe>{s.email}</span></> },
          { header: 'Signed in with', cell: (s) => <Text value={SIGN_IN_LABELS[s.signedInWith]} /> },
          { header: 'Signed in', sort: 'createdAt', cell: (s) => <When value={s.createdAt} local /> },
          { header: 'Last request', sort: 'lastSeenAt', cell: (s) => <When value={s.lastSeenAt} local /> },
          { header: 'Expires', sort: 'expiresAt', cell: (s) => <When value={s.expiresAt} local /> },
          {
            header: '',
            cell: (s) => canEnd ? (
              <form method="post" action={`/settings/sessions/${s.id}/end`} class="inline">
                <CsrfField token={csrfToken} />
                <button type="submit" class="small danger" aria-label={`End session of ${s.email}`}>End</button>
              </form>
            ) : '',
          },
        ]}
      />
    </div>
  );
}

export function SessionsContent({ viewer, csrfToken, maxDays, session, sessions, twoFactor, done, error, errors = {} }: {
  viewer: Actor; csrfToken: string; maxDays: number; session: SessionSettings; sessions: { page: ListPage<ActiveSession>; state: ListState } | null; twoFactor: TwoFactorRule;
  done?: string; error?: string; errors?: FieldErrors;
}) {
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  return (
    <section id="sessions">
      <Flash kind="success" message={done === 'saved' ? 'Saved.' : done === 'ended' ? 'Session ended.' : undefined} />
      <div class="card">
        <h2>Browser sessions</h2>
        {canUpdate ? (
          <form method="post" action="/settings/sessions/browser">
            <CsrfField token={csrfToken} />
            <Field label="Session lifetime (hours)" name="lifetimeHours" type="number" value={String(session.lifetimeHours)} min={1} max={720} required
              error={errors.lifetimeHours} hint="A sign-in lasts this long; applies to sign-ins from now on." />
            <Field label="Idle timeout (minutes)" name="idleMinutes" type="number" value={String(session.idleMinutes)} min={0} max={43200} required
              error={errors.idleMinutes} hint="A session with no request for this long ends; 0: no idle timeout. Applies at once." />
            <button type="submit">Save</button>
          </form>
        ) : (
          <p>Sessions last <strong safe>{`${session.lifetimeHours} hours`}</strong>{session.idleMinutes ? <> and end after <strong safe>{`${session.idleMinutes} minutes`}</strong> without a request</> : ''}.</p>
        )}
        <p class="muted">Sessions also end on sign-out, a password change (the other sessions) or at once when the account is deactivated.</p>
      </div>
      <div class="card">
        <h2>API token lifetime</h2>
        {canUpdate ? (
          <form method="post" action="/settings/sessions">
            <CsrfField token={csrfToken} />
            <Field label="Maximum token lifetime (days)" name="maxLifetimeDays" type="number" value={maxDays} min={0} max={3650} error={error} required
              hint="A blank expiry date gets this many days; a later date is refused. 0 means no maximum (blank never expires)." />
            <button type="submit">Save</button>
          </form>
        ) : (
          <p>Maximum token lifetime: <strong safe>{maxDays === 0 ? 'no maximum' : `${maxDays} days`}</strong></p>
        )}
      </div>
      <TwoFactorRuleCard csrfToken={csrfToken} rule={twoFactor} canUpdate={levelOf(viewer, 'settings:update') === 'all'} />
      {sessions && <ActiveSessions viewer={viewer} csrfToken={csrfToken} sessions={sessions.page} state={sessions.state} />}
    </section>
  );
}
