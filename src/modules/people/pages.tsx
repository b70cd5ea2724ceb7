import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/context';
import { runWrite } from '../../platform/context';
import { AppError, forbidden, invalid, type FieldProblem } from '../../platform/errors';
import { levelOf, MODULES, rightsOf, type Actor, type Permission } from '../../platform/permissions';
import { clearSessionCookie, cookieSecret, safeNext, screenAuth, setSessionCookie } from '../../platform/screen-auth';
import { resolveSession, sessionIdOf, sessionSettings, signOut, THROTTLE_WINDOW_MINUTES } from '../../platform/sessions';
import { passwordSignIn } from './sign-in/settings-service';
import { ssoSignInOption } from './sign-in/pages';
import { BreakGlassCard } from './sign-in/views';
import { clientAddress, refusalLimiter } from '../../platform/refusals';
import { passwordProblem } from '../../platform/password-policy';
import { BareLayout, renderScreen, settingsLinksFor } from '../../../views/layout';
import { Flash } from '../../../views/components/flash';
import { attempt, CsrfField, Field, fieldErrors, formText, Select, type FieldErrors } from '../../../views/components/form';
import { DataTable, Tags, Text, When } from '../../../views/components/table';
import {
  addGroupMember, assignRoleToGroup, changeOwnPassword, createGroup, createPasswordResetLink, passwordResetFor, RESET_LINK_HOURS,
  RESET_LINK_INVALID, usePasswordReset, createRole, createUser, deleteRole, listGroupDetails,
  listRoles, listUsers, removeGroupMember, removeRoleFromGroup, setUserStatus, updateRole, updateUser,
} from './service';
import { twoFactorAfterPassword } from './two-factor/gate';
import { TwoFactorUserCard } from './two-factor/views';

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

const signInPage = ({ sso, ...props }: { email: string; next: string; error?: string; notice?: string; sso: JSX.Element }) =>
  <BareLayout title="Sign in"><>{sso}<SignInForm {...props} /></></BareLayout>;

/** A browser sending Origin from another site is refused: stops a forged form signing a victim into another account. */
export function sameOrigin(request: Request): boolean {
  const origin = request.headers.get('origin');
  if (!origin || origin === 'null') return origin === null;
  try {
    return new URL(origin).host === (request.headers.get('host') ?? new URL(request.url).host);
  } catch {
    return false;
  }
}

/* ---------- Users ---------- */

type UserRow = Awaited<ReturnType<typeof listUsers>>[number];
type GroupRow = Awaited<ReturnType<typeof listGroupDetails>>[number];
type RoleRow = Awaited<ReturnType<typeof listRoles>>[number];

const DONE_MESSAGES: Record<string, string> = {
  'user-created': 'User created.',
  'user-updated': 'User updated.',
  'group-created': 'Group created.',
  'group-updated': 'Group updated.',
  'role-created': 'Role created.',
  'role-updated': 'Role saved.',
  'role-deleted': 'Role deleted.',
  'password-changed': 'Password changed. Your other sessions have ended.',
};

interface UserForm {
  name: string;
  email: string;
  groupId: string;
}

