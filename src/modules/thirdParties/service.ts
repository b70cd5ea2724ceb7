import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { incidents, risks, thirdParties, thirdPartyContacts, thirdPartyRisks, thirdPartySubProcessors } from '../../../db/schema';
import { conflict, invalid, invalidField, notFound, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { ownershipCondition } from '../../platform/permissions/ownership';
import type { Actor } from '../../platform/permissions/permissions';
import { nameAsSeen, requireLinked } from '../../platform/records/links';
import { recordPages } from '../../platform/reports/declarations';
import { getRecord, loadForAction, referencedBy, type ListParams, type RecordKind } from '../../platform/records/records';
import { riskLinkTarget } from '../risks/service';
import type {
  ContactCreate, ContactUpdate, ContactView, LinkedRiskView, RiskLinkCreate, SubProcessorCreate, SubProcessorView, ThirdPartyCreate, ThirdPartyView,
} from './schema';
import { THIRD_PARTY_STATUSES, THIRD_PARTY_TYPES } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';

/** Problem with a website address, or null when it is an http(s) address with a host. */
export function websiteProblem(value: string): string | null {
  if (value.length > 2000) return 'must be at most 2000 characters';
  if (/\s/.test(value)) return 'must be an http or https address without spaces';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an http or https address, e.g. https://example.com';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
  if (!url.hostname) return 'must name a host';
  return null;
}

/** A plain mailbox check: something@host.tld, no spaces, one @. */
export const isEmail = (value: string) => value.length <= 320 && /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(value);

/** Blank optional text is stored as null, so "no website" has one spelling. */
const blankToNull = (value: string | null | undefined) => (value == null || value.trim() === '' ? null : value.trim());

export const thirdPartyKind: RecordKind<typeof thirdParties, ThirdPartyCreate> = {
  module: 'thirdParties',
  customFields: true,
  recordType: 'thirdParty',
  label: 'Third party',
  table: thirdParties,
  titleColumn: thirdParties.name,
  statusColumn: thirdParties.status,
  sortable: {
    name: thirdParties.name, type: inDefinedOrder(thirdParties.type, THIRD_PARTY_TYPES), status: inDefinedOrder(thirdParties.status, THIRD_PARTY_STATUSES),
    owner: ownerNameSort, createdAt: thirdParties.createdAt, updatedAt: thirdParties.updatedAt,
  },
  defaults: { description: '', type: 'vendor', status: 'active', website: null },
  filters: { type: (value) => eq(thirdParties.type, value as NonNullable<ThirdPartyCreate['type']>) },
  toColumns: (c) => ({ ...c, name: c.name.trim(), website: blankToNull(c.website) }),
  async check(_db, candidate) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    const website = blankToNull(candidate.website);
    const problem = website === null ? null : websiteProblem(website);
    if (problem) problems.push({ field: 'website', message: problem });
    return problems;
  },
  references: [
    referencedBy({ one: 'linked risk', many: 'linked risks' }, thirdPartyRisks, thirdPartyRisks.thirdPartyId, { kind: 'risk', id: thirdPartyRisks.riskId }),
    referencedBy({ one: 'third party using it as a sub-processor', many: 'third parties using it as a sub-processor' }, thirdPartySubProcessors, thirdPartySubProcessors.subProcessorId, {
      kind: 'thirdParty', id: thirdPartySubProcessors.thirdPartyId,
    }),
    referencedBy({ one: 'incident', many: 'incidents' }, incidents, incidents.thirdPartyId, { kind: 'incident', id: incidents.id }),
  ],
  // A getter: the sub-processor link names a record of this very kind.
  get historyLinks() {
    return [
      { idField: 'riskId', nameField: 'riskTitle', target: riskLinkTarget },
      { idField: 'subProcessorId', nameField: 'subProcessorName', target: thirdPartyKind },
    ];
  },
};

const history = (tx: DbOrTx, actor: Actor, thirdPartyId: string, action: string, before: Record<string, unknown> | null, after: Record<string, unknown> | null, details?: Record<string, unknown>) =>
  recordChange(tx, actor, { module: 'thirdParties', recordType: 'thirdParty', recordId: thirdPartyId, action, before, after, details });

// ---- Contacts ----------------------------------------------------------------------------------------------

type ContactRow = typeof thirdPartyContacts.$inferSelect;
const contactView = (row: ContactRow): ContactView => ({ ...row, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() });
const contactFields = ({ name, email, phone, role }: ContactRow) => ({ name, email, phone, role });

function checkedContact(candidate: ContactCreate) {
  const problems: FieldProblem[] = [];
  const name = candidate.name.trim();
  const email = blankToNull(candidate.email);
  if (!name) problems.push({ field: 'name', message: 'must not be blank' });
  if (email !== null && !isEmail(email)) problems.push({ field: 'email', message: 'must be an email address, e.g. name@example.com' });
  if (problems.length) throw invalid(problems);
  return { name, email, phone: blankToNull(candidate.phone), role: blankToNull(candidate.role) };
}

