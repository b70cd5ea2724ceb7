import { linkBase } from '../../platform/http/public-address';
import { Elysia } from 'elysia';
import type { AppContext } from '../../platform/http/context';
import { runWrite } from '../../platform/http/context';
import { AppError, forbidden, invalid, type FieldProblem } from '../../platform/core/errors';
import { ALL_PERMISSIONS, levelOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { clearSessionCookie, cookieSecret, currentSessionId, safeNext, screenAuth, setSessionCookie } from '../../platform/http/screen-auth';
import { resolveSession, retryAfterSeconds, sessionSettings, signOut, THROTTLE_WINDOW_MINUTES } from '../../platform/http/sessions';
import { ssoSignInOption } from './sign-in/pages';
import { clientAddress, refusalLimiter } from '../../platform/http/refusals';
import { passwordProblem } from '../../platform/core/password-policy';
import { renderScreen, settingsLinksFor } from '../../platform/http/screen';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import {
  addGroupMember, assignRoleToGroup, changeOwnPassword, createGroup, createPasswordResetLink, passwordResetFor, usePasswordReset, createRole,
  createUser, deleteRole, listGroupDetails, listRoles, listUsers, removeGroupMember, removeRoleFromGroup, setUserStatus, updateRole, updateUser,
} from './service';
import { groupCsvRows, groupListFilters, listGroupPage, listUserPage, roleCsvColumns, roleListRules, userCsvRows, userListFilters } from './directory-lists';
import { chosenRows, pageOf, pageOfRows, ruledState } from '../../platform/http/list-query';
import { csvDownload, csvFile } from '../../platform/csv/list-download';
import { readerZone } from '../../platform/csv/zone';
import { UsersContent, GroupsContent, RolesContent, RoleForm, UserEditContent, type UserForm, type RoleFormValues } from './views/directory';
import { signInWithPasswordOrDirectory } from './sign-in/ldap';
import { requirePasswordAllowed } from './sign-in/break-glass';
import { twoFactorAfterPassword } from './two-factor/gate';
import { signInPage, ResetPasswordForm, resetLinkGone, PasswordContent } from './views/accounts';

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

/** Reads the role editor's form into values and the grants it names. */
function roleFormOf(body: unknown): { form: RoleFormValues; input: { name: string; description: string; permissions: { permission: Permission; level: 'own' | 'all' }[] }; problems: FieldProblem[] } {
  const grants: Record<string, string> = {};
  for (const permission of ALL_PERMISSIONS) {
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

/* ---------- Routes ---------- */

type Query = Record<string, string | undefined>;
type Headers = Record<string, string | undefined>;


/** Sign-in, sign-out, the home redirect, and Settings › Users, Groups, Roles. Every write goes through the people service. */
export const peoplePages = (ctx: AppContext) => {
  /** Settings › Users: the filtered, sorted page of users, and the create form (refused: its values and errors). */
  const usersScreen = async (viewer: Actor, csrfToken: string, headers: Headers, query: Query, extra: { done?: string; form?: UserForm; errors?: Record<string, string>; error?: string }) => {
    const filters = userListFilters(query);
    const [users, groups, roles] = await Promise.all([listUserPage(ctx.db, filters, pageOf(query.page)), listGroupDetails(ctx.db), listRoles(ctx.db)]);
    return renderScreen(headers, { title: 'Users', viewer, csrfToken, active: 'users' },
      <UsersContent viewer={viewer} csrfToken={csrfToken} users={users} filters={filters} groups={groups} roles={roles} {...extra} />);
  };
  /** Settings › Groups: the searched, sorted page of groups, and the create form. */
  const groupsScreen = async (viewer: Actor, csrfToken: string, headers: Headers, query: Query, extra: { done?: string; form?: { name: string; description: string }; errors?: Record<string, string>; error?: string }) => {
    const filters = groupListFilters(query);
    const [groups, users, roles] = await Promise.all([listGroupPage(ctx.db, filters, pageOf(query.page)), listUsers(ctx.db), listRoles(ctx.db)]);
    return renderScreen(headers, { title: 'Groups', viewer, csrfToken, active: 'groups' },
      <GroupsContent viewer={viewer} csrfToken={csrfToken} groups={groups} filters={filters} users={users} roles={roles} {...extra} />);
  };
  /** Settings › Roles: the searched, filtered and sorted roles, and the create form. */
  const rolesScreen = async (viewer: Actor, csrfToken: string, headers: Headers, query: Query, extra: { done?: string; form?: RoleFormValues; errors?: Record<string, string>; error?: string }) => {
    const rules = roleListRules();
    const state = ruledState(query, rules);
    const roles = pageOfRows(chosenRows(await listRoles(ctx.db), state, rules), state);
    return renderScreen(headers, { title: 'Roles', viewer, csrfToken, active: 'roles' },
      <RolesContent viewer={viewer} csrfToken={csrfToken} roles={roles} state={state} {...extra} />);
  };
  return new Elysia({ name: 'module:people:pages' })
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
        const session = await signInWithPasswordOrDirectory(ctx, email, formText(body, 'password'), ip, { sessionHours: (await sessionSettings(ctx.db, ctx.config.SESSION_HOURS)).lifetimeHours, refusals: refusalLimiter(ctx), afterPassword: twoFactorAfterPassword(ctx, cookie, next) });
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
    .get('/settings', ({ viewer, csrfToken, headers }) => {
      const links = settingsLinksFor(viewer);
      return renderScreen(headers, { title: 'Settings', viewer, csrfToken }, (
        links.length
          ? <ul>{links.map((l) => <li><a href={l.href} safe>{l.label}</a></li>)}</ul>
          : <p class="muted">Your roles give you no pages here. Ask an administrator for access.</p>
      ));
    }, { page: true })

    // Users
    .get('/settings/users', ({ viewer, csrfToken, headers, query }) => usersScreen(viewer, csrfToken, headers, query, { done: query.done }), { page: 'settings:read' })
    // The users of the filters, in the list's order, as CSV (times in the reader's zone when the link carries it).
    .get('/settings/users/export.csv', async ({ query, set }) => {
      const rows = await userCsvRows(ctx.db, userListFilters(query), readerZone(query.tz));
      return csvFile(set, 'users', rows);
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
      return usersScreen(viewer, csrfToken, headers, {}, {
        form, errors: fieldErrors(result.error.problems), error: result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message,
      });
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
    .get('/settings/groups', ({ viewer, csrfToken, headers, query }) => groupsScreen(viewer, csrfToken, headers, query, { done: query.done }), { page: 'settings:read' })
    .get('/settings/groups/export.csv', async ({ query, set }) => csvFile(set, 'groups', await groupCsvRows(ctx.db, groupListFilters(query))), { page: 'settings:read' })
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
      return groupsScreen(viewer, csrfToken, headers, {}, {
        form, errors: fieldErrors(result.error.problems), error: result.error.problems.length ? undefined : result.error.message,
      });
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
    .get('/settings/roles', ({ viewer, csrfToken, headers, query }) => rolesScreen(viewer, csrfToken, headers, query, { done: query.done }), { page: 'settings:read' })
    // The roles of the filters, in the list's order, as CSV: rights as 'Risks: read (all)'.
    .get('/settings/roles/export.csv', async ({ query, set }) => {
      const rules = roleListRules();
      return csvDownload(set, 'roles', roleCsvColumns, chosenRows(await listRoles(ctx.db), ruledState(query, rules), rules));
    }, { page: 'settings:read' })
    .post('/settings/roles', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const { form, input, problems } = roleFormOf(body);
      const result = await attempt(async () => {
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createRole(tx, viewer, input));
      });
      if (result.ok) return redirect('/settings/roles?done=role-created', 303);
      set.status = result.error.status;
      return rolesScreen(viewer, csrfToken, headers, {}, {
        form, errors: fieldErrors(result.error.problems), error: result.error.problems.length ? undefined : result.error.message,
      });
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
      return rolesScreen(viewer, csrfToken, headers, {}, { error: result.error.message });
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
      const { link } = await runWrite(ctx, (tx) => createPasswordResetLink(tx, viewer, params.id, linkBase(ctx.config.PUBLIC_URL, request.url)));
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
      const allowed = await attempt(() => requirePasswordAllowed(ctx.db, target.userId));
      if (!allowed.ok) {
        set.status = allowed.error.status;
        return <ResetPasswordForm secret={params.secret} email={target.email} error={allowed.error.message} closed />;
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
    .post('/settings/password', async ({ viewer, csrfToken, headers, body, cookie, redirect, set, request, server }) => {
      const result = await attempt(() => changeOwnPassword(ctx.db, viewer, {
        current: formText(body, 'currentPassword'), next: formText(body, 'newPassword'),
        keepSessionId: currentSessionId(ctx.config, cookie), ip: clientAddress(request, server, ctx.config), refusals: refusalLimiter(ctx),
      }));
      if (result.ok) return redirect('/settings/password?done=password-changed', 303);
      set.status = result.error.status;
      const wait = retryAfterSeconds(result.error);
      if (wait !== null) set.headers['retry-after'] = String(wait);
      return renderScreen(headers, { title: 'Change password', viewer, csrfToken },
        <PasswordContent csrfToken={csrfToken} errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? undefined : result.error.message} />);
    }, { page: true });
};
