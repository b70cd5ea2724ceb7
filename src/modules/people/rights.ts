import { sql } from 'drizzle-orm';
import { selectRows, type DbOrTx } from '../../../db/client';
import { isPermission, type Actor, type Level, type Permission } from '../../platform/permissions/permissions';

interface RightsRow {
  user_id: string;
  email: string;
  status: string;
  group_ids: string[] | null;
  permissions: { p: string; l: Level }[] | null;
}

/** A user's groups and effective rights (highest level per permission across all their groups' roles), in one query. */
const rightsQuery = (userCondition: ReturnType<typeof sql>) => sql`
  select u.id as user_id, u.email, u.status,
    (select array_agg(gm.group_id::text) from group_members gm where gm.user_id = u.id) as group_ids,
    (select json_agg(json_build_object('p', rp.permission, 'l', rp.level))
       from group_members gm
       join group_roles gr on gr.group_id = gm.group_id
       join role_permissions rp on rp.role_id = gr.role_id
      where gm.user_id = u.id) as permissions
  from users u where ${userCondition}`;

export function toRights(rows: { p: string; l: Level }[] | null): Map<Permission, Level> {
  const rights = new Map<Permission, Level>();
  for (const { p, l } of rows ?? []) {
    if (!isPermission(p)) continue;
    if (l === 'all' || !rights.has(p)) rights.set(p, l);
  }
  return rights;
}

export interface LoadedUser {
  userId: string;
  email: string;
  active: boolean;
  groupIds: string[];
  rights: Map<Permission, Level>;
}

export async function loadUserRights(db: DbOrTx, userId: string): Promise<LoadedUser | null> {
  const [row] = await selectRows<RightsRow>(db, rightsQuery(sql`u.id = ${userId}`));
  return row ? toLoadedUser(row) : null;
}

export async function loadUserRightsByEmail(db: DbOrTx, email: string): Promise<LoadedUser | null> {
  const [row] = await selectRows<RightsRow>(db, rightsQuery(sql`lower(u.email) = lower(${email})`));
  return row ? toLoadedUser(row) : null;
}

const toLoadedUser = (row: RightsRow): LoadedUser => ({
  userId: row.user_id,
  email: row.email,
  active: row.status === 'active',
  groupIds: row.group_ids ?? [],
  rights: toRights(row.permissions),
});

export function userActor(user: LoadedUser, via: Actor['via']): Actor {
  return { kind: 'user', userId: user.userId, email: user.email, groupIds: user.groupIds, rights: user.rights, via };
}