function UsersContent(props: {
  viewer: Actor; csrfToken: string; users: UserRow[]; groups: GroupRow[]; done?: string; form?: UserForm; errors?: FieldErrors; error?: string;
}) {
  const { viewer, csrfToken, users, groups } = props;
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  const canCreate = levelOf(viewer, 'settings:create') !== null;
  const groupsOf = (userId: string) => groups.filter((g) => g.memberIds.includes(userId)).map((g) => g.name);
  const groupOptions = [{ value: '', label: '(none)' }, ...groups.map((g) => ({ value: g.id, label: g.name }))];
  const form = props.form ?? { name: '', email: '', groupId: '' };
  const errors = props.errors ?? {};
  return (
    <section id="users">
      <Flash kind="success" message={props.done ? DONE_MESSAGES[props.done] : undefined} />
      <DataTable<UserRow>
        rows={users}
        empty="No users."
        columns={[
          { header: 'Name', cell: (u) => <Text value={u.name} /> },
          { header: 'Email', cell: (u) => <Text value={u.email} /> },
          { header: 'Status', cell: (u) => <span class={`status-${u.status}`} safe>{u.status === 'active' ? 'Active' : 'Deactivated'}</span> },
          { header: 'Groups', cell: (u) => <Tags values={groupsOf(u.id)} /> },
          { header: 'Created', cell: (u) => <When value={u.createdAt} /> },
          ...(canUpdate ? [{
            header: 'Actions',
            cell: (u: UserRow) => (
              <div class="actions">
                <a class="button small secondary" href={`/settings/users/${u.id}`}>Edit</a>
                {u.id !== viewer.userId && (
                  <form method="post" action={`/settings/users/${u.id}/status`} class="inline">
                    <CsrfField token={csrfToken} />
                    <input type="hidden" name="status" value={u.status === 'active' ? 'deactivated' : 'active'} />
                    <button type="submit" class={u.status === 'active' ? 'small danger' : 'small secondary'}>
                      {u.status === 'active' ? 'Deactivate' : 'Reactivate'}
                    </button>
                  </form>
                )}
                <form method="post" action={`/settings/users/${u.id}/groups`} class="inline">
                  <CsrfField token={csrfToken} />
                  <label class="muted" for={`g-${u.id}`}>Add to group </label>
                  <Select id={`g-${u.id}`} name="groupId" options={groups.filter((g) => !g.memberIds.includes(u.id)).map((g) => ({ value: g.id, label: g.name }))} />
                  <button type="submit" class="small secondary">Add</button>
                </form>
              </div>
            ),
          }] : []),
        ]}
      />
      {canCreate && (
        <details class="card" open={props.error !== undefined || Object.keys(errors).length > 0}>
          <summary><strong>Create user</strong></summary>
          <form method="post" action="/settings/users">
            <Flash kind="error" message={props.error} />
            <CsrfField token={csrfToken} />
            <Field label="Name" name="name" value={form.name} error={errors.name} required maxlength={200} />
            <Field label="Email" name="email" type="email" value={form.email} error={errors.email} required maxlength={254} />
            <Field label="Password" name="password" type="password" error={errors.password} autocomplete="new-password"
              hint="At least 12 characters, not a commonly used password. Leave blank for an account that signs in through the identity provider only." />
            <Field label="Group" name="groupId" error={errors.groupIds}>
              <Select name="groupId" options={groupOptions} selected={form.groupId} />
            </Field>
            <button type="submit">Create user</button>
          </form>
        </details>
      )}
    </section>
  );
}

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function checkUserForm(form: UserForm, password: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!form.name.trim()) problems.push({ field: 'name', message: 'is required' });
  if (form.name.length > 200) problems.push({ field: 'name', message: 'must be at most 200 characters' });
  if (!EMAIL_PATTERN.test(form.email.trim()) || form.email.length > 254) problems.push({ field: 'email', message: 'must be an email address' });
  const weak = password ? passwordProblem(password, { email: form.email }) : null;
  if (weak) problems.push({ field: 'password', message: weak });
  return problems;
}

/* ---------- Groups ---------- */

