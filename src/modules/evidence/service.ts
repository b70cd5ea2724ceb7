import { and, asc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import {
  auditFindings, auditPlans, complianceAnalyses, complianceItems, controls, controlTests, evidence, evidenceFiles, evidenceLinks, incidents,
  policies, risks, thirdParties,
} from '../../../db/schema';
import { isRealDate, todayIso } from '../../platform/core/dates';
import { conflict, forbidden, notFound, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { nameAsSeen, requireLinkedRow, requireReadableLink, type OwnedTitle } from '../../platform/records/links';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, type Actor, type Module } from '../../platform/permissions/permissions';
import { auditFields, getRecord, loadForAction, referencedBy, type RecordKind } from '../../platform/records/records';
import { thirdPartyKind } from '../thirdParties/service';
import {
  EXPIRING_WITHIN_DAYS, type EvidenceCreate, type EvidenceView, type EvidenceLinkInput, type EvidenceLinkView, type LinkedRecordType, type ReminderView,
} from './schema';

/** Status from the dates, in SQL so lists filter and page on it: expired before today, expiring within 30 days. */
const statusSql = sql<string>`case
  when ${evidence.validUntil} is null or ${evidence.validUntil} > current_date + ${sql.raw(String(EXPIRING_WITHIN_DAYS))} then 'current'
  when ${evidence.validUntil} < current_date then 'expired'
  else 'expiring' end`;

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
    title: evidence.title, collectedOn: evidence.collectedOn, validUntil: evidence.validUntil, createdAt: evidence.createdAt, updatedAt: evidence.updatedAt,
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
    fileCount: sql<number>`(select count(*)::int from ${evidenceFiles} where ${evidenceFiles.evidenceId} = ${evidence.id})`,
    linkCount: sql<number>`(select count(*)::int from ${evidenceLinks} where ${evidenceLinks.evidenceId} = ${evidence.id})`,
  },
  // Files are removed one by one (each removal is audited with its SHA-256); links go with the evidence.
  references: [referencedBy('files', evidenceFiles, evidenceFiles.evidenceId)],
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
    await requireReadableLink(db, actor, thirdPartyKind, 'thirdPartyId', c.thirdPartyId, before?.thirdPartyId);
    return [];
  },
};

/** One evidence record as REST returns it; the derived status and counts are the kind's computed fields. */
export async function getEvidence(db: DbOrTx, actor: Actor, id: string): Promise<EvidenceView> {
  return (await getRecord(db, evidenceKind, actor, id)) as unknown as EvidenceView;
}

/* ---------- Links: what the evidence proves ---------- */

interface LinkedType {
  module: Module;
  label: string;
  /** The record's id, title and owner columns, and the joins that reach them. */
  from: PgTable;
  id: PgColumn;
  title: SQL<string>;
  ownerId: PgColumn;
  ownerGroupId: PgColumn;
  join?: { table: PgTable; on: SQL };
  href(id: string, row: { parentId: string | null }): string;
  parentId?: PgColumn;
}

const column = (c: PgColumn) => sql<string>`${c}`;

export const LINKED_TYPES: Record<LinkedRecordType, LinkedType> = {
  control: { module: 'controls', label: 'Control', from: controls, id: controls.id, title: column(controls.name), ownerId: controls.ownerId, ownerGroupId: controls.ownerGroupId, href: (id) => `/controls/${id}` },
  controlTest: {
    module: 'controls', label: 'Control test', from: controlTests, id: controlTests.id,
    title: sql<string>`${controls.name} || ' — test of ' || ${controlTests.testedOn}::text`,
    ownerId: controls.ownerId, ownerGroupId: controls.ownerGroupId, join: { table: controls, on: eq(controls.id, controlTests.controlId) },
    parentId: controlTests.controlId, href: (_id, row) => `/controls/${row.parentId}`,
  },
  requirement: {
    module: 'compliance', label: 'Requirement', from: complianceAnalyses, id: complianceAnalyses.id,
    title: sql<string>`${complianceItems.code} || ' ' || ${complianceItems.name}`,
    ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
    join: { table: complianceItems, on: eq(complianceItems.id, complianceAnalyses.itemId) }, href: (id) => `/compliance/analyses/${id}`,
  },
  risk: { module: 'risks', label: 'Risk', from: risks, id: risks.id, title: column(risks.title), ownerId: risks.ownerId, ownerGroupId: risks.ownerGroupId, href: (id) => `/risks/${id}` },
  policy: { module: 'policies', label: 'Policy', from: policies, id: policies.id, title: column(policies.title), ownerId: policies.ownerId, ownerGroupId: policies.ownerGroupId, href: (id) => `/policies/${id}` },
  thirdParty: {
    module: 'thirdParties', label: 'Third party', from: thirdParties, id: thirdParties.id, title: column(thirdParties.name),
    ownerId: thirdParties.ownerId, ownerGroupId: thirdParties.ownerGroupId, href: (id) => `/third-parties/${id}`,
  },
  auditPlan: { module: 'audits', label: 'Audit plan', from: auditPlans, id: auditPlans.id, title: column(auditPlans.title), ownerId: auditPlans.ownerId, ownerGroupId: auditPlans.ownerGroupId, href: (id) => `/audits/${id}` },
  auditFinding: {
    module: 'audits', label: 'Audit finding', from: auditFindings, id: auditFindings.id, title: column(auditFindings.title),
    ownerId: auditFindings.ownerId, ownerGroupId: auditFindings.ownerGroupId, href: (id) => `/audits/findings/${id}`,
  },
  incident: { module: 'incidents', label: 'Incident', from: incidents, id: incidents.id, title: column(incidents.title), ownerId: incidents.ownerId, ownerGroupId: incidents.ownerGroupId, href: (id) => `/incidents/${id}` },
};

