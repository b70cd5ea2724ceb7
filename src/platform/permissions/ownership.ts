import { eq, inArray, or, type AnyColumn, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { groups, users } from '../../../db/schema';
import { forbidden, type FieldProblem } from '../core/errors';
import { ownsRecord, requirePermission, type Actor, type Permission } from './permissions';

/**
 * The WHERE condition that limits a list to what the actor may see: nothing extra at level all,
 * "owned by me or by one of my groups" at level own. Throws 403 when the actor lacks the permission.
 */
export function ownershipCondition(actor: Actor, permission: Permission, owner: AnyColumn, ownerGroup: AnyColumn): SQL | undefined {
  const level = requirePermission(actor, permission);
  if (level === 'all') return undefined;
  const mine = actor.userId ? eq(owner, actor.userId) : undefined;
  const groups = actor.groupIds.length ? inArray(ownerGroup, [...actor.groupIds]) : undefined;
  return or(mine, groups) ?? inArray(owner, []);
}

export interface OwnerFields {
  ownerId: string | null;
  ownerGroupId: string | null;
}

/** Owner must be an active user and owner group must exist; reported as field problems so forms and imports show each. */
export async function ownerProblems(db: DbOrTx, owner: OwnerFields): Promise<FieldProblem[]> {
  const problems: FieldProblem[] = [];
  if (owner.ownerId) {
    const [user] = await db.select({ status: users.status }).from(users).where(eq(users.id, owner.ownerId));
    if (!user) problems.push({ field: 'ownerId', message: 'no such user' });
    else if (user.status !== 'active') problems.push({ field: 'ownerId', message: 'must be an active user' });
  }
  if (owner.ownerGroupId) {
    const [group] = await db.select({ id: groups.id }).from(groups).where(eq(groups.id, owner.ownerGroupId));
    if (!group) problems.push({ field: 'ownerGroupId', message: 'no such group' });
  }
  return problems;
}

/** At level own, a record may only be created or left owned by the actor or one of their groups. */
export function requireOwnLevelKeepsOwnership(actor: Actor, permission: Permission, level: 'own' | 'all', owner: OwnerFields): void {
  if (level === 'own' && !ownsRecord(actor, owner)) {
    throw forbidden(`${permission} is at level own: the record must be owned by you or one of your groups`);
  }
}
