import { eq } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../db/client';
import { AppError } from './errors';
import { canTouch, requirePermission, type Actor, type Module, type Permission } from './permissions';

/** A record type another record can link to: a module's owned records (every RecordKind is one). */
export interface LinkTarget {
  module: Module;
  /** For messages: 'Asset'. */
  label: string;
  table: PgTable & { id: PgColumn; ownerId: PgColumn; ownerGroupId: PgColumn };
  titleColumn: PgColumn;
}

export interface LinkedRecord {
  id: string;
  title: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The one answer to a link the actor may not make: 404, the same whether the record is missing or only unreadable
 * (spec Errors), so a caller cannot learn that a record exists by linking to it. The reason, which tells the two
 * apart, goes only to the Audit Log (permission.denied; the error handler records it).
 */
function linkNotFound(target: LinkTarget, id: string, field: string | undefined, reason: string): AppError {
  const message = `${target.label} ${id} not found`;
  return new AppError('NOT_FOUND', field ? `${field}: ${message}` : message, field ? [{ field, message }] : [], `link to ${target.label} ${id}: ${reason}`);
}

/**
 * The record a link points at, as the actor may see it. Spec Bearer rule 4: linking needs the target module's read
 * scope and right (403 without), and a record the actor can read (404 otherwise, audited, and the same 404 when it
 * does not exist). Every link from one record to another goes through here: link fields (an incident's asset) and
 * link operations (a third party's linked risk, an analysis's mapped control).
 */
export async function requireLinked(db: DbOrTx, actor: Actor, target: LinkTarget, id: string, field?: string): Promise<LinkedRecord> {
  const read = `${target.module}:read` as Permission;
  requirePermission(actor, read);
  const { table } = target;
  const [row] = UUID.test(id)
    ? await db.select({ id: table.id, title: target.titleColumn, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId })
      .from(table as PgTable).where(eq(table.id, id)).limit(1)
    : [];
  if (!row) throw linkNotFound(target, id, field, 'no such record');
  const owned = row as { id: string; title: string; ownerId: string | null; ownerGroupId: string | null };
  if (!canTouch(actor, read, owned)) throw linkNotFound(target, id, field, `not readable (${read})`);
  return { id: owned.id, title: owned.title };
}

/**
 * A link field of a record being written (`assetId` of an incident): checked as requireLinked when it is set or
 * changed, never when it stays as it was, so editing a record does not fail on a link someone else made.
 */
export async function requireReadableLink(
  db: DbOrTx, actor: Actor, target: LinkTarget, field: string, id: string | null | undefined, previous?: string | null,
): Promise<void> {
  if (!id || id === previous) return;
  await requireLinked(db, actor, target, id, field);
}
