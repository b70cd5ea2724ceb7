import { and, asc, eq, ilike, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { assets, groups, incidentBreaches, incidentBreachNotifications, incidentClassifications, incidents, thirdParties, users } from '../../../db/schema';
import { conflict, invalid, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { escapeLike, exists, getRecord, loadForAction, type RecordKind } from '../../platform/records/records';
import { dateProblems, isRealDate } from '../../platform/core/dates';
import type { BreachInput, BreachView, IncidentCreate, NotificationCreate, NotificationView } from './schema';
import { requireReadableLink } from '../../platform/records/links';
import { assetKind } from '../assets/service';
import { thirdPartyKind } from '../thirdParties/service';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { INCIDENT_STATUSES } from './schema';

const today = () => new Date().toISOString().slice(0, 10);
const dateProblem = dateProblems;

export const incidentKind: RecordKind<typeof incidents, IncidentCreate> = {
  module: 'incidents',
  customFields: true,
  recordType: 'incident',
  label: 'Incident',
  table: incidents,
  titleColumn: incidents.title,
  statusColumn: incidents.status,
  sortable: {
    title: incidents.title, status: inDefinedOrder(incidents.status, INCIDENT_STATUSES), openedAt: incidents.openedAt, owner: ownerNameSort,
    createdAt: incidents.createdAt, updatedAt: incidents.updatedAt,
  },
  // A getter: "today" is the day the incident is recorded, not the day the service started.
  get defaults() {
    return { description: '', status: 'open' as const, resolution: '', openedAt: today(), classificationId: null, assetId: null, thirdPartyId: null };
  },
  filters: { classificationId: (value) => eq(incidents.classificationId, value) },
  toColumns: (c) => ({ ...c, title: c.title.trim(), resolution: (c.resolution ?? '').trim() }),
  /** Holds on every path that writes an incident (REST, screens, CSV import): closing needs a resolution. */
  async check(db, c, before, actor) {
    await requireReadableLink(db, actor, assetKind, 'assetId', c.assetId, before?.assetId);
    await requireReadableLink(db, actor, thirdPartyKind, 'thirdPartyId', c.thirdPartyId, before?.thirdPartyId);
    const problems: FieldProblem[] = [];
    if (!c.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    problems.push(...dateProblem('openedAt', c.openedAt));
    if (c.classificationId && !(await exists(db, incidentClassifications, incidentClassifications.id, c.classificationId))) {
      problems.push({ field: 'classificationId', message: 'no such incident classification' });
    }
    if (c.status === 'closed' && !(c.resolution ?? '').trim()) {
      problems.push({ field: 'resolution', message: 'closing an incident needs a resolution' });
    }
    return problems;
  },
};

// ---------------------------------------------------------------- personal-data breach

type BreachRow = typeof incidentBreaches.$inferSelect;
type NotificationRow = typeof incidentBreachNotifications.$inferSelect;

const notificationView = (n: NotificationRow): NotificationView => ({
  id: n.id, recipient: n.recipient, notifiedOn: n.notifiedOn, reference: n.reference, createdAt: n.createdAt.toISOString(),
});

/** History keeps breach fields on the incident itself, prefixed, so the incident's History tells the whole story. */
const breachFields = (b: BreachRow) => ({
  'breach.categories': b.categories, 'breach.approximateSubjects': b.approximateSubjects,
  'breach.detectedAt': b.detectedAt, 'breach.reportedAt': b.reportedAt,
});

async function notificationsOf(db: DbOrTx, incidentId: string): Promise<NotificationView[]> {
  const rows = await db.select().from(incidentBreachNotifications).where(eq(incidentBreachNotifications.incidentId, incidentId))
    .orderBy(asc(incidentBreachNotifications.notifiedOn), asc(incidentBreachNotifications.createdAt));
  return rows.map(notificationView);
}

async function breachOf(db: DbOrTx, incidentId: string): Promise<BreachView | null> {
  const [row] = await db.select().from(incidentBreaches).where(eq(incidentBreaches.incidentId, incidentId));
  if (!row) return null;
  return { ...row, updatedAt: row.updatedAt.toISOString(), notifications: await notificationsOf(db, incidentId) };
}

/** The incident's breach details and notifications; null when the incident is not recorded as a personal-data breach. */
export async function getBreach(db: DbOrTx, actor: Actor, incidentId: string): Promise<BreachView | null> {
  await getRecord(db, incidentKind, actor, incidentId);
  return breachOf(db, incidentId);
}

export function breachProblems(input: BreachInput): FieldProblem[] {
  const problems = [...dateProblem('detectedAt', input.detectedAt), ...dateProblem('reportedAt', input.reportedAt)];
  input.categories.forEach((category, i) => {
    if (!category.trim()) problems.push({ field: `categories.${i}`, message: 'must not be blank' });
  });
  if (input.detectedAt && input.reportedAt && !problems.length && input.reportedAt < input.detectedAt) {
    problems.push({ field: 'reportedAt', message: 'must not be before detectedAt' });
  }
  return problems;
}

/** Records or replaces the breach details (needs incidents:update on the incident). */
export async function putBreach(tx: DbOrTx, actor: Actor, incidentId: string, input: BreachInput): Promise<BreachView> {
  await loadForAction(tx, incidentKind, actor, incidentId, 'update');
  const problems = breachProblems(input);
  if (problems.length) throw invalid(problems);
  const values = {
    categories: [...new Set(input.categories.map((c) => c.trim()))],
    approximateSubjects: input.approximateSubjects ?? null,
    detectedAt: input.detectedAt ?? null,
    reportedAt: input.reportedAt ?? null,
  };
  const [before] = await tx.select().from(incidentBreaches).where(eq(incidentBreaches.incidentId, incidentId)).for('update');
  const [after] = await tx.insert(incidentBreaches).values({ incidentId, ...values })
    .onConflictDoUpdate({ target: incidentBreaches.incidentId, set: { ...values, updatedAt: new Date() } }).returning();
  await recordChange(tx, actor, {
    module: 'incidents', recordType: 'incident', recordId: incidentId, action: 'update',
    before: before ? breachFields(before) : null, after: breachFields(after),
  });
  return (await breachOf(tx, incidentId))!;
}

/** A notification to the authority or the data subjects; the breach details must be recorded first. */
export async function addBreachNotification(tx: DbOrTx, actor: Actor, incidentId: string, input: NotificationCreate): Promise<{ id: string }> {
  await loadForAction(tx, incidentKind, actor, incidentId, 'update');
  if (!isRealDate(input.notifiedOn)) throw invalid(dateProblem('notifiedOn', input.notifiedOn));
  const [breach] = await tx.select({ id: incidentBreaches.incidentId }).from(incidentBreaches).where(eq(incidentBreaches.incidentId, incidentId));
  if (!breach) throw conflict(`Incident ${incidentId} has no breach details; record them before its notifications`);
  const [row] = await tx.insert(incidentBreachNotifications).values({
    incidentId, recipient: input.recipient, notifiedOn: input.notifiedOn, reference: input.reference?.trim() ?? '',
  }).returning();
  await recordChange(tx, actor, {
    module: 'incidents', recordType: 'incident', recordId: incidentId, action: 'breach_notification', before: null,
    after: { 'notification.recipient': row.recipient, 'notification.notifiedOn': row.notifiedOn, 'notification.reference': row.reference },
    details: { notificationId: row.id },
  });
  return { id: row.id };
}

export async function listBreachNotifications(db: DbOrTx, actor: Actor, incidentId: string): Promise<NotificationView[]> {
  await getRecord(db, incidentKind, actor, incidentId);
  return notificationsOf(db, incidentId);
}

// ---------------------------------------------------------------- classification list

/** The classification list is a name list (classifications.ts); these stay importable from the service. */
export { createIncidentClassification, incidentClassificationOptions } from './classifications';

// ---------------------------------------------------------------- choices for the incident form

/** Assets and third parties the viewer may read, by name, for the form's pickers (nothing when they may not read them). */
export async function incidentLinkChoices(db: DbOrTx, actor: Actor): Promise<{ assets: Choice[]; thirdParties: Choice[] }> {
  const visible = async (module: 'assets' | 'thirdParties', table: typeof assets | typeof thirdParties): Promise<Choice[]> => {
    if (levelOf(actor, `${module}:read`) === null) return [];
    return db.select({ value: table.id, label: table.name }).from(table)
      .where(ownershipCondition(actor, `${module}:read`, table.ownerId, table.ownerGroupId)).orderBy(asc(table.name)).limit(1000);
  };
  const [assetChoices, thirdPartyChoices] = await Promise.all([visible('assets', assets), visible('thirdParties', thirdParties)]);
  return { assets: assetChoices, thirdParties: thirdPartyChoices };
}
interface Choice {
  value: string;
  label: string;
}

/** One personal-data breach as listed across incidents: the incident, its breach details and its first notification to the authority. */
export interface BreachEntry {
  incidentId: string;
  title: string;
  status: 'open' | 'closed';
  categories: string[];
  approximateSubjects: number | null;
  detectedAt: string | null;
  authorityNotifiedOn: string | null;
  subjectsNotifiedOn: string | null;
  /** The incident's owner: a person (ownerId) or a group, by name. */
  ownerId: string | null;
  owner: string | null;
}

/** What the breaches may be narrowed to in the database: the incident's status, its owner, words of its title. */
export interface BreachNarrowing {
  status?: 'open' | 'closed';
  ownerId?: string;
  q?: string;
}

/**
 * The incidents recorded as personal-data breaches that the actor may read (incidents:read at its level: own or all),
 * newest awareness first, each with its first notification to the authority and to the data subjects (one query).
 */
export async function listBreaches(db: DbOrTx, actor: Actor, narrow: BreachNarrowing = {}, limit = 5_000): Promise<BreachEntry[]> {
  const first = (recipient: 'authority' | 'subjects') =>
    sql<string | null>`min(${incidentBreachNotifications.notifiedOn}) filter (where ${incidentBreachNotifications.recipient} = ${recipient})`;
  const words = narrow.q?.trim();
  return db.select({
    incidentId: incidents.id, title: incidents.title, status: incidents.status, categories: incidentBreaches.categories,
    approximateSubjects: incidentBreaches.approximateSubjects, detectedAt: incidentBreaches.detectedAt,
    authorityNotifiedOn: first('authority'), subjectsNotifiedOn: first('subjects'),
    ownerId: incidents.ownerId, owner: sql<string | null>`coalesce(${users.name}, ${groups.name})`,
  }).from(incidentBreaches)
    .innerJoin(incidents, eq(incidents.id, incidentBreaches.incidentId))
    .leftJoin(incidentBreachNotifications, eq(incidentBreachNotifications.incidentId, incidentBreaches.incidentId))
    .leftJoin(users, eq(users.id, incidents.ownerId))
    .leftJoin(groups, eq(groups.id, incidents.ownerGroupId))
    .where(and(
      ownershipCondition(actor, 'incidents:read', incidents.ownerId, incidents.ownerGroupId),
      narrow.status ? eq(incidents.status, narrow.status) : undefined,
      narrow.ownerId ? eq(incidents.ownerId, narrow.ownerId) : undefined,
      // Words of the title, as typed (LIKE's wildcards taken literally).
      words ? ilike(incidents.title, `%${escapeLike(words)}%`) : undefined,
    ))
    .groupBy(incidents.id, incidentBreaches.incidentId, users.name, groups.name)
    .orderBy(sql`${incidentBreaches.detectedAt} desc nulls last`, asc(incidents.title))
    .limit(limit);
}
