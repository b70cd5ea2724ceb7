import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { evidence, evidenceFiles, evidenceLinks } from '../../../db/schema';
import { isRealDate, todayIso } from '../../platform/core/dates';
import { conflict, forbidden, notFound, type FieldProblem } from '../../platform/core/errors';
import { recordChange, recordChanges } from '../../platform/audit/history';
import { requireLinkedRow } from '../../platform/records/links';
import {
  findRecordType, recordRows, recordType, requireKind, requireTypedRecord, typedRecordAsSeen, type RecordTypeDeclaration, type TypedRow,
} from '../../platform/records/record-types';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, requireOnRecord, type Actor, type Module } from '../../platform/permissions/permissions';
import { auditFields, getRecord, loadForAction, referencedBy, type RecordKind } from '../../platform/records/records';
import {
  EVIDENCE_KINDS, EVIDENCE_STATUSES, EXPIRING_WITHIN_DAYS, type EvidenceCreate, type EvidenceView, type EvidenceLinkInput, type EvidenceLinkView, type ReminderView,
  linkableTypes,
} from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';

/** Status from the dates, in SQL so lists filter and page on it: expired before today, expiring within 30 days. */
export const statusSql = sql<string>`case
  when ${evidence.validUntil} is null or ${evidence.validUntil} > current_date + ${sql.raw(String(EXPIRING_WITHIN_DAYS))} then 'current'
  when ${evidence.validUntil} < current_date then 'expired'
  else 'expiring' end`;

/** How many files the evidence holds. */
const fileCountSql = sql<number>`(select count(*)::int from ${evidenceFiles} where ${evidenceFiles.evidenceId} = ${evidence.id})`;

const statusCondition = (status: string): SQL | undefined => {
  const soon = sql`current_date + ${sql.raw(String(EXPIRING_WITHIN_DAYS))}`;
  if (status === 'expired') return sql`${evidence.validUntil} < current_date`;
  if (status === 'expiring') return sql`${evidence.validUntil} between current_date and ${soon}`;
  if (status === 'current') return sql`(${evidence.validUntil} is null or ${evidence.validUntil} > ${soon})`;
  return undefined;
};

export const lockedMessage = (id: string) =>
  `Evidence ${id} is locked: its fields, files and links cannot change until someone with evidence:update at level all unlocks it`;

export const evidenceKind: RecordKind<typeof evidence, EvidenceCreate> = {
  module: 'evidence',
  recordType: 'evidence',
  label: 'Evidence',
  table: evidence,
  titleColumn: evidence.title,
  sortable: {
    title: evidence.title, kind: inDefinedOrder(evidence.kind, EVIDENCE_KINDS), status: inDefinedOrder(statusSql, EVIDENCE_STATUSES), collectedOn: evidence.collectedOn,
    validUntil: evidence.validUntil, fileCount: fileCountSql, locked: evidence.locked, owner: ownerNameSort, createdAt: evidence.createdAt, updatedAt: evidence.updatedAt,
  },
  defaults: { description: '', kind: 'evidence', thirdPartyId: null, validUntil: null },
  filters: {
    status: statusCondition,
    kind: (value) => eq(evidence.kind, value as 'evidence' | 'vendor_report'),
    locked: (value) => eq(evidence.locked, value === 'true'),
    linked: (value) => sql`exists (select 1 from ${evidenceLinks} where ${evidenceLinks.evidenceId} = ${evidence.id} and ${evidenceLinks.recordId} = ${value})`,
  },
  computed: {
    status: statusSql,
    fileCount: fileCountSql,
    linkCount: sql<number>`(select count(*)::int from ${evidenceLinks} where ${evidenceLinks.evidenceId} = ${evidence.id})`,
  },
  // Files are removed one by one (each removal is audited with its SHA-256); links go with the evidence.
  references: [referencedBy({ one: 'file', many: 'files' }, evidenceFiles, evidenceFiles.evidenceId)],
  customFields: true,
  frozen: (before) => (before.locked ? lockedMessage(before.id) : null),
  toColumns: (c) => ({ ...c, title: c.title.trim(), collectedOn: c.collectedOn ?? todayIso() }),
  async check(db, c, before, actor) {
    const problems: FieldProblem[] = [];
    if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    const collectedOn = c.collectedOn ?? todayIso();
    if (!isRealDate(collectedOn)) problems.push({ field: 'collectedOn', message: 'must be a real date written YYYY-MM-DD' });
    if (c.validUntil && !isRealDate(c.validUntil)) problems.push({ field: 'validUntil', message: 'must be a real date written YYYY-MM-DD' });
    else if (c.validUntil && c.validUntil < collectedOn) problems.push({ field: 'validUntil', message: 'must be on or after collectedOn' });
    if (c.kind === 'vendor_report' && !c.thirdPartyId) problems.push({ field: 'thirdPartyId', message: 'a vendor report names its third party' });
    if (problems.length) return problems;
    // A vendor report's third party is checked as any link is (Bearer rule 4), through its declared record type.
    if (c.thirdPartyId && c.thirdPartyId !== before?.thirdPartyId) await requireTypedRecord(db, actor, recordType('thirdParty'), c.thirdPartyId, 'thirdPartyId');
    return [];
  },
};