type LinkedRow = OwnedTitle & { parentId: string | null };

/** The linked records of one type by id, with what the access rules need. */
async function linkedRows(db: DbOrTx, type: LinkedType, ids: string[]): Promise<Map<string, LinkedRow>> {
  if (ids.length === 0) return new Map();
  const selection = {
    id: type.id, title: type.title, ownerId: type.ownerId, ownerGroupId: type.ownerGroupId,
    parentId: type.parentId ? column(type.parentId) : sql<string | null>`null`,
  };
  const base = db.select(selection).from(type.from);
  const rows = await (type.join ? base.innerJoin(type.join.table, type.join.on) : base).where(inArray(type.id, ids));
  return new Map((rows as LinkedRow[]).map((row) => [String(row.id), row]));
}

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
  const byType = new Map<LinkedRecordType, Map<string, LinkedRow>>();
  for (const recordType of new Set(links.map((l) => l.recordType as LinkedRecordType))) {
    const type = LINKED_TYPES[recordType];
    if (type) byType.set(recordType, await linkedRows(db, type, links.filter((l) => l.recordType === recordType).map((l) => l.recordId)));
  }
  for (const link of links) {
    const recordType = link.recordType as LinkedRecordType;
    const type = LINKED_TYPES[recordType];
    const row = byType.get(recordType)?.get(link.recordId);
    const readable = row ? nameAsSeen(actor, type.module, row, row.title) : '(deleted)';
    const view: EvidenceLinkView = {
      recordType, recordId: link.recordId, title: readable,
      href: row && readable === row.title ? type.href(link.recordId, row) : null, linkedAt: link.createdAt.toISOString(),
    };
    result.set(link.evidenceId, [...(result.get(link.evidenceId) ?? []), view]);
  }
  return result;
}

/** The record a link points at, by Bearer rule 4: its module's read right (403) and a readable record (404, audited). */
export async function requireLinkableRecord(db: DbOrTx, actor: Actor, input: EvidenceLinkInput, field?: string) {
  const type = LINKED_TYPES[input.recordType];
  const row = (await linkedRows(db, type, [input.recordId])).get(input.recordId);
  return requireLinkedRow(actor, type, input.recordId, row, field);
}

/** The owner and owner group of a linkable record (for the rights on the record itself, as upload_evidence needs). */
export async function linkedOwner(db: DbOrTx, target: EvidenceLinkInput): Promise<{ ownerId: string | null; ownerGroupId: string | null }> {
  const row = (await linkedRows(db, LINKED_TYPES[target.recordType], [target.recordId])).get(target.recordId);
  if (!row) throw notFound(`${LINKED_TYPES[target.recordType].label} ${target.recordId}`);
  return { ownerId: row.ownerId, ownerGroupId: row.ownerGroupId };
}

export async function linkEvidence(tx: DbOrTx, actor: Actor, evidenceId: string, input: EvidenceLinkInput): Promise<void> {
  await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
  const record = await requireLinkableRecord(tx, actor, input, 'recordId');
  const inserted = await tx.insert(evidenceLinks).values({ evidenceId, recordType: input.recordType, recordId: record.id }).onConflictDoNothing().returning();
  if (!inserted.length) throw conflict(`Evidence ${evidenceId} is already linked to ${LINKED_TYPES[input.recordType].label.toLowerCase()} ${record.id}`);
  // History keeps the linked record's type and id, not its name: readers who may not read it see nothing of it.
  await recordChange(tx, actor, {
    module: 'evidence', recordType: 'evidence', recordId: evidenceId, action: 'link', before: null, after: { linkedType: input.recordType, linkedId: record.id },
  });
}

export async function unlinkEvidence(tx: DbOrTx, actor: Actor, evidenceId: string, input: EvidenceLinkInput): Promise<void> {
  await loadForAction(tx, evidenceKind, actor, evidenceId, 'update');
  const type = LINKED_TYPES[input.recordType];
  const row = (await linkedRows(tx, type, [input.recordId])).get(input.recordId);
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
export async function evidenceLinkedTo(db: DbOrTx, actor: Actor, recordTypes: readonly LinkedRecordType[], recordIds: readonly string[]) {
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
