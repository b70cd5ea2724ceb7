import { and, eq, inArray } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { AppError } from '../core/errors';
import type { HistoryView } from '../audit/history';
import { ownershipCondition } from '../permissions/ownership';
import { canTouch, levelOf, requirePermission, type Actor, type Module, type Owned, type Permission } from '../permissions/permissions';
import { isUuid } from '../core/uuid';

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


/**
 * The one answer to a link the actor may not make: 404, the same whether the record is missing or only unreadable
 * (spec Errors), so a caller cannot learn that a record exists by linking to it. The reason, which tells the two
 * apart, goes only to the Audit Log (permission.denied; the error handler records it).
 */
function linkNotFound(target: Pick<LinkTarget, 'label'>, id: string, field: string | undefined, reason: string): AppError {
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
  requirePermission(actor, `${target.module}:read` as Permission);
  const { table } = target;
  const [row] = isUuid(id)
    ? await db.select({ id: table.id, title: target.titleColumn, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId })
      .from(table as PgTable).where(eq(table.id, id)).limit(1)
    : [];
  return requireLinkedRow(actor, target, id, row as OwnedTitle | undefined, field);
}

export type OwnedTitle = { id: string; title: string } & Owned;

/**
 * requireLinked's rule on a row the caller has read itself (a link target whose title or owner lives on another
 * table: a requirement's name on its item, a control test's owner on its control).
 */
export function requireLinkedRow(
  actor: Actor, target: Pick<LinkTarget, 'module' | 'label'>, id: string, row: OwnedTitle | undefined, field?: string,
): LinkedRecord {
  const read = `${target.module}:read` as Permission;
  requirePermission(actor, read);
  if (!row) throw linkNotFound(target, id, field, 'no such record');
  if (!canTouch(actor, read, row)) throw linkNotFound(target, id, field, `not readable (${read})`);
  return { id: row.id, title: row.title };
}

/**
 * requireLinked for many ids at once (batch writes): the records among `ids` the actor may read, in one query.
 * Throws 403 without the linked module's read right; an id missing from the answer is one to refuse as linkNotFound.
 */
export async function readableLinked(db: DbOrTx, actor: Actor, target: LinkTarget, ids: string[]): Promise<Map<string, LinkedRecord>> {
  const read = `${target.module}:read` as Permission;
  requirePermission(actor, read);
  const wanted = [...new Set(ids.filter(isUuid))];
  if (wanted.length === 0) return new Map();
  const { table } = target;
  const rows = await db.select({ id: table.id, title: target.titleColumn, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId })
    .from(table as PgTable).where(inArray(table.id, wanted)) as { id: string; title: string; ownerId: string | null; ownerGroupId: string | null }[];
  return new Map(rows.filter((row) => canTouch(actor, read, row)).map((row) => [row.id, { id: row.id, title: row.title }]));
}

/** The refusal of a link to a record that is not among readableLinked's answer (the same 404 as requireLinked's). */
export const unreadableLink = (target: LinkTarget, id: string, field?: string): AppError => linkNotFound(target, id, field, 'no such record, or not readable');

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

/**
 * How a linked record the reader may not read is shown, everywhere (REST, screens, CSV downloads, History): never its
 * name. Its id may appear (ids disclose nothing), so a download still imports back unchanged.
 */
export const RESTRICTED_NAME = '(restricted)';

/**
 * The one rule for naming a linked record: its name when the reader may read it (the module's read right at level
 * all, or at level own on a record they or their groups own), RESTRICTED_NAME otherwise.
 */
export function nameAsSeen(actor: Actor, module: Module, record: Owned, name: string): string {
  return canTouch(actor, `${module}:read` as Permission, record) ? name : RESTRICTED_NAME;
}

/** The name of one linked record as the actor may see it (nameAsSeen); null when there is no such record. */
export async function linkedNameAsSeen(db: DbOrTx, actor: Actor, target: LinkTarget, id: string): Promise<string | null> {
  if (!isUuid(id)) return null;
  const { table } = target;
  const [row] = await db.select({ title: target.titleColumn, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId })
    .from(table as PgTable).where(eq(table.id, id)).limit(1);
  if (!row) return null;
  const owned = row as { title: string; ownerId: string | null; ownerGroupId: string | null };
  return nameAsSeen(actor, target.module, owned, owned.title);
}

/** Of `ids` of `target`'s records, those the actor may read: for names kept apart from their record (History). */
export async function readableIds(db: DbOrTx, actor: Actor, target: LinkTarget, ids: Iterable<string>): Promise<Set<string>> {
  const wanted = [...new Set([...ids].filter(isUuid).map((id) => id.toLowerCase()))];
  const read = `${target.module}:read` as Permission;
  if (wanted.length === 0 || levelOf(actor, read) === null) return new Set();
  const { table } = target;
  const condition = ownershipCondition(actor, read, table.ownerId, table.ownerGroupId);
  const rows = await db.select({ id: table.id }).from(table as PgTable).where(and(inArray(table.id, wanted), condition));
  return new Set(rows.map((row) => String(row.id)));
}

/** A name a History entry keeps beside the id of the record it names ({riskId, riskTitle} of a third party's link). */
export interface NamedLink {
  idField: string;
  nameField: string;
  target: LinkTarget;
}

/**
 * History entries as the reader may see them: each name kept beside a linked record's id becomes RESTRICTED_NAME
 * when that record is not readable to the reader now. The stored entries (sealed in the Audit Log) are unchanged.
 */
export async function historyAsSeen(db: DbOrTx, actor: Actor, entries: HistoryView[], links: readonly NamedLink[]): Promise<HistoryView[]> {
  if (links.length === 0) return entries;
  const idsOf = (link: NamedLink) => entries.flatMap((entry) => {
    const change = entry.changes[link.idField];
    return change && entry.changes[link.nameField] ? [change.before, change.after].filter((v): v is string => typeof v === 'string') : [];
  });
  const readable = await Promise.all(links.map((link) => readableIds(db, actor, link.target, idsOf(link))));
  return entries.map((entry) => {
    let changes = entry.changes;
    links.forEach((link, i) => {
      const id = changes[link.idField];
      const name = changes[link.nameField];
      if (!id || !name) return;
      const hide = (value: unknown, linked: unknown) =>
        value !== null && value !== undefined && !(typeof linked === 'string' && readable[i].has(linked.toLowerCase())) ? RESTRICTED_NAME : value;
      changes = { ...changes, [link.nameField]: { before: hide(name.before, id.before), after: hide(name.after, id.after) } };
    });
    return changes === entry.changes ? entry : { ...entry, changes };
  });
}