/** One evidence record as REST returns it; the derived status and counts are the kind's computed fields. */
export async function getEvidence(db: DbOrTx, actor: Actor, id: string): Promise<EvidenceView> {
  return (await getRecord(db, evidenceKind, actor, id)) as unknown as EvidenceView;
}

/* ---------- Links: what the evidence proves ---------- */

/** The linkable record type a caller names (EvidenceLinkInput's recordType); a 400 naming the field otherwise. */
export const linkableType = (kind: string, field = 'recordType'): RecordTypeDeclaration => requireKind(kind, linkableTypes(), field);

export async function listLinks(db: DbOrTx, actor: Actor, evidenceId: string): Promise<EvidenceLinkView[]> {
  await loadForAction(db, evidenceKind, actor, evidenceId, 'read');
  return linksAsSeen(db, actor, [evidenceId]).then((byEvidence) => byEvidence.get(evidenceId) ?? []);
}

/** The links of several evidence records, each named as the actor may see it: (restricted) or (deleted) otherwise. */
export async function linksAsSeen(db: DbOrTx, actor: Actor, evidenceIds: string[]): Promise<Map<string, EvidenceLinkView[]>> {
  const result = new Map<string, EvidenceLinkView[]>();
  if (evidenceIds.length === 0) return result;
  const links = await db.select().from(evidenceLinks).where(inArray(evidenceLinks.evidenceId, evidenceIds))
    .orderBy(asc(evidenceLinks.recordType), asc(evidenceLinks.createdAt));
  const rowsByKind = new Map<string, Map<string, TypedRow>>();
  for (const kind of new Set(links.map((l) => l.recordType))) {
    const type = findRecordType(kind);
    if (type) rowsByKind.set(kind, await recordRows(db, type, links.filter((l) => l.recordType === kind).map((l) => l.recordId)));
  }
  for (const link of links) {
    const type = findRecordType(link.recordType);
    const seen = type ? typedRecordAsSeen(actor, type, link.recordId, rowsByKind.get(link.recordType)?.get(link.recordId)) : { title: '(deleted)', href: null };
    const view: EvidenceLinkView = { recordType: link.recordType, recordId: link.recordId, ...seen, linkedAt: link.createdAt.toISOString() };
    result.set(link.evidenceId, [...(result.get(link.evidenceId) ?? []), view]);
  }
  return result;
}

/** The record a link points at, by Bearer rule 4: its module's read right (403) and a readable record (404, audited). */
export async function requireLinkableRecord(db: DbOrTx, actor: Actor, input: EvidenceLinkInput, field?: string) {
  return requireTypedRecord(db, actor, linkableType(input.recordType), input.recordId, field);
}

/** The owner and owner group of a linkable record (for the rights on the record itself, as upload_evidence needs). */
export async function linkedOwner(db: DbOrTx, target: EvidenceLinkInput): Promise<{ ownerId: string | null; ownerGroupId: string | null }> {
  const type = linkableType(target.recordType);
  const row = (await recordRows(db, type, [target.recordId])).get(target.recordId);
  if (!row) throw notFound(`${type.label} ${target.recordId}`);
  return { ownerId: row.ownerId, ownerGroupId: row.ownerGroupId };
}

