import { and, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { privacyTransfers, transferImpactAssessments } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { valueLabel } from '../../platform/core/value-labels';
import { milestoneReached, type DueDateKind } from '../../platform/notifications/declarations';
import type { Actor } from '../../platform/permissions/permissions';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { referencedBy, type RecordKind, type RecordView } from '../../platform/records/records';
import { withLabels } from '../../platform/records/labels';
import { ADEQUATE_COUNTRIES, COUNTRIES_BY_NAME, countryName, EEA_COUNTRIES, isCountryCode } from './countries';
import type { TiaRecordCreate, TiaView, TransferCreate, TransferView } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { TIA_CONCLUSIONS, TIA_RISKS, TRANSFER_SAFEGUARDS } from './schema';

export const TRANSFER_PATH = '/data-privacy/transfers';
export const TIA_PATH = '/data-privacy/transfer-impact-assessments';

/** The destination's problems: a country code, outside the EEA (a transfer leaves it). */
function destinationProblems(code: string): FieldProblem[] {
  if (!isCountryCode(code)) return [{ field: 'destinationCountry', message: `${code} is not an ISO 3166-1 alpha-2 country code` }];
  if (EEA_COUNTRIES.has(code)) return [{ field: 'destinationCountry', message: `${countryName(code)} is in the EEA: only a destination outside the EEA is a transfer` }];
  return [];
}

/** The safeguard's problems: each safeguard with what it needs, and only that (GDPR Art. 45-49). */
function safeguardProblems(c: TransferCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (c.safeguard === 'adequacy_decision' && isCountryCode(c.destinationCountry) && !ADEQUATE_COUNTRIES.has(c.destinationCountry)) {
    problems.push({ field: 'safeguard', message: `${countryName(c.destinationCountry)} has no adequacy decision of the European Commission: choose SCCs, BCRs or a derogation` });
  }
  if (c.safeguard === 'sccs' && c.sccModule == null) problems.push({ field: 'sccModule', message: 'the SCC module (1-4) is required with standard contractual clauses' });
  if (c.safeguard !== 'sccs' && c.sccModule != null) problems.push({ field: 'sccModule', message: 'must be blank unless the safeguard is standard contractual clauses' });
  if (c.safeguard === 'derogation' && !c.derogation) problems.push({ field: 'derogation', message: 'the Art. 49 ground is required with a derogation' });
  if (c.safeguard !== 'derogation' && c.derogation) problems.push({ field: 'derogation', message: 'must be blank unless the safeguard is a derogation' });
  return problems;
}

const transferView = (record: RecordView<typeof privacyTransfers>): TransferView =>
  ({ ...withLabels(record), derogation: record.derogation as TransferView['derogation'], destinationCountryName: countryName(record.destinationCountry) });

/**
 * Transfers outside the EEA (GDPR Chapter V), each of one processing activity: the register kit writes them with
 * the Audit Log and History. Every link is checked by Bearer rule 4 (the linked module's read right, 403; a record
 * the actor may read, 404 like a missing one, the reason in the Audit Log); a link kept as it was is not judged again.
 */
export const transferKind: RecordKind<typeof privacyTransfers, TransferCreate, TransferView> = {
  module: 'dataPrivacy',
  recordType: 'transfer',
  label: 'Transfer',
  table: privacyTransfers,
  titleColumn: privacyTransfers.name,
  labels: privacyTransfers.labelIds,
  sortable: {
    name: privacyTransfers.name, destinationCountry: inDefinedOrder(privacyTransfers.destinationCountry, COUNTRIES_BY_NAME),
    safeguard: inDefinedOrder(privacyTransfers.safeguard, TRANSFER_SAFEGUARDS), owner: ownerNameSort,
    createdAt: privacyTransfers.createdAt, updatedAt: privacyTransfers.updatedAt,
  },
  defaults: { sccModule: null, derogation: null, transferImpactAssessmentId: null, notes: '', labelIds: [] },
  filters: {
    processingActivityId: (value) => eq(privacyTransfers.processingActivityId, value),
    recipientThirdPartyId: (value) => eq(privacyTransfers.recipientThirdPartyId, value),
  },
  present: async () => ({ view: transferView }),
  toColumns: (c) => ({ ...c, name: c.name.trim(), notes: (c.notes ?? '').trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    problems.push(...destinationProblems(candidate.destinationCountry), ...safeguardProblems(candidate));
    if (problems.length) return problems;
    if (candidate.processingActivityId !== before?.processingActivityId) {
      await requireTypedRecord(db, actor, recordType('processingActivity'), candidate.processingActivityId, 'processingActivityId');
    }
    if (candidate.recipientThirdPartyId !== before?.recipientThirdPartyId) {
      await requireTypedRecord(db, actor, recordType('thirdParty'), candidate.recipientThirdPartyId, 'recipientThirdPartyId');
    }
    const tiaId = candidate.transferImpactAssessmentId ?? null;
    if (tiaId && (tiaId !== before?.transferImpactAssessmentId || candidate.recipientThirdPartyId !== before?.recipientThirdPartyId)) {
      if (tiaId !== before?.transferImpactAssessmentId) await requireTypedRecord(db, actor, recordType('transferImpactAssessment'), tiaId, 'transferImpactAssessmentId');
      const [tia] = await db.select({ id: transferImpactAssessments.id }).from(transferImpactAssessments)
        .where(and(eq(transferImpactAssessments.id, tiaId), eq(transferImpactAssessments.thirdPartyId, candidate.recipientThirdPartyId)));
      if (!tia) problems.push({ field: 'transferImpactAssessmentId', message: 'must be a transfer impact assessment kept on the recipient third party' });
    }
    return problems;
  },
};

/** Transfer impact assessments, kept on a third party: the register kit writes them with the Audit Log and History. */
export const tiaKind: RecordKind<typeof transferImpactAssessments, TiaRecordCreate, TiaView> = {
  module: 'dataPrivacy',
  recordType: 'transferImpactAssessment',
  label: 'Transfer impact assessment',
  table: transferImpactAssessments,
  titleColumn: transferImpactAssessments.name,
  labels: transferImpactAssessments.labelIds,
  sortable: {
    name: transferImpactAssessments.name, riskFound: inDefinedOrder(transferImpactAssessments.riskFound, TIA_RISKS),
    conclusion: inDefinedOrder(transferImpactAssessments.conclusion, TIA_CONCLUSIONS), assessedOn: transferImpactAssessments.assessedOn,
    nextReviewOn: transferImpactAssessments.nextReviewOn, owner: ownerNameSort,
    createdAt: transferImpactAssessments.createdAt, updatedAt: transferImpactAssessments.updatedAt,
  },
  defaults: { supplementaryMeasures: '', nextReviewOn: null, labelIds: [] },
  present: async () => ({ view: (record) => withLabels(record) as TiaView }),
  filters: { thirdPartyId: (value) => eq(transferImpactAssessments.thirdPartyId, value) },
  // Transfers relying on it: deleting it while any do is a 409 naming them.
  references: [referencedBy({ one: 'transfer', many: 'transfers' }, privacyTransfers, privacyTransfers.transferImpactAssessmentId, { kind: 'transfer', id: privacyTransfers.id })],
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    if (!candidate.lawsAssessed.trim()) problems.push({ field: 'lawsAssessed', message: 'must not be blank: name the laws and practices of the destination assessed' });
    if (candidate.nextReviewOn && candidate.nextReviewOn <= candidate.assessedOn) {
      problems.push({ field: 'nextReviewOn', message: `must be after the assessment date (${candidate.assessedOn})` });
    }
    if (candidate.conclusion === 'proceed_with_measures' && !(candidate.supplementaryMeasures ?? '').trim()) {
      problems.push({ field: 'supplementaryMeasures', message: 'name the supplementary measures the conclusion relies on' });
    }
    if (before && candidate.thirdPartyId !== before.thirdPartyId) {
      problems.push({ field: 'thirdPartyId', message: 'a transfer impact assessment stays on the third party it was made for' });
    }
    if (problems.length) return problems;
    if (!before) await requireTypedRecord(db, actor, recordType('thirdParty'), candidate.thirdPartyId, 'thirdPartyId');
    return problems;
  },
};

/** The next review of each transfer impact assessment, reminded to its owner in the daily digest (30, 7 and 0 days before). */
export const tiaDueDates: DueDateKind[] = [{
  key: 'transferImpactAssessmentReviews', label: 'Transfer impact assessment reviews due', module: 'dataPrivacy', dateWord: 'due',
  href: (id) => `${TIA_PATH}/${id}`,
  query: (w) => sql`select ${transferImpactAssessments.id}::text as record_id, ${transferImpactAssessments.name} as title,
      ${transferImpactAssessments.nextReviewOn} as due_on, ${transferImpactAssessments.ownerId} as owner_id,
      ${transferImpactAssessments.ownerGroupId} as owner_group_id, null::text as note
    from ${transferImpactAssessments}
    where ${transferImpactAssessments.nextReviewOn} is not null and ${milestoneReached(w, transferImpactAssessments.nextReviewOn, transferImpactAssessments.updatedAt)}`,
}];

/** A transfer's safeguard in words: "SCCs (Module 2: controller to processor)", "Derogation: Explicit consent". */
export function safeguardText(view: Pick<TransferView, 'safeguard' | 'sccModule' | 'derogation'>): string {
  if (view.safeguard === 'sccs') return `Standard contractual clauses${view.sccModule ? ` (module ${view.sccModule})` : ''}`;
  if (view.safeguard === 'bcrs') return 'Binding corporate rules';
  if (view.safeguard === 'derogation') return `Derogation (Art. 49): ${view.derogation ? valueLabel(view.derogation) : '—'}`;
  return 'Adequacy decision';
}
