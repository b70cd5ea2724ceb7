import { eq, inArray, sql } from 'drizzle-orm';
import { riskReviews, riskTreatments, risks } from '../../../db/schema';
import { kindEvents, monthsAfter, type DueDateDeclaration, type RecordEvents } from '../../platform/notifications/declarations';
import { riskKind } from './service';

/** Risks and their treatments: what notification rules can name (src/platform/notifications). */
export const riskEvents: RecordEvents[] = [
  kindEvents(riskKind, {
    labels: { inherentLikelihood: 'Inherent likelihood', inherentImpact: 'Inherent impact', residualLikelihood: 'Residual likelihood', residualImpact: 'Residual impact', classificationId: 'Classification' },
    links: { assetId: 'asset', businessUnitId: 'businessUnit' },
    activities: [{ key: 'review', label: 'Review recorded', recordType: 'riskReview', parentField: 'riskId' }],
  }),
  {
    recordType: 'riskTreatment', label: 'Risk treatment', module: 'risks', titleField: 'title',
    fields: { type: 'Type', status: 'Status', title: 'Title', description: 'Description', dueOn: 'Due on', residualLikelihood: 'Residual likelihood', residualImpact: 'Residual impact', controlIds: 'Controls' },
    statusField: 'status', statuses: { planned: 'Planned', implemented: 'Implemented' },
    // A treatment belongs to its risk: the risk's owners read it, and its screen is the risk's.
    async load(db, ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.select({ id: riskTreatments.id, title: riskTreatments.title, riskId: risks.id, ownerId: risks.ownerId, ownerGroupId: risks.ownerGroupId })
        .from(riskTreatments).innerJoin(risks, eq(risks.id, riskTreatments.riskId)).where(inArray(riskTreatments.id, ids));
      return new Map(rows.map((r) => [r.id, { title: r.title, owners: [{ ownerId: r.ownerId, ownerGroupId: r.ownerGroupId }], href: `/risks/${r.riskId}` }]));
    },
  },
];

/** Open risks whose review is due (the last review, else the creation date, plus the review frequency). */
export const riskDueDates: DueDateDeclaration[] = [
  {
    key: 'riskReviews', label: 'Risk reviews due', recordType: riskKind.recordType, dateWord: 'due',
    query: (w) => sql`select * from (
      select ${risks.id}::text as record_id, ${risks.title} as title,
        ${monthsAfter(sql`coalesce(last.reviewed_on, (${risks.createdAt} at time zone 'UTC')::date)`, risks.reviewFrequencyMonths)} as due_on,
        ${risks.ownerId} as owner_id, ${risks.ownerGroupId} as owner_group_id, null::text as note
      from ${risks}
      left join (select ${riskReviews.riskId} as risk_id, max(${riskReviews.reviewedOn}) as reviewed_on from ${riskReviews} group by ${riskReviews.riskId}) last
        on last.risk_id = ${risks.id}
      where ${risks.status} = 'open') due
      where due.due_on <= ${w.today}`,
  },
  {
    // A treatment's screen is its risk's, so the item links there; the risk's owners carry it out.
    key: 'treatmentsOverdue', label: 'Risk treatments past their due date', module: 'risks', dateWord: 'due', href: (id) => `/risks/${id}`,
    query: (w) => sql`select ${risks.id}::text as record_id, ${riskTreatments.title} as title, ${riskTreatments.dueOn} as due_on,
        ${risks.ownerId} as owner_id, ${risks.ownerGroupId} as owner_group_id, 'Risk: ' || ${risks.title} as note
      from ${riskTreatments} join ${risks} on ${risks.id} = ${riskTreatments.riskId}
      where ${riskTreatments.status} = 'planned' and ${riskTreatments.dueOn} < ${w.today}`,
  },
];
