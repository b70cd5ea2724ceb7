import { eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { dpias, privacyQuestionnaires, privacyTransfers, processingActivities } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import type { Actor } from '../../platform/permissions/permissions';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { referencedBy, type RecordKind } from '../../platform/records/records';
import { valueLabel } from '../../platform/core/value-labels';
import { isSpecialCategory, LEGAL_BASES, PROCESSING_ROLES, PROCESSING_STATUSES, type ProcessingActivityCreate } from './schema';
import { isUuid } from '../../platform/core/uuid';
import { categoryProblems, dataSubjectCategoryList, personalDataCategoryList } from './categories';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';

/**
 * The record types a processing activity links to, by field: declared by the assets, third-parties and controls
 * modules (the controls are its technical and organisational measures, Art. 32).
 */
export const LINKED_TYPES = { systemAssetIds: 'asset', processorThirdPartyIds: 'thirdParty', controlIds: 'control' } as const;

/**
 * Every link a write adds must name a record the actor may read (spec Bearer rule 4): the linked module's read right
 * (403 without) and a readable record (404 otherwise, the same as a missing one, the reason in the Audit Log). Links
 * kept as they were are not judged again, so editing a record never fails on a link someone else made.
 */
async function requireReadableLinks(db: DbOrTx, actor: Actor, candidate: ProcessingActivityCreate, before: Record<keyof typeof LINKED_TYPES, string[]> | null) {
  for (const [field, kind] of Object.entries(LINKED_TYPES) as [keyof typeof LINKED_TYPES, string][]) {
    const kept = new Set(before?.[field] ?? []);
    for (const id of candidate[field] ?? []) {
      if (!kept.has(id)) await requireTypedRecord(db, actor, recordType(kind), id, field);
    }
  }
}

/** Records of processing (GDPR Art. 30): the register kit writes them with the Audit Log and History. */
export const processingActivityKind: RecordKind<typeof processingActivities, ProcessingActivityCreate> = {
  module: 'dataPrivacy',
  customFields: true,
  recordType: 'processingActivity',
  label: 'Processing activity',
  table: processingActivities,
  titleColumn: processingActivities.name,
  statusColumn: processingActivities.status,
  // Carries labels of Settings › Labels (the register kit checks, reads and filters them).
  labels: processingActivities.labelIds,
  sortable: {
    name: processingActivities.name, role: inDefinedOrder(processingActivities.role, PROCESSING_ROLES), status: inDefinedOrder(processingActivities.status, PROCESSING_STATUSES),
    legalBasis: inDefinedOrder(processingActivities.legalBasis, LEGAL_BASES), nextReviewOn: processingActivities.nextReviewOn, owner: ownerNameSort,
    createdAt: processingActivities.createdAt, updatedAt: processingActivities.updatedAt,
  },
  defaults: {
    role: 'controller', status: 'draft', purposes: '', specialCategoryCondition: null, dataSubjectCategories: [], personalDataCategories: [],
    recipients: '', retention: '', systemAssetIds: [], processorThirdPartyIds: [], jointControllers: '', securityMeasures: '',
    controlIds: [], nextReviewOn: null, labelIds: [],
  },
  filters: {
    role: (value) => ((PROCESSING_ROLES as readonly string[]).includes(value) ? eq(processingActivities.role, value as 'controller') : undefined),
    // The activities whose measures include a control (the control's page lists them).
    controlId: (value) => (isUuid(value) ? sql`${value}::uuid = any(${processingActivities.controlIds})` : sql`false`),
  },
  // Its DPIAs assess it, its transfers are part of it and questionnaires ask about it: deleting it while any do is a 409 naming them.
  references: [
    referencedBy({ one: 'DPIA', many: 'DPIAs' }, dpias, dpias.processingActivityId, { kind: 'dpia', id: dpias.id }),
    referencedBy({ one: 'transfer', many: 'transfers' }, privacyTransfers, privacyTransfers.processingActivityId, { kind: 'transfer', id: privacyTransfers.id }),
    referencedBy({ one: 'questionnaire', many: 'questionnaires' }, privacyQuestionnaires, privacyQuestionnaires.processingActivityId),
  ],
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    const special = (candidate.personalDataCategories ?? []).filter(isSpecialCategory);
    if (special.length && !candidate.specialCategoryCondition) {
      problems.push({ field: 'specialCategoryCondition', message: `an Art. 9(2) condition is required when special categories of personal data are processed (${special.map(valueLabel).join(', ')})` });
    }
    if (!special.length && candidate.specialCategoryCondition) {
      problems.push({ field: 'specialCategoryCondition', message: 'must be blank unless a special category of personal data (Art. 9(1)) is processed' });
    }
    // Categories come from the lists in Settings: a value added that is not in its list is refused naming the field.
    problems.push(
      ...await categoryProblems(db, dataSubjectCategoryList, 'dataSubjectCategories', candidate.dataSubjectCategories, before?.dataSubjectCategories),
      ...await categoryProblems(db, personalDataCategoryList, 'personalDataCategories', candidate.personalDataCategories, before?.personalDataCategories),
    );
    if (problems.length) return problems;
    await requireReadableLinks(db, actor, candidate, before);
    return problems;
  },
};
