/**
 * Settings › Users and Settings › Groups as lists: filtered, sorted and paged in SQL, and the same rows as CSV; Settings ›
 * Roles, read whole, filtered by its list rules. Reading them is the screens' business (settings:read, checked by their
 * routes); nothing here writes.
 */
import { and, asc, count, desc, eq, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { groupMembers, groupRoles, groups, roles, users } from '../../../db/schema';
import { escapeLike } from '../../platform/records/records';
import { everyRow, LIST_PAGE_SIZE, listState, type ListRules } from '../../platform/http/list-query';
import type { CsvColumn } from '../../platform/csv/list-download';
import { areaLabel } from '../../platform/http/installed';
import { MODULES } from '../../platform/permissions/permissions';
import type { listRoles } from './service';
import { zonedHeader, zonedTime } from '../../platform/csv/zone';

export const DIRECTORY_PAGE_SIZE = LIST_PAGE_SIZE;

export const USER_STATUS_LABELS: Readonly<Record<'active' | 'deactivated', string>> = { active: 'Active', deactivated: 'Deactivated' };
export const USER_SORTS = ['name', 'email', 'status', 'createdAt'] as const;
export const GROUP_SORTS = ['name', 'members'] as const;

type Query = Record<string, string | undefined>;

/** Settings › Users' filters and sort as the address holds them; a value that cannot be meant reads as no filter. */
export interface UserListFilters {
  q: string;
  status: '' | 'active' | 'deactivated';
  roleId: string;
  groupId: string;
  sort: string;
}

export interface GroupListFilters {
  q: string;
  sort: string;
}

export function userListFilters(query: Query): UserListFilters {
  const { q, filters, sort } = listState(query, { status: Object.keys(USER_STATUS_LABELS), roleId: 'id', groupId: 'id' }, USER_SORTS);
  return { q, status: filters.status as UserListFilters['status'], roleId: filters.roleId, groupId: filters.groupId, sort };
}

export const groupListFilters = (query: Query): GroupListFilters => {
  const { q, sort } = listState(query, {}, GROUP_SORTS);
  return { q, sort };
};

/** A user as the list shows them: their groups and the roles those groups give, by name. */
export interface UserListRow {
  id: string;
  name: string;
  email: string;
  status: 'active' | 'deactivated';
  breakGlass: boolean;
  createdAt: Date;
  groups: string[];
  roles: string[];
}

function userCondition(f: UserListFilters): SQL | undefined {
  const like = f.q ? `%${escapeLike(f.q)}%` : null;
  const memberOf = (groupCondition: SQL) => sql`exists (select 1 from ${groupMembers} where ${groupMembers.userId} = ${users.id} and ${groupCondition})`;
  return and(
    like ? or(ilike(users.name, like), ilike(users.email, like)) : undefined,
    f.status ? eq(users.status, f.status) : undefined,
    f.groupId ? memberOf(sql`${groupMembers.groupId} = ${f.groupId}`) : undefined,
    // A role is held through a group: a member of any group given it.
    f.roleId ? memberOf(sql`exists (select 1 from ${groupRoles} where ${groupRoles.groupId} = ${groupMembers.groupId} and ${groupRoles.roleId} = ${f.roleId})`) : undefined,
  );
}

function userOrder(sort: string): SQL[] {
  const key = sort.replace(/^-/, '');
  const column = key === 'email' ? users.email : key === 'status' ? users.status : key === 'createdAt' ? users.createdAt : users.name;
  const way = sort.startsWith('-') ? desc : asc;
  return [way(column), asc(users.name), asc(users.id)];
}

/** Groups and roles of the users given, by name. */
async function membershipsOf(db: DbOrTx, userIds: string[]): Promise<{ groups: Map<string, string[]>; roles: Map<string, string[]> }> {
  if (userIds.length === 0) return { groups: new Map(), roles: new Map() };
  const [groupRows, roleRows] = await Promise.all([
    db.select({ userId: groupMembers.userId, name: groups.name }).from(groupMembers).innerJoin(groups, eq(groups.id, groupMembers.groupId))
      .where(inArray(groupMembers.userId, userIds)).orderBy(asc(groups.name)),
    db.selectDistinct({ userId: groupMembers.userId, name: roles.name }).from(groupMembers)
      .innerJoin(groupRoles, eq(groupRoles.groupId, groupMembers.groupId)).innerJoin(roles, eq(roles.id, groupRoles.roleId))
      .where(inArray(groupMembers.userId, userIds)).orderBy(asc(roles.name)),
  ]);
  const collect = (rows: { userId: string; name: string }[]) => {
    const by = new Map<string, string[]>();
    for (const r of rows) by.set(r.userId, [...(by.get(r.userId) ?? []), r.name]);
    return by;
  };
  return { groups: collect(groupRows), roles: collect(roleRows) };
}

/** A page of users matching the filters, in the order asked (by name by default), with the total. */
export async function listUserPage(db: DbOrTx, f: UserListFilters, page: number, pageSize = DIRECTORY_PAGE_SIZE): Promise<{ rows: UserListRow[]; total: number; page: number; pageSize: number }> {
  const where = userCondition(f);
  const [rows, [{ total }]] = await Promise.all([
    db.select({ id: users.id, name: users.name, email: users.email, status: users.status, breakGlass: users.breakGlass, createdAt: users.createdAt })
      .from(users).where(where).orderBy(...userOrder(f.sort)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(users).where(where),
  ]);
  const memberships = await membershipsOf(db, rows.map((r) => r.id));
  return {
    rows: rows.map((r) => ({ ...r, groups: memberships.groups.get(r.id) ?? [], roles: memberships.roles.get(r.id) ?? [] })),
    total, page, pageSize,
  };
}

/** A group as the list shows it: its members and roles by id (the screen names them and offers their forms). */
export interface GroupListRow {
  id: string;
  name: string;
  description: string;
  memberIds: string[];
  roleIds: string[];
}

const memberCount = sql<number>`(select count(*) from ${groupMembers} where ${groupMembers.groupId} = ${groups.id})`;

function groupOrder(sort: string): SQL[] {
  const way = sort.startsWith('-') ? desc : asc;
  return sort.replace(/^-/, '') === 'members' ? [way(memberCount), asc(groups.name), asc(groups.id)] : [way(groups.name), asc(groups.id)];
}

/** A page of groups whose name or description holds the search, in the order asked (by name by default), with the total. */
export async function listGroupPage(db: DbOrTx, f: GroupListFilters, page: number, pageSize = DIRECTORY_PAGE_SIZE): Promise<{ rows: GroupListRow[]; total: number; page: number; pageSize: number }> {
  const like = f.q ? `%${escapeLike(f.q)}%` : null;
  const where = like ? or(ilike(groups.name, like), ilike(groups.description, like)) : undefined;
  const [rows, [{ total }]] = await Promise.all([
    db.select({ id: groups.id, name: groups.name, description: groups.description }).from(groups).where(where)
      .orderBy(...groupOrder(f.sort)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(groups).where(where),
  ]);
  const ids = rows.map((g) => g.id);
  const [members, grants] = ids.length
    ? await Promise.all([
      db.select().from(groupMembers).where(inArray(groupMembers.groupId, ids)),
      db.select().from(groupRoles).where(inArray(groupRoles.groupId, ids)),
    ])
    : [[], []];
  return {
    rows: rows.map((g) => ({
      ...g,
      memberIds: members.filter((m) => m.groupId === g.id).map((m) => m.userId),
      roleIds: grants.filter((r) => r.groupId === g.id).map((r) => r.roleId),
    })),
    total, page, pageSize,
  };
}

/** The users of the filters as CSV rows (header first), in the list's order: labels, names, times in `zone`. */
export async function userCsvRows(db: DbOrTx, f: UserListFilters, zone: string): Promise<string[][]> {
  const rows = await everyRow((page, size) => listUserPage(db, f, page, size), 500);
  return [
    ['Name', 'Email', 'Status', 'Groups', 'Roles', 'Break-glass', zonedHeader('Created', zone)],
    ...rows.map((u) => [u.name, u.email, USER_STATUS_LABELS[u.status], u.groups.join('; '), u.roles.join('; '), u.breakGlass ? 'Yes' : 'No', zonedTime(u.createdAt, zone)]),
  ];
}

/** The groups of the search as CSV rows (header first): members and roles by name. */
export async function groupCsvRows(db: DbOrTx, f: GroupListFilters): Promise<string[][]> {
  const rows = await everyRow((page, size) => listGroupPage(db, f, page, size), 500);
  const memberIds = [...new Set(rows.flatMap((g) => g.memberIds))];
  const roleIds = [...new Set(rows.flatMap((g) => g.roleIds))];
  const [people, granted] = await Promise.all([
    memberIds.length ? db.select({ id: users.id, name: users.name, email: users.email }).from(users).where(inArray(users.id, memberIds)) : [],
    roleIds.length ? db.select({ id: roles.id, name: roles.name }).from(roles).where(inArray(roles.id, roleIds)) : [],
  ]);
  const person = new Map(people.map((p) => [p.id, `${p.name} <${p.email}>`]));
  const role = new Map(granted.map((r) => [r.id, r.name]));
  const names = (ids: string[], of: Map<string, string>) => ids.map((i) => of.get(i) ?? '(deleted)').sort((a, b) => a.localeCompare(b)).join('; ');
  return [
    ['Group', 'Description', 'Members', 'Member count', 'Roles'],
    ...rows.map((g) => [g.name, g.description, names(g.memberIds, person), String(g.memberIds.length), names(g.roleIds, role)]),
  ];
}

/* ---------- Roles (read whole: a handful) ---------- */

type RoleRow = Awaited<ReturnType<typeof listRoles>>[number];

const LEVEL_LABELS: Readonly<Record<string, string>> = { own: 'own', all: 'all' };

/** A right as people read it: 'Risks: read (all)'. */
export const grantLabel = (g: { permission: string; level: string }): string => {
  const [module, right] = g.permission.split(':');
  return `${areaLabel(module)}: ${right} (${LEVEL_LABELS[g.level] ?? g.level})`;
};

export const ROLE_KIND_LABELS: Readonly<Record<'builtIn' | 'custom', string>> = { builtIn: 'Built-in', custom: 'Custom' };

/** Settings › Roles: searched by name, description and rights; filtered by kind and by a module a right is on. */
export const roleListRules = (): ListRules<RoleRow> => ({
  text: (r) => [r.name, r.description, ...r.permissions.map(grantLabel)],
  filters: {
    kind: { values: Object.keys(ROLE_KIND_LABELS), matches: (r, v) => r.builtIn === (v === 'builtIn') },
    module: { values: MODULES, matches: (r, v) => r.permissions.some((g) => g.permission.startsWith(`${v}:`)) },
  },
  sorts: { name: (r) => r.name, rights: (r) => r.permissions.length },
  defaultSort: 'name',
});

export const roleCsvColumns: CsvColumn<RoleRow>[] = [
  { header: 'Role', cell: (r) => r.name },
  { header: 'Description', cell: (r) => r.description },
  { header: 'Kind', cell: (r) => ROLE_KIND_LABELS[r.builtIn ? 'builtIn' : 'custom'] },
  { header: 'Rights', cell: (r) => r.permissions.map(grantLabel).sort((a, b) => a.localeCompare(b)).join('; ') },
];