export async function linkEvidence(tx: DbOrTx, actor: Actor, evidenceId: string, input: EvidenceLinkInput): Promise<void> {
  await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
  const record = await requireLinkableRecord(tx, actor, input, 'recordId');
  const inserted = await tx.insert(evidenceLinks).values({ evidenceId, recordType: input.recordType, recordId: record.id }).onConflictDoNothing().returning();
  if (!inserted.length) throw conflict(`Evidence ${evidenceId} is already linked to ${linkableType(input.recordType).label.toLowerCase()} ${record.id}`);
  // History keeps the linked record's type and id, not its name: readers who may not read it see nothing of it.
  await recordChange(tx, actor, {
    module: 'evidence', recordType: 'evidence', recordId: evidenceId, action: 'link', before: null, after: { linkedType: input.recordType, linkedId: record.id },
  });
}

/**
 * The evidence rows of `ids` the actor may change (evidence:update on each, not locked), read in one query; throws as
 * loadForAction would for the first that is missing, unreadable, not held or locked. For the batch writes below.
 */
export async function evidenceForUpdate(db: DbOrTx, actor: Actor, ids: readonly string[]): Promise<Map<string, typeof evidence.$inferSelect>> {
  const wanted = [...new Set(ids)];
  const rows = wanted.length ? await db.select().from(evidence).where(inArray(evidence.id, wanted)) : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  for (const id of wanted) {
    const row = byId.get(id);
    if (!row) throw notFound(`Evidence ${id}`);
    requireOnRecord(actor, 'evidence:update', row, `Evidence ${id}`);
    if (row.locked) throw conflict(lockedMessage(id));
  }
  return byId;
}

/**
 * Links many evidence records to records, each as linkEvidence does (evidence:update on the evidence, read on the
 * linked record by Bearer rule 4, refused when the link exists), with one read per record type, one INSERT and one
 * recordChanges call for the batch. The whole batch is refused on the first problem; nothing is written then.
 */
export async function linkEvidenceBatch(tx: DbOrTx, actor: Actor, items: readonly ({ evidenceId: string } & EvidenceLinkInput)[]): Promise<void> {
  if (items.length === 0) return;
  await evidenceForUpdate(tx, actor, items.map((i) => i.evidenceId));
  const byType = new Map<string, string[]>();
  for (const item of items) byType.set(item.recordType, [...(byType.get(item.recordType) ?? []), item.recordId]);
  for (const [kind, ids] of byType) {
    const type = linkableType(kind);
    const rows = await recordRows(tx, type, ids);
    for (const id of ids) requireLinkedRow(actor, type, id, rows.get(id), 'recordId');
  }
  const inserted = await tx.insert(evidenceLinks).values(items.map((i) => ({ evidenceId: i.evidenceId, recordType: i.recordType, recordId: i.recordId })))
    .onConflictDoNothing().returning({ evidenceId: evidenceLinks.evidenceId });
  if (inserted.length !== items.length) throw conflict('Some of these evidence records are already linked to those records (or a link is given twice)');
  await recordChanges(tx, actor, items.map((i) => ({
    module: 'evidence', recordType: 'evidence', recordId: i.evidenceId, action: 'link', before: null, after: { linkedType: i.recordType, linkedId: i.recordId },
  })));
}

export async function unlinkEvidence(tx: DbOrTx, actor: Actor, evidenceId: string, input: EvidenceLinkInput): Promise<void> {
  await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
  const type = linkableType(input.recordType);
  const row = (await recordRows(tx, type, [input.recordId])).get(input.recordId);
  // A record deleted since it was linked can be unlinked by anyone who may change the evidence.
  if (row) requireLinkedRow(actor, type, input.recordId, row);
  const removed = await tx.delete(evidenceLinks).where(and(
    eq(evidenceLinks.evidenceId, evidenceId), eq(evidenceLinks.recordType, input.recordType), eq(evidenceLinks.recordId, input.recordId),
  )).returning();
  if (!removed.length) throw notFound(`Link between evidence ${evidenceId} and ${type.label.toLowerCase()} ${input.recordId}`);
  await recordChange(tx, actor, {
    module: 'evidence', recordType: 'evidence', recordId: evidenceId, action: 'unlink', before: { linkedType: input.recordType, linkedId: input.recordId }, after: null,
  });
}

