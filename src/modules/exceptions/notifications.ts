import { eq, inArray, sql } from 'drizzle-orm';
import { exceptions } from '../../../db/schema';
import { fieldLabel, milestoneReached, type DueDateKind, type RecordEvents } from '../../platform/notifications/declarations';
import { EXCEPTION_PARENTS, parentColumn, type ExceptionParent } from './parents';

/** Where an exception is shown: its register, or for a requirement's exception the requirement's analysis. */
const hrefOf = (parent: ExceptionParent, id: string, parentId: string) =>
  parent.type === 'compliance' ? `/compliance/analyses/${parentId}` : `${parent.path}/${id}`;

const FIELDS = ['title', 'description', 'status', 'ownerId', 'ownerGroupId', 'approverId', 'expiresAt', 'decisionNote'] as const;

/** Exceptions of each parent kind: readable by their own owners and by their parent's (at level own), as on the screens. */
export const exceptionEvents: RecordEvents[] = EXCEPTION_PARENTS.map((parent) => ({
  recordType: parent.recordType, label: `${parent.label} exception`, module: parent.module, titleField: 'title',
  fields: Object.fromEntries(FIELDS.map((key) => [key, key === 'ownerGroupId' ? 'Owner group' : key === 'expiresAt' ? 'Expires' : fieldLabel(key)])),
  statusField: 'status', statuses: { requested: 'Requested', approved: 'Approved', rejected: 'Rejected' },
  // What the exception is to, as its page says it ("Risk"), not the stored key; the parent's own field links to it.
  values: { parentType: Object.fromEntries(EXCEPTION_PARENTS.map((p) => [p.type, p.label])) },
  people: ['ownerId', 'approverId'], groups: ['ownerGroupId'],
  activities: [{ key: 'decision', label: 'Decision recorded', actions: ['approve', 'reject'] }],
  async load(db, ids) {
    if (ids.length === 0) return new Map();
    const rows = await db.select({
      id: exceptions.id, title: exceptions.title, ownerId: exceptions.ownerId, ownerGroupId: exceptions.ownerGroupId,
      parentId: parentColumn(parent), parentOwnerId: parent.ownerColumn, parentOwnerGroupId: parent.ownerGroupColumn,
    }).from(exceptions).innerJoin(parent.table, eq(parent.idColumn, parentColumn(parent))).where(inArray(exceptions.id, ids));
    return new Map(rows.map((r) => [r.id, {
      title: r.title,
      owners: [{ ownerId: r.ownerId, ownerGroupId: r.ownerGroupId }, { ownerId: r.parentOwnerId as string | null, ownerGroupId: r.parentOwnerGroupId as string | null }],
      href: hrefOf(parent, r.id, r.parentId as string),
    }]));
  },
}));

/** Requested and approved exceptions 30 and 7 days before they expire and on the day (spec Events 3: "expiring exception"). */
export const exceptionDueDates: DueDateKind[] = EXCEPTION_PARENTS.map((parent) => ({
  key: `${parent.type}ExceptionsExpiring`, label: `${parent.label} exceptions expiring`, module: parent.module, dateWord: 'expires',
  // A requirement's exceptions are shown on its analysis: the item links there.
  href: (id) => (parent.type === 'compliance' ? `/compliance/analyses/${id}` : `${parent.path}/${id}`),
  query: (w) => sql`select ${parent.type === 'compliance' ? exceptions.complianceAnalysisId : exceptions.id}::text as record_id,
      ${exceptions.title} as title, ${exceptions.expiresAt} as due_on, ${exceptions.ownerId} as owner_id, ${exceptions.ownerGroupId} as owner_group_id,
      case when ${exceptions.status} = 'requested' then 'not yet decided' end as note
    from ${exceptions}
    where ${exceptions.parentType} = ${parent.type} and ${exceptions.status} in ('requested', 'approved')
      and ${milestoneReached(w, exceptions.expiresAt, exceptions.updatedAt)}`,
}));