function GroupsContent(props: {
  viewer: Actor; csrfToken: string; groups: GroupRow[]; users: UserRow[]; roles: RoleRow[]; done?: string;
  form?: { name: string; description: string }; errors?: FieldErrors; error?: string;
}) {
  const { viewer, csrfToken, groups, users, roles } = props;
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  const canCreate = levelOf(viewer, 'settings:create') !== null;
  const userById = new Map(users.map((u) => [u.id, u]));
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const form = props.form ?? { name: '', description: '' };
  const errors = props.errors ?? {};
  return (
    <section id="groups">
      <Flash kind="success" message={props.done ? DONE_MESSAGES[props.done] : undefined} />
      <DataTable<GroupRow>
        rows={groups}
        empty="No groups."
        columns={[
          { header: 'Group', cell: (g) => <><strong safe>{g.name}</strong><div class="muted" safe>{g.description}</div></> },
          {
            header: 'Members',
            cell: (g) => (
              <ul>
                {g.memberIds.map((id) => (
                  <li>
                    <span safe>{userById.get(id)?.email ?? id}</span>{' '}
                    {canUpdate && (
                      <form method="post" action={`/settings/groups/${g.id}/members/${id}/remove`} class="inline">
                        <CsrfField token={csrfToken} />
                        <button type="submit" class="link small">remove</button>
                      </form>
                    )}
                  </li>
                ))}
              </ul>
            ),
          },
          {
            header: 'Roles',
            cell: (g) => (
              <ul>
                {g.roleIds.map((id) => (
                  <li>
                    <span class="tag" safe>{roleById.get(id)?.name ?? id}</span>{' '}
                    {canUpdate && (
                      <form method="post" action={`/settings/groups/${g.id}/roles/${id}/remove`} class="inline">
                        <CsrfField token={csrfToken} />
                        <button type="submit" class="link small" aria-label={`Take ${roleById.get(id)?.name ?? 'role'} from ${g.name}`}>remove</button>
                      </form>
                    )}
                  </li>
                ))}
              </ul>
            ),
          },
          ...(canUpdate ? [{
            header: 'Actions',
            cell: (g: GroupRow) => (
              <div>
                <form method="post" action={`/settings/groups/${g.id}/members`} class="actions">
                  <CsrfField token={csrfToken} />
                  <Select id={`m-${g.id}`} name="userId" options={users.filter((u) => !g.memberIds.includes(u.id)).map((u) => ({ value: u.id, label: u.email }))} />
                  <button type="submit" class="small secondary">Add member</button>
                </form>
                <form method="post" action={`/settings/groups/${g.id}/roles`} class="actions">
                  <CsrfField token={csrfToken} />
                  <Select id={`r-${g.id}`} name="roleId" options={roles.filter((r) => !g.roleIds.includes(r.id)).map((r) => ({ value: r.id, label: r.name }))} />
                  <button type="submit" class="small secondary">Give role</button>
                </form>
              </div>
            ),
          }] : []),
        ]}
      />
      {canCreate && (
        <details class="card" open={props.error !== undefined || Object.keys(errors).length > 0}>
          <summary><strong>Create group</strong></summary>
          <form method="post" action="/settings/groups">
            <Flash kind="error" message={props.error} />
            <CsrfField token={csrfToken} />
            <Field label="Name" name="name" value={form.name} error={errors.name} required maxlength={120} />
            <Field label="Description" name="description" type="textarea" value={form.description} error={errors.description} maxlength={2000} />
            <button type="submit">Create group</button>
          </form>
        </details>
      )}
    </section>
  );
}

/* ---------- Roles ---------- */

function RolesContent(props: {
  viewer: Actor; csrfToken: string; roles: RoleRow[]; done?: string;
  form?: { name: string; description: string; grants: Record<string, string> }; errors?: FieldErrors; error?: string;
}) {
  const { viewer, csrfToken, roles } = props;
  const canCreate = levelOf(viewer, 'settings:create') !== null;
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  const form = props.form ?? { name: '', description: '', grants: {} };
  const errors = props.errors ?? {};
  return (
    <section id="roles">
      <Flash kind="success" message={props.done ? DONE_MESSAGES[props.done] : undefined} />
      {props.form === undefined && <Flash kind="error" message={props.error} />}
      <DataTable<RoleRow>
        rows={roles}
        empty="No roles."
        columns={[
          { header: 'Role', cell: (r) => <><strong safe>{r.name}</strong>{r.builtIn && <span class="tag">built-in</span>}<div class="muted" safe>{r.description}</div></> },
          { header: 'Permissions', cell: (r) => <Tags values={r.permissions.map((p) => `${p.permission} (${p.level})`)} /> },
          ...(canUpdate ? [{
            header: 'Actions',
            cell: (r: RoleRow) => r.builtIn ? '' : (
              <div class="actions">
                <a class="button small secondary" href={`/settings/roles/${r.id}`}>Edit</a>
                <form method="post" action={`/settings/roles/${r.id}/delete`} class="inline">
                  <CsrfField token={csrfToken} />
                  <button type="submit" class="small danger" aria-label={`Delete ${r.name}`}>Delete</button>
                </form>
              </div>
            ),
          }] : []),
        ]}
      />
      {canCreate && (
        <details class="card" open={props.error !== undefined || Object.keys(errors).length > 0}>
          <summary><strong>Create role</strong></summary>
          <RoleForm action="/settings/roles" submit="Create role" csrfToken={csrfToken} form={form} errors={errors} error={props.error} />
        </details>
      )}
    </section>
  );
}

interface RoleFormValues {
  name: string;
  description: string;
  grants: Record<string, string>;
}