/** Evidence linked to one record that the actor may read (a record's page lists it). */
export async function evidenceLinkedTo(db: DbOrTx, actor: Actor, recordTypes: readonly string[], recordIds: readonly string[]) {
  if (levelOf(actor, 'evidence:read') === null || recordIds.length === 0) return [];
  return db.selectDistinct({
    id: evidence.id, title: evidence.title, kind: evidence.kind, collectedOn: evidence.collectedOn, validUntil: evidence.validUntil,
    status: statusSql, locked: evidence.locked,
  }).from(evidence).innerJoin(evidenceLinks, eq(evidenceLinks.evidenceId, evidence.id))
    .where(and(
      inArray(evidenceLinks.recordType, [...recordTypes]), inArray(evidenceLinks.recordId, [...recordIds]),
      ownershipCondition(actor, 'evidence:read', evidence.ownerId, evidence.ownerGroupId),
    ))
    .orderBy(asc(evidence.title), asc(evidence.id));
}

/* ---------- Lock and unlock ---------- */

/** Locks the evidence (needs evidence:update on it): its fields, files and links refuse every change until unlocked. */
export async function lockEvidence(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const before = await loadForAction(tx, evidenceKind, actor, id, 'update');
  const [after] = await tx.update(evidence).set({ locked: true, lockedAt: new Date(), lockedBy: actor.userId })
    .where(and(eq(evidence.id, id), eq(evidence.locked, false))).returning();
  if (!after) throw conflict(lockedMessage(id));
  await recordChange(tx, actor, { module: 'evidence', recordType: 'evidence', recordId: id, action: 'lock', before: lockFields(before), after: lockFields(after) });
}

/** Unlocks: only on the screens and the REST API, needing evidence:update at level all. */
export async function unlockEvidence(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const before = await loadForAction(tx, evidenceKind, actor, id, 'read');
  if (levelOf(actor, 'evidence:update') !== 'all') throw forbidden('unlocking evidence needs evidence:update at level all');
  if (actor.via === 'mcp') throw forbidden('assistants cannot unlock evidence');
  if (!before.locked) throw conflict(`Evidence ${id} is not locked`);
  const [after] = await tx.update(evidence).set({ locked: false, lockedAt: null, lockedBy: null }).where(eq(evidence.id, id)).returning();
  await recordChange(tx, actor, { module: 'evidence', recordType: 'evidence', recordId: id, action: 'unlock', before: lockFields(before), after: lockFields(after) });
}

const lockFields = (row: typeof evidence.$inferSelect) => {
  const { locked, lockedAt, lockedBy } = auditFields(row) as Pick<typeof row, 'locked' | 'lockedAt' | 'lockedBy'>;
  return { locked, lockedAt: lockedAt ? lockedAt.toISOString() : null, lockedBy };
};

/* ---------- Reminders ---------- */

/**
 * Evidence expiring within 30 days or expired, for its owners: the query the notification sweep will email from.
 * Everything (the sweep runs as the system), or what one person owns, alone or through a group (`owner`).
 */
export async function evidenceReminders(db: DbOrTx, options: { owner?: { userId: string | null; groupIds: readonly string[] } } = {}): Promise<ReminderView[]> {
  const { owner } = options;
  const owned = owner ? or(
    owner.userId ? eq(evidence.ownerId, owner.userId) : undefined,
    owner.groupIds.length ? inArray(evidence.ownerGroupId, [...owner.groupIds]) : undefined,
  ) ?? sql`false` : undefined;
  const rows = await db.select({
    evidenceId: evidence.id, title: evidence.title, validUntil: evidence.validUntil, status: statusSql, ownerId: evidence.ownerId, ownerGroupId: evidence.ownerGroupId,
  }).from(evidence)
    .where(and(
      sql`${evidence.validUntil} <= current_date + ${sql.raw(String(EXPIRING_WITHIN_DAYS))}`,
      owned,
    ))
    .orderBy(asc(evidence.validUntil), asc(evidence.id));
  return rows.map((row) => ({ ...row, validUntil: row.validUntil!, status: row.status as 'expiring' | 'expired' }));
}