export async function listContacts(db: DbOrTx, actor: Actor, thirdPartyId: string): Promise<ContactView[]> {
  await getRecord(db, thirdPartyKind, actor, thirdPartyId);
  const rows = await db.select().from(thirdPartyContacts).where(eq(thirdPartyContacts.thirdPartyId, thirdPartyId))
    .orderBy(asc(thirdPartyContacts.name), asc(thirdPartyContacts.id));
  return rows.map(contactView);
}

export async function addContact(tx: DbOrTx, actor: Actor, thirdPartyId: string, input: ContactCreate): Promise<{ id: string }> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const [row] = await tx.insert(thirdPartyContacts).values({ thirdPartyId, ...checkedContact(input) }).returning();
  await history(tx, actor, thirdPartyId, 'contact.create', null, contactFields(row), { contactId: row.id });
  return { id: row.id };
}

async function loadContact(tx: DbOrTx, thirdPartyId: string, contactId: string): Promise<ContactRow> {
  const [row] = await tx.select().from(thirdPartyContacts)
    .where(and(eq(thirdPartyContacts.id, contactId), eq(thirdPartyContacts.thirdPartyId, thirdPartyId)));
  if (!row) throw notFound(`Contact ${contactId} of third party ${thirdPartyId}`);
  return row;
}

export async function updateContact(tx: DbOrTx, actor: Actor, thirdPartyId: string, contactId: string, patch: ContactUpdate): Promise<ContactView> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const before = await loadContact(tx, thirdPartyId, contactId);
  const defined = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  const values = checkedContact({ ...contactFields(before), ...defined } as ContactCreate);
  const [after] = await tx.update(thirdPartyContacts).set({ ...values, updatedAt: new Date() }).where(eq(thirdPartyContacts.id, contactId)).returning();
  await history(tx, actor, thirdPartyId, 'contact.update', contactFields(before), contactFields(after), { contactId });
  return contactView(after);
}

export async function removeContact(tx: DbOrTx, actor: Actor, thirdPartyId: string, contactId: string): Promise<void> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const before = await loadContact(tx, thirdPartyId, contactId);
  await tx.delete(thirdPartyContacts).where(eq(thirdPartyContacts.id, contactId));
  await history(tx, actor, thirdPartyId, 'contact.delete', contactFields(before), null, { contactId });
}

// ---- Linked risks (touch the risks module: its scope and the caller's read right on the risk are needed too) ----

/** Risks linked to the third party that the actor may read; needs risks:read as well (scopes bound the request). */
export async function listLinkedRisks(db: DbOrTx, actor: Actor, thirdPartyId: string): Promise<LinkedRiskView[]> {
  await getRecord(db, thirdPartyKind, actor, thirdPartyId);
  const readable = ownershipCondition(actor, 'risks:read', risks.ownerId, risks.ownerGroupId);
  const rows = await db.select({ riskId: risks.id, title: risks.title, status: risks.status, linkedAt: thirdPartyRisks.createdAt })
    .from(thirdPartyRisks).innerJoin(risks, eq(risks.id, thirdPartyRisks.riskId))
    .where(and(eq(thirdPartyRisks.thirdPartyId, thirdPartyId), readable))
    .orderBy(asc(risks.title), asc(risks.id));
  return rows.map((r) => ({ ...r, linkedAt: r.linkedAt.toISOString() }));
}

export async function linkRisk(tx: DbOrTx, actor: Actor, thirdPartyId: string, input: RiskLinkCreate): Promise<void> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const risk = await requireLinked(tx, actor, riskLinkTarget, input.riskId, 'riskId');
  const inserted = await tx.insert(thirdPartyRisks).values({ thirdPartyId, riskId: risk.id }).onConflictDoNothing().returning();
  if (!inserted.length) throw conflict(`Risk ${risk.id} is already linked to third party ${thirdPartyId}`);
  await history(tx, actor, thirdPartyId, 'risk.link', null, { riskId: risk.id, riskTitle: risk.title });
}

export async function unlinkRisk(tx: DbOrTx, actor: Actor, thirdPartyId: string, riskId: string): Promise<void> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const risk = await requireLinked(tx, actor, riskLinkTarget, riskId);
  const removed = await tx.delete(thirdPartyRisks)
    .where(and(eq(thirdPartyRisks.thirdPartyId, thirdPartyId), eq(thirdPartyRisks.riskId, riskId))).returning();
  if (!removed.length) throw notFound(`Link between third party ${thirdPartyId} and risk ${riskId}`);
  await history(tx, actor, thirdPartyId, 'risk.unlink', { riskId, riskTitle: risk.title }, null);
}

// ---- Sub-processors -------------------------------------------------------------------------------------------