const LEVEL_OPTIONS = [{ value: '', label: '—' }, { value: 'own', label: 'Own' }, { value: 'all', label: 'All' }];
const GRID_RIGHTS = ['read', 'create', 'update', 'delete', 'review'] as const;

/** The role editor: a grid of module × right, each cell a level (none, own, all). */
function RoleForm(p: { action: string; submit: string; csrfToken: string; form: RoleFormValues; errors: FieldErrors; error?: string }) {
  return (
    <form method="post" action={p.action}>
      <Flash kind="error" message={p.error} />
      <CsrfField token={p.csrfToken} />
      <Field label="Name" name="name" value={p.form.name} error={p.errors.name} required maxlength={120} />
      <Field label="Description" name="description" type="textarea" value={p.form.description} error={p.errors.description} maxlength={2000} />
      {p.errors.permissions && <p class="error" role="alert" safe>{p.errors.permissions}</p>}
      <div class="table-wrap">
        <table class="data">
          <thead><tr><th scope="col">Module</th>{GRID_RIGHTS.map((r) => <th scope="col" safe>{r}</th>)}</tr></thead>
          <tbody>
            {MODULES.map((module) => (
              <tr>
                <th scope="row" safe>{module}</th>
                {GRID_RIGHTS.map((right) => {
                  const permission = `${module}:${right}`;
                  return rightsOf(module).includes(right)
                    ? <td><Select id={`p-${permission}`} name={permission} options={LEVEL_OPTIONS} selected={p.form.grants[permission] ?? ''} aria-label={permission} /></td>
                    : <td class="muted">n/a</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p><button type="submit">{p.submit}</button></p>
    </form>
  );
}

/** Reads the role editor's form into values and the grants it names. */
function roleFormOf(body: unknown): { form: RoleFormValues; input: { name: string; description: string; permissions: { permission: Permission; level: 'own' | 'all' }[] }; problems: FieldProblem[] } {
  const grants: Record<string, string> = {};
  for (const permission of ALL_GRANTABLE) {
    const level = formText(body, permission);
    if (level === 'own' || level === 'all') grants[permission] = level;
  }
  const form = { name: formText(body, 'name'), description: formText(body, 'description'), grants };
  const problems: FieldProblem[] = [];
  if (!form.name.trim() || form.name.length > 120) problems.push({ field: 'name', message: 'must be 1 to 120 characters' });
  if (form.description.length > 2000) problems.push({ field: 'description', message: 'must be at most 2000 characters' });
  const permissions = Object.entries(grants).map(([permission, level]) => ({ permission: permission as Permission, level: level as 'own' | 'all' }));
  return { form, input: { name: form.name, description: form.description, permissions }, problems };
}

/* ---------- One user, and one's own password ---------- */

function UserEditContent(p: {
  csrfToken: string; user: UserRow; groups: GroupRow[]; form?: { name: string; email: string }; errors?: FieldErrors; error?: string;
  resetLink?: string; canReset?: boolean;
}) {
  const form = p.form ?? { name: p.user.name, email: p.user.email };
  const errors = p.errors ?? {};
  const memberOf = p.groups.filter((g) => g.memberIds.includes(p.user.id));
  return (
    <section id="user">
      <form method="post" action={`/settings/users/${p.user.id}`} class="card">
        <Flash kind="error" message={p.error} />
        <CsrfField token={p.csrfToken} />
        <Field label="Name" name="name" value={form.name} error={errors.name} required maxlength={200} />
        <Field label="Email" name="email" type="email" value={form.email} error={errors.email} required maxlength={254} hint="The sign-in address" />
        <p class="actions"><button type="submit">Save</button> <a href="/settings/users">Cancel</a></p>
      </form>
      <div class="card">
        <h2>Groups</h2>
        {memberOf.length === 0 ? <p class="muted">In no group: this user has no rights.</p> : (
          <ul>
            {memberOf.map((g) => (
              <li>
                <span safe>{g.name}</span>{' '}
                <form method="post" action={`/settings/groups/${g.id}/members/${p.user.id}/remove`} class="inline">
                  <CsrfField token={p.csrfToken} />
                  <button type="submit" class="link small" aria-label={`Remove from ${g.name}`}>remove</button>
                </form>
              </li>
            ))}
          </ul>
        )}
        <form method="post" action={`/settings/users/${p.user.id}/groups`} class="actions">
          <CsrfField token={p.csrfToken} />
          <label for="add-group">Add to group </label>
          <Select id="add-group" name="groupId" options={p.groups.filter((g) => !g.memberIds.includes(p.user.id)).map((g) => ({ value: g.id, label: g.name }))} />
          <button type="submit" class="small secondary">Add</button>
        </form>
      </div>
      {p.canReset && <BreakGlassCard csrfToken={p.csrfToken} userId={p.user.id} breakGlass={p.user.breakGlass} />}
      {p.canReset && p.user.status === 'active' && (
        <div class="card">
          <h2>Password</h2>
          {p.resetLink ? (
            <div role="status">
              <p>This link lets <span safe>{p.user.email}</span> set a new password once, within {String(RESET_LINK_HOURS)} hours. It was mailed to them and is not shown again.</p>
              <pre class="secret" safe>{p.resetLink}</pre>
            </div>
          ) : (
            <form method="post" action={`/settings/users/${p.user.id}/reset-link`}>
              <CsrfField token={p.csrfToken} />
              <p class="muted">Makes a one-use link to set a new password, mailed to the person; an earlier unused link stops working.</p>
              <button type="submit" class="secondary">Make a password reset link</button>
            </form>
          )}
        </div>
      )}
      {p.canReset && <TwoFactorUserCard userId={p.user.id} />}
    </section>
  );
}

function ResetPasswordForm({ secret, csrf, email, error, errors = {} }: { secret: string; csrf?: string; email: string; error?: string; errors?: FieldErrors }) {
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

const resetLinkGone = () => (
  <BareLayout title="Set your password">
    <div class="card"><Flash kind="error" message={RESET_LINK_INVALID} /><p><a href="/sign-in">Sign in</a></p></div>
  </BareLayout>
);

function PasswordContent(p: { csrfToken: string; done?: boolean; errors?: FieldErrors; error?: string }) {
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

const ALL_GRANTABLE = MODULES.flatMap((m) => rightsOf(m).map((r) => `${m}:${r}` as Permission));

/* ---------- Routes ---------- */

/** Sign-in, sign-out, the home redirect, and Settings › Users, Groups, Roles. Every write goes through the people service. */
export const peoplePages = (ctx: AppContext) =>
  new Elysia({ name: 'module:people:pages' })
    .use(screenAuth(ctx))
    .get('/sign-in', async ({ query, cookie, redirect, set }) => {
      const next = safeNext(query.next);
      if (await resolveSession(ctx.db, cookieSecret(ctx.config, cookie))) return redirect(next, 303);
      set.headers['content-type'] = 'text/html; charset=utf-8';
      return signInPage({ email: '', next, notice: query.reset === '1' ? 'Your new password is set. Sign in with it.' : undefined, sso: await ssoSignInOption(ctx.db, next) });
    })
    .post('/sign-in', async ({ body, cookie, redirect, set, request, server }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8';
      if (!sameOrigin(request)) throw forbidden('sign-in form posted from another site');
      const email = formText(body, 'email');
      const next = safeNext(formText(body, 'next'));
      const ip = clientAddress(request, server, ctx.config);
      try {
        const session = await passwordSignIn(ctx.db, email, formText(body, 'password'), ip, { sessionHours: (await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)).lifetimeHours, refusals: refusalLimiter(ctx), afterPassword: twoFactorAfterPassword(ctx, cookie, next) });
        if ('continueAt' in session) return redirect(session.continueAt, 303);
        setSessionCookie(ctx.config, cookie, session.secret, session.expiresAt);
        return redirect(next, 303);
      } catch (error) {
        if (!(error instanceof AppError) || !['UNAUTHORIZED', 'THROTTLED', 'UNAVAILABLE'].includes(error.code)) throw error;
        if (error.code !== 'UNAUTHORIZED') set.headers['retry-after'] = error.code === 'THROTTLED' ? String(THROTTLE_WINDOW_MINUTES * 60) : '5';
        set.status = error.status;
        return signInPage({ email, next, error: error.message, sso: await ssoSignInOption(ctx.db, next) });
      }
    })
    .post('/sign-out', async ({ cookie, redirect }) => {
      await signOut(ctx.db, cookieSecret(ctx.config, cookie));
      clearSessionCookie(ctx.config, cookie);
      return redirect('/sign-in', 303);
    })
    .get('/', ({ viewer, redirect }) => {
      if (levelOf(viewer, 'risks:read')) return redirect('/risks', 303);
      const [first] = settingsLinksFor(viewer);
      return redirect(first?.href ?? '/settings', 303);
    }, { page: true })
    .get('/settings', ({ viewer, csrfToken, headers }) => {
      const links = settingsLinksFor(viewer);
      return renderScreen(headers, { title: 'Settings', viewer, csrfToken }, (
        links.length
          ? <ul>{links.map((l) => <li><a href={l.href} safe>{l.label}</a></li>)}</ul>
          : <p class="muted">Your roles give you no pages here. Ask an administrator for access.</p>
      ));
    }, { page: true })

    // Users
    .get('/settings/users', async ({ viewer, csrfToken, headers, query }) => {
      const [users, groups] = await Promise.all([listUsers(ctx.db), listGroupDetails(ctx.db)]);
      return renderScreen(headers, { title: 'Users', viewer, csrfToken, active: 'users' },
        <UsersContent viewer={viewer} csrfToken={csrfToken} users={users} groups={groups} done={query.done} />);
    }, { page: 'settings:read' })
    .post('/settings/users', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const form: UserForm = { name: formText(body, 'name'), email: formText(body, 'email'), groupId: formText(body, 'groupId') };
      const password = formText(body, 'password');
      const result = await attempt(async () => {
        const problems = checkUserForm(form, password);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createUser(tx, viewer, {
          name: form.name, email: form.email, password: password || undefined, groupIds: form.groupId ? [form.groupId] : [],
        }));
      });
      if (result.ok) return redirect('/settings/users?done=user-created', 303);
      set.status = result.error.status;
      const [users, groups] = await Promise.all([listUsers(ctx.db), listGroupDetails(ctx.db)]);
      return renderScreen(headers, { title: 'Users', viewer, csrfToken, active: 'users' },
        <UsersContent viewer={viewer} csrfToken={csrfToken} users={users} groups={groups} form={form}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message} />);
    }, { page: 'settings:create' })
    .post('/settings/users/:id/status', async ({ viewer, params, body, redirect }) => {
      const status = formText(body, 'status') === 'active' ? 'active' : 'deactivated';
      await runWrite(ctx, (tx) => setUserStatus(tx, viewer, params.id, status));
      return redirect('/settings/users?done=user-updated', 303);
    }, { page: 'settings:update' })
    .post('/settings/users/:id/groups', async ({ viewer, params, body, redirect }) => {
      await runWrite(ctx, (tx) => addGroupMember(tx, viewer, formText(body, 'groupId'), params.id));
      return redirect('/settings/users?done=user-updated', 303);
    }, { page: 'settings:update' })

    // Groups
    .get('/settings/groups', async ({ viewer, csrfToken, headers, query }) => {
      const [groups, users, roles] = await Promise.all([listGroupDetails(ctx.db), listUsers(ctx.db), listRoles(ctx.db)]);
      return renderScreen(headers, { title: 'Groups', viewer, csrfToken, active: 'groups' },
        <GroupsContent viewer={viewer} csrfToken={csrfToken} groups={groups} users={users} roles={roles} done={query.done} />);
    }, { page: 'settings:read' })
    .post('/settings/groups', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), description: formText(body, 'description') };
      const result = await attempt(async () => {
        const problems: FieldProblem[] = [];
        if (!form.name.trim() || form.name.length > 120) problems.push({ field: 'name', message: 'must be 1 to 120 characters' });
        if (form.description.length > 2000) problems.push({ field: 'description', message: 'must be at most 2000 characters' });
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createGroup(tx, viewer, form));
      });
      if (result.ok) return redirect('/settings/groups?done=group-created', 303);
      set.status = result.error.status;
      const [groups, users, roles] = await Promise.all([listGroupDetails(ctx.db), listUsers(ctx.db), listRoles(ctx.db)]);
      return renderScreen(headers, { title: 'Groups', viewer, csrfToken, active: 'groups' },
        <GroupsContent viewer={viewer} csrfToken={csrfToken} groups={groups} users={users} roles={roles} form={form}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? undefined : result.error.message} />);
    }, { page: 'settings:create' })
    .post('/settings/groups/:id/members', async ({ viewer, params, body, redirect }) => {
      await runWrite(ctx, (tx) => addGroupMember(tx, viewer, params.id, formText(body, 'userId')));
      return redirect('/settings/groups?done=group-updated', 303);
    }, { page: 'settings:update' })
    .post('/settings/groups/:id/members/:userId/remove', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => removeGroupMember(tx, viewer, params.id, params.userId));
      return redirect('/settings/groups?done=group-updated', 303);
    }, { page: 'settings:update' })
    .post('/settings/groups/:id/roles', async ({ viewer, params, body, redirect }) => {
      await runWrite(ctx, (tx) => assignRoleToGroup(tx, viewer, params.id, formText(body, 'roleId')));
      return redirect('/settings/groups?done=group-updated', 303);
    }, { page: 'settings:update' })

    // Roles
    .get('/settings/roles', async ({ viewer, csrfToken, headers, query }) => {
      const roles = await listRoles(ctx.db);
      return renderScreen(headers, { title: 'Roles', viewer, csrfToken, active: 'roles' },
        <RolesContent viewer={viewer} csrfToken={csrfToken} roles={roles} done={query.done} />);
    }, { page: 'settings:read' })
    .post('/settings/roles', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const { form, input, problems } = roleFormOf(body);
      const result = await attempt(async () => {
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createRole(tx, viewer, input));
      });
      if (result.ok) return redirect('/settings/roles?done=role-created', 303);
      set.status = result.error.status;
      const roles = await listRoles(ctx.db);
      return renderScreen(headers, { title: 'Roles', viewer, csrfToken, active: 'roles' },
        <RolesContent viewer={viewer} csrfToken={csrfToken} roles={roles} form={form}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? undefined : result.error.message} />);
    }, { page: 'settings:create' })
    .get('/settings/roles/:id', async ({ viewer, csrfToken, headers, params }) => {
      const role = (await listRoles(ctx.db)).find((r) => r.id === params.id && !r.builtIn);
      if (!role) throw new AppError('NOT_FOUND', 'Custom role not found');
      const form = { name: role.name, description: role.description, grants: Object.fromEntries(role.permissions.map((g) => [g.permission, g.level])) };
      return renderScreen(headers, { title: `Edit role ${role.name}`, viewer, csrfToken, active: 'roles' },
        <RoleForm action={`/settings/roles/${role.id}`} submit="Save role" csrfToken={csrfToken} form={form} errors={{}} />);
    }, { page: 'settings:update' })
    .post('/settings/roles/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const { form, input, problems } = roleFormOf(body);
      const result = await attempt(async () => {
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => updateRole(tx, viewer, params.id, input));
      });
      if (result.ok) return redirect('/settings/roles?done=role-updated', 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Edit role', viewer, csrfToken, active: 'roles' },
        <RoleForm action={`/settings/roles/${params.id}`} submit="Save role" csrfToken={csrfToken} form={form}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? undefined : result.error.message} />);
    }, { page: 'settings:update' })
    .post('/settings/roles/:id/delete', async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => deleteRole(tx, viewer, params.id)));
      if (result.ok) return redirect('/settings/roles?done=role-deleted', 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Roles', viewer, csrfToken, active: 'roles' },
        <RolesContent viewer={viewer} csrfToken={csrfToken} roles={await listRoles(ctx.db)} error={result.error.message} />);
    }, { page: 'settings:update' })
    .post('/settings/groups/:id/roles/:roleId/remove', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => removeRoleFromGroup(tx, viewer, params.id, params.roleId));
      return redirect('/settings/groups?done=group-updated', 303);
    }, { page: 'settings:update' })

    // One user
    .get('/settings/users/:id', async ({ viewer, csrfToken, headers, params }) => {
      const [users, groups] = await Promise.all([listUsers(ctx.db), listGroupDetails(ctx.db)]);
      const user = users.find((u) => u.id === params.id);
      if (!user) throw new AppError('NOT_FOUND', 'User not found');
      return renderScreen(headers, { title: `Edit ${user.name}`, viewer, csrfToken, active: 'users' },
        <UserEditContent csrfToken={csrfToken} user={user} groups={groups} canReset={levelOf(viewer, 'settings:update') === 'all'} />);
    }, { page: 'settings:update' })
    .post('/settings/users/:id/reset-link', async ({ viewer, csrfToken, headers, params, request }) => {
      const { link } = await runWrite(ctx, (tx) => createPasswordResetLink(tx, viewer, params.id, new URL(request.url).origin));
      const [users, groups] = await Promise.all([listUsers(ctx.db), listGroupDetails(ctx.db)]);
      const user = users.find((u) => u.id === params.id)!;
      return renderScreen(headers, { title: `Edit ${user.name}`, viewer, csrfToken, active: 'users' },
        <UserEditContent csrfToken={csrfToken} user={user} groups={groups} canReset resetLink={link} />);
    }, { page: 'settings:update' })

    // A password reset link (no sign-in: the link's secret is the credential)
    .get('/reset-password/:secret', async ({ params, cookie, set }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8';
      set.headers['cache-control'] = 'no-store';
      set.headers['referrer-policy'] = 'no-referrer';
      const target = await passwordResetFor(ctx.db, params.secret);
      if (!target) {
        set.status = 404;
        return resetLinkGone();
      }
      // A browser signed in to another account still posts this form: its session's CSRF token goes with it.
      const session = await resolveSession(ctx.db, cookieSecret(ctx.config, cookie));
      return <ResetPasswordForm secret={params.secret} csrf={session?.csrfToken} email={target.email} />;
    })
    .post('/reset-password/:secret', async ({ params, body, cookie, redirect, set, request }) => {
      set.headers['content-type'] = 'text/html; charset=utf-8';
      set.headers['cache-control'] = 'no-store';
      if (!sameOrigin(request)) throw forbidden('password reset form posted from another site');
      const result = await attempt(() => runWrite(ctx, (tx) => usePasswordReset(tx, params.secret, formText(body, 'password'))));
      if (result.ok) {
        clearSessionCookie(ctx.config, cookie);
        return redirect('/sign-in?reset=1', 303);
      }
      set.status = result.error.status;
      if (result.error.code === 'NOT_FOUND') return resetLinkGone();
      const target = await passwordResetFor(ctx.db, params.secret);
      const session = await resolveSession(ctx.db, cookieSecret(ctx.config, cookie));
      return <ResetPasswordForm secret={params.secret} csrf={session?.csrfToken} email={target?.email ?? ''} errors={fieldErrors(result.error.problems)}
        error={result.error.problems.length ? undefined : result.error.message} />;
    })
    .post('/settings/users/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), email: formText(body, 'email') };
      const result = await attempt(async () => {
        const problems = checkUserForm({ ...form, groupId: '' }, '');
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => updateUser(tx, viewer, params.id, form));
      });
      if (result.ok) return redirect('/settings/users?done=user-updated', 303);
      set.status = result.error.status;
      const [users, groups] = await Promise.all([listUsers(ctx.db), listGroupDetails(ctx.db)]);
      const user = users.find((u) => u.id === params.id);
      if (!user) throw new AppError('NOT_FOUND', 'User not found');
      return renderScreen(headers, { title: `Edit ${user.name}`, viewer, csrfToken, active: 'users' },
        <UserEditContent csrfToken={csrfToken} user={user} groups={groups} form={form}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message} />);
    }, { page: 'settings:update' })

    // One's own password
    .get('/settings/password', ({ viewer, csrfToken, headers, query }) =>
      renderScreen(headers, { title: 'Change password', viewer, csrfToken }, <PasswordContent csrfToken={csrfToken} done={query.done === 'password-changed'} />),
    { page: true })
    .post('/settings/password', async ({ viewer, csrfToken, headers, body, cookie, redirect, set }) => {
      const secret = cookieSecret(ctx.config, cookie);
      const result = await attempt(() => runWrite(ctx, (tx) =>
        changeOwnPassword(tx, viewer, formText(body, 'currentPassword'), formText(body, 'newPassword'), secret ? sessionIdOf(secret) : null)));
      if (result.ok) return redirect('/settings/password?done=password-changed', 303);
      set.status = result.error.status;
      return renderScreen(headers, { title: 'Change password', viewer, csrfToken },
        <PasswordContent csrfToken={csrfToken} errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? undefined : result.error.message} />);
    }, { page: true });
