import { levelOf, MODULES, rightsOf, type Actor } from '../../../platform/permissions/permissions';
import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors } from '../../../../views/components/form';
import { Tags, Text, When } from '../../../../views/components/table';
import { areaLabel } from '../../../platform/http/installed';
import { FilteredList, type ListPage, type ListState } from '../../../../views/components/list';
import { grantLabel, ROLE_KIND_LABELS, USER_STATUS_LABELS, type GroupListFilters, type GroupListRow, type UserListFilters, type UserListRow } from '../directory-lists';
import { listGroupDetails, listRoles, listUsers, RESET_LINK_HOURS } from '../service';
import { BreakGlassCard } from '../sign-in/views';
import { TwoFactorUserCard } from '../two-factor/views';

/* ---------- Users ---------- */

export type UserRow = Awaited<ReturnType<typeof listUsers>>[number];
export type GroupRow = Awaited<ReturnType<typeof listGroupDetails>>[number];
export type RoleRow = Awaited<ReturnType<typeof listRoles>>[number];

export const DONE_MESSAGES: Record<string, string> = {
  'user-created': 'User created.',
  'user-updated': 'User updated.',
  'group-created': 'Group created.',
  'group-updated': 'Group updated.',
  'role-created': 'Role created.',
  'role-updated': 'Role saved.',
  'role-deleted': 'Role deleted.',
  'password-changed': 'Password changed. Your other sessions have ended.',
};

export interface UserForm {
  name: string;
  email: string;
  groupId: string;
}