export async function listSubProcessors(db: DbOrTx, actor: Actor, thirdPartyId: string): Promise<SubProcessorView[]> {
  await getRecord(db, thirdPartyKind, actor, thirdPartyId);
  const readable = ownershipCondition(actor, 'thirdParties:read', thirdParties.ownerId, thirdParties.ownerGroupId);
  const rows = await db.select({
    thirdPartyId: thirdParties.id, name: thirdParties.name, type: thirdParties.type, status: thirdParties.status, linkedAt: thirdPartySubProcessors.createdAt,
  }).from(thirdPartySubProcessors).innerJoin(thirdParties, eq(thirdParties.id, thirdPartySubProcessors.subProcessorId))
    .where(and(eq(thirdPartySubProcessors.thirdPartyId, thirdPartyId), readable))
    .orderBy(asc(thirdParties.name), asc(thirdParties.id));
  return rows.map((r) => ({ ...r, linkedAt: r.linkedAt.toISOString() }));
}

/** True when `from` reaches `target` through sub-processor links (breadth first, one query per level). */
async function reaches(db: DbOrTx, from: string, target: string): Promise<boolean> {
  const seen = new Set<string>([from]);
  let frontier = [from];
  while (frontier.length) {
    const next = await db.select({ id: thirdPartySubProcessors.subProcessorId }).from(thirdPartySubProcessors)
      .where(inArray(thirdPartySubProcessors.thirdPartyId, frontier));
    frontier = [];
    for (const { id } of next) {
      if (id === target) return true;
      if (!seen.has(id)) {
        seen.add(id);
        frontier.push(id);
      }
    }
  }
  return false;
}

export async function addSubProcessor(tx: DbOrTx, actor: Actor, thirdPartyId: string, input: SubProcessorCreate): Promise<void> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  if (input.thirdPartyId === thirdPartyId) throw invalidField('thirdPartyId', 'a third party cannot be its own sub-processor');
  const sub = await requireLinked(tx, actor, thirdPartyKind, input.thirdPartyId, 'thirdPartyId');
  // Two links added at once (A→B and B→A) would each pass the cycle check alone: one graph change at a time.
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('third_party_sub_processors'))`);
  if (await reaches(tx, sub.id, thirdPartyId)) {
    throw invalidField('thirdPartyId', `${sub.title} already processes for this third party through its own sub-processors; the link would make a cycle`);
  }
  const inserted = await tx.insert(thirdPartySubProcessors).values({ thirdPartyId, subProcessorId: sub.id }).onConflictDoNothing().returning();
  if (!inserted.length) throw conflict(`${sub.title} is already a sub-processor of third party ${thirdPartyId}`);
  await history(tx, actor, thirdPartyId, 'subProcessor.add', null, { subProcessorId: sub.id, subProcessorName: sub.title });
}

export async function removeSubProcessor(tx: DbOrTx, actor: Actor, thirdPartyId: string, subProcessorId: string): Promise<void> {
  await loadForAction(tx, thirdPartyKind, actor, thirdPartyId, 'update');
  const sub = await requireLinked(tx, actor, thirdPartyKind, subProcessorId);
  const removed = await tx.delete(thirdPartySubProcessors)
    .where(and(eq(thirdPartySubProcessors.thirdPartyId, thirdPartyId), eq(thirdPartySubProcessors.subProcessorId, subProcessorId))).returning();
  if (!removed.length) throw notFound(`Sub-processor ${subProcessorId} of third party ${thirdPartyId}`);
  await history(tx, actor, thirdPartyId, 'subProcessor.remove', { subProcessorId, subProcessorName: sub.title }, null);
}

/**
 * The third parties the actor may read, each with the titles of its linked risks as the actor may see them: a risk
 * they may not read is named "(restricted)", so the report shows that a risk is linked without naming it.
 */
export async function* thirdPartiesWithRisks(db: DbOrTx, actor: Actor, params: ListParams = {}): AsyncGenerator<ThirdPartyWithRisks[]> {
  for await (const parties of recordPages(db, thirdPartyKind, actor, { sort: 'name', ...params })) {
    const links = await db.select({ thirdPartyId: thirdPartyRisks.thirdPartyId, title: risks.title, ownerId: risks.ownerId, ownerGroupId: risks.ownerGroupId })
      .from(thirdPartyRisks).innerJoin(risks, eq(risks.id, thirdPartyRisks.riskId))
      .where(inArray(thirdPartyRisks.thirdPartyId, parties.map((p) => p.id))).orderBy(asc(risks.title), asc(risks.id));
    const named = new Map<string, string[]>();
    for (const l of links) named.set(l.thirdPartyId, [...(named.get(l.thirdPartyId) ?? []), nameAsSeen(actor, 'risks', l, l.title)]);
    yield parties.map((party) => ({ party: party as ThirdPartyView, risks: named.get(party.id) ?? [] }));
  }
}

export interface ThirdPartyWithRisks {
  party: ThirdPartyView;
  risks: string[];
}