export function UsersContent(props: {
  viewer: Actor; csrfToken: string; users: ListPage<UserListRow>; filters: UserListFilters; groups: GroupRow[]; roles: RoleRow[];
  done?: string; form?: UserForm; errors?: FieldErrors; error?: string;
}) {
  const { viewer, csrfToken, users, groups, filters: f } = props;
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  const canCreate = levelOf(viewer, 'settings:create') !== null;
  const groupIdsOf = new Map<string, string[]>();
  for (const g of groups) for (const m of g.memberIds) groupIdsOf.set(m, [...(groupIdsOf.get(m) ?? []), g.id]);
  const groupOptions = [{ value: '', label: '(none)' }, ...groups.map((g) => ({ value: g.id, label: g.name }))];
  const form = props.form ?? { name: '', email: '', groupId: '' };
  const errors = props.errors ?? {};
  const state: ListState = { q: f.q, filters: { status: f.status, roleId: f.roleId, groupId: f.groupId }, sort: f.sort, page: users.page };
  return (
    <section id="users">
      <Flash kind="success" message={props.done ? DONE_MESSAGES[props.done] : undefined} />
      <FilteredList<UserListRow> path="/settings/users" name="user" one="user" many="users" state={state} page={users} defaultSort="name"
        empty="No users." search="Search names and emails"
        selects={[
          { name: 'status', label: 'Status', options: Object.entries(USER_STATUS_LABELS).map(([value, label]) => ({ value, label })) },
          { name: 'roleId', label: 'Role', options: props.roles.map((r) => ({ value: r.id, label: r.name })) },
          { name: 'groupId', label: 'Group', options: groups.map((g) => ({ value: g.id, label: g.name })) },
        ]}
        columns={[
          { header: 'Name', sort: 'name', cell: (u) => <><Text value={u.name} />{u.breakGlass && <> <span class="tag" title="May sign in with a password when only SSO sign-in is allowed">break-glass</span></>}</> },
          { header: 'Email', sort: 'email', cell: (u) => <Text value={u.email} /> },
          { header: 'Status', sort: 'status', cell: (u) => <span class={`status-${u.status}`} safe>{USER_STATUS_LABELS[u.status]}</span> },
          { header: 'Groups', cell: (u) => <Tags values={u.groups} /> },
          { header: 'Roles', cell: (u) => <Tags values={u.roles} /> },
          { header: 'Created', sort: 'createdAt', cell: (u) => <When value={u.createdAt} local /> },
          ...(canUpdate ? [{
            header: 'Actions',
            cell: (u: UserListRow) => (
              <div class="actions">
                <a class="button small secondary" href={`/settings/users/${u.id}`} aria-label={`Edit ${u.name}`}>Edit</a>
                {u.id !== viewer.userId && (
                  <form method="post" action={`/settings/users/${u.id}/status`} class="inline">
                    <CsrfField token={csrfToken} />
                    <input type="hidden" name="status" value={u.status === 'active' ? 'deactivated' : 'active'} />
                    <button type="submit" class={u.status === 'active' ? 'small danger' : 'small secondary'} aria-label={`${u.status === 'active' ? 'Deactivate' : 'Reactivate'} ${u.name}`}>
                      {u.status === 'active' ? 'Deactivate' : 'Reactivate'}
                    </button>
                  </form>
                )}
                <form method="post" action={`/settings/users/${u.id}/groups`} class="inline">
                  <CsrfField token={csrfToken} />
                  <label class="muted" for={`g-${u.id}`}>Add to group </label>
                  <Select id={`g-${u.id}`} name="groupId" options={groups.filter((g) => !(groupIdsOf.get(u.id) ?? []).includes(g.id)).map((g) => ({ value: g.id, label: g.name }))} />
                  <button type="submit" class="small secondary" aria-label={`Add ${u.name} to the group`}>Add</button>
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

/* ---------- Groups ---------- */

export function GroupsContent(props: {
  viewer: Actor; csrfToken: string; groups: ListPage<GroupListRow>; filters: GroupListFilters; users: UserRow[]; roles: RoleRow[]; done?: string;
  form?: { name: string; description: string }; errors?: FieldErrors; error?: string;
}) {
  const { viewer, csrfToken, groups, users, roles, filters: f } = props;
  const canUpdate = levelOf(viewer, 'settings:update') !== null;
  const canCreate = levelOf(viewer, 'settings:create') !== null;
  const userById = new Map(users.map((u) => [u.id, u]));
  const roleById = new Map(roles.map((r) => [r.id, r]));
  const form = props.form ?? { name: '', description: '' };
  const errors = props.errors ?? {};
  const state: ListState = { q: f.q, filters: {}, sort: f.sort, page: groups.page };
  const personName = (id: string) => {
    const u = userById.get(id);
    return u ? `${u.name} <${u.email}>` : '(deleted)';
  };
  return (
    <section id="groups">
      <Flash kind="success" message={props.done ? DONE_MESSAGES[props.done] : undefined} />
      <FilteredList<GroupListRow> path="/settings/groups" name="group" one="group" many="groups" state={state} page={groups} defaultSort="name"
        empty="No groups." search="Search names and descriptions"
        columns={[
          { header: 'Group', sort: 'name', cell: (g) => <><strong safe>{g.name}</strong><div class="muted" safe>{g.description}</div></> },
          {
            header: 'Members',
            sort: 'members',
            cell: (g) => (
              <ul>
                {g.memberIds.map((id) => (
                  <li>
                    <span safe>{personName(id)}</span>{' '}
                    {canUpdate && (
                      <form method="post" action={`/settings/groups/${g.id}/members/${id}/remove`} class="inline">
                        <CsrfField token={csrfToken} />
                        <button type="submit" class="link small" aria-label={`Remove ${userById.get(id)?.name ?? 'member'} from ${g.name}`}>remove</button>
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
                    <span class="tag" safe>{roleById.get(id)?.name ?? '(deleted)'}</span>{' '}
                    {canUpdate && (
                      <form method="post" action={`/settings/groups/${g.id}/roles/${id}/remove`} class="inline">
                        <CsrfField token={csrfToken} />
                        <button type="submit" class="link small" aria-label={`Remove ${roleById.get(id)?.name ?? 'role'} from ${g.name}`}>remove</button>
                      </form>
                    )}
                  </li>
                ))}
              </ul>
            ),
          },
          ...(canUpdate ? [{
            header: 'Actions',
            cell: (g: GroupListRow) => (
              <div>
                <form method="post" action={`/settings/groups/${g.id}/members`} class="actions">
                  <CsrfField token={csrfToken} />
                  <Select id={`m-${g.id}`} label={`Person to add to ${g.name}`} name="userId" options={users.filter((u) => !g.memberIds.includes(u.id)).map((u) => ({ value: u.id, label: `${u.name} <${u.email}>` }))} />
                  <button type="submit" class="small secondary">Add member</button>
                </form>
                <form method="post" action={`/settings/groups/${g.id}/roles`} class="actions">
                  <CsrfField token={csrfToken} />
                  <Select id={`r-${g.id}`} label={`Role to give ${g.name}`} name="roleId" options={roles.filter((r) => !g.roleIds.includes(r.id)).map((r) => ({ value: r.id, label: r.name }))} />
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

export function RolesContent(props: {
  viewer: Actor; csrfToken: string; roles: ListPage<RoleRow>; state: ListState; done?: string;
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
      <FilteredList<RoleRow> path="/settings/roles" name="role" one="role" many="roles" state={props.state} page={roles} defaultSort="name"
        empty="No roles." search="Search names, descriptions and rights"
        selects={[
          { name: 'kind', label: 'Kind', options: Object.entries(ROLE_KIND_LABELS).map(([value, label]) => ({ value, label })) },
          { name: 'module', label: 'Has rights on', options: MODULES.map((m) => ({ value: m, label: areaLabel(m) })) },
        ]}
        columns={[
          { header: 'Role', sort: 'name', cell: (r) => <><strong safe>{r.name}</strong>{r.builtIn && <span class="tag">built-in</span>}<div class="muted" safe>{r.description}</div></> },
          { header: 'Rights', sort: 'rights', cell: (r) => <Tags values={r.permissions.map(grantLabel)} /> },
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

export interface RoleFormValues {
  name: string;
  description: string;
  grants: Record<string, string>;
}

const LEVEL_OPTIONS = [{ value: '', label: '—' }, { value: 'own', label: 'Own' }, { value: 'all', label: 'All' }];

const GRID_RIGHTS = ['read', 'create', 'update', 'delete', 'review'] as const;

/** The role editor: a grid of module × right, each cell a level (none, own, all). */
export function RoleForm(p: { action: string; submit: string; csrfToken: string; form: RoleFormValues; errors: FieldErrors; error?: string }) {
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

/* ---------- One user, and one's own password ---------- */

export function UserEditContent(p: {
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
