import { asc, eq, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { dpias, riskClassifications, riskImpactLevels, riskLikelihoodLevels } from '../../../db/schema';
import { recordChange } from '../../platform/audit/history';
import { conflict, type FieldProblem } from '../../platform/core/errors';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { auditFields, loadForAction, type RecordKind, type RecordView } from '../../platform/records/records';
import { createRisk } from '../risks/service';
import { withLabels } from '../../platform/records/labels';
import { DPIA_CRITERIA_THRESHOLD, DPIA_STATUSES, type DpiaCreate, type DpiaRiskCreate, type DpiaView } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';

const screeningSql = sql<boolean>`(cardinality(${dpias.criteriaMet}) >= ${sql.raw(String(DPIA_CRITERIA_THRESHOLD))})`;
/** Whether the DPIA is required: the assessor's override where there is one, else the screening. */
export const requiredSql = sql<boolean>`coalesce(${dpias.requiredOverride} = 'required', ${screeningSql})`;

/** Why a signed-off DPIA refuses changes and deletion (409). */
const signedOffMessage = (id: string) => `DPIA ${id} is signed off and read-only: reopen it (dataPrivacy:review) to change it`;

/**
 * DPIAs (GDPR Art. 35): the register kit writes them with the Audit Log and History. The screening decision is derived
 * in SQL with every read (`screeningRequired`: two or more criteria met; `required`: the assessor's override where there
 * is one). A signed-off DPIA is frozen: changes and deletion answer 409 until it is reopened.
 */
/** The standard view with the decision computed in SQL (`computed` puts it on the view under these names). */
const dpiaView = (record: RecordView<typeof dpias>): DpiaView => {
  const derived: Record<string, unknown> = record;
  return { ...withLabels(record), customFields: record.customFields ?? {}, screeningRequired: derived.screeningRequired === true, required: derived.required === true };
};

export const dpiaKind: RecordKind<typeof dpias, DpiaCreate, DpiaView> = {
  module: 'dataPrivacy',
  customFields: true,
  recordType: 'dpia',
  label: 'DPIA',
  table: dpias,
  titleColumn: dpias.name,
  statusColumn: dpias.status,
  sortable: {
    name: dpias.name, required: requiredSql, status: inDefinedOrder(dpias.status, DPIA_STATUSES), owner: ownerNameSort, createdAt: dpias.createdAt, updatedAt: dpias.updatedAt,
  },
  defaults: {
    criteriaMet: [], requiredOverride: null, overrideReason: '', description: '', necessityAndProportionality: '', risksToDataSubjects: '',
    measures: '', residualRisk: null, residualJudgement: '', dpoAdvice: '', labelIds: [],
  },
  filters: { processingActivityId: (value) => eq(dpias.processingActivityId, value) },
  labels: dpias.labelIds,
  computed: {
    screeningRequired: screeningSql,
    required: requiredSql,
  },
  present: async () => ({ view: dpiaView }),
  frozen: (before) => (before.status === 'signed_off' ? signedOffMessage(String(before.id)) : null),
  toColumns: (c) => ({ ...c, name: c.name.trim(), overrideReason: (c.overrideReason ?? '').trim() }),
  async check(db, candidate, before, actor) {
    const problems: FieldProblem[] = [];
    if (!candidate.name.trim()) problems.push({ field: 'name', message: 'must not be blank' });
    const reason = (candidate.overrideReason ?? '').trim();
    if (candidate.requiredOverride && !reason) {
      problems.push({ field: 'overrideReason', message: 'a reason is required when the decision departs from the screening' });
    }
    if (!candidate.requiredOverride && reason) problems.push({ field: 'overrideReason', message: 'must be blank unless requiredOverride is set' });
    if (problems.length) return problems;
    // The processing activity assessed: one the actor may read (404 like a missing one otherwise); an unchanged link is not judged again.
    if (candidate.processingActivityId !== before?.processingActivityId) {
      await requireTypedRecord(db, actor, recordType('processingActivity'), candidate.processingActivityId, 'processingActivityId');
    }
    return problems;
  },
};

/** The DPIA for a review-right action: 404 when unreadable, 403 without dataPrivacy:review (or at own level on another's). */
async function forReview(tx: DbOrTx, actor: Actor, id: string) {
  const row = await loadForAction(tx, dpiaKind, actor, id, 'read');
  requireOnRecord(actor, 'dataPrivacy:review', row, `DPIA ${id}`);
  return row;
}

async function setStatus(tx: DbOrTx, actor: Actor, before: typeof dpias.$inferSelect, changes: Partial<typeof dpias.$inferInsert>) {
  const [after] = await tx.update(dpias).set({ ...changes, updatedAt: new Date() }).where(eq(dpias.id, before.id)).returning();
  await recordChange(tx, actor, { module: 'dataPrivacy', recordType: 'dpia', recordId: before.id, action: 'update', before: auditFields(before), after: auditFields(after) });
}

/** Signs a DPIA off (dataPrivacy:review): records who and when; it is read-only from then on. 409 when already signed off. */
export async function signOffDpia(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const before = await forReview(tx, actor, id);
  if (before.status === 'signed_off') throw conflict(`DPIA ${id} is already signed off`);
  await setStatus(tx, actor, before, { status: 'signed_off' satisfies (typeof DPIA_STATUSES)[number], signedOffById: actor.userId, signedOffAt: new Date() });
}

/** Reopens a signed-off DPIA (dataPrivacy:review): a draft again, the sign-off cleared (History keeps who signed and when). */
export async function reopenDpia(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const before = await forReview(tx, actor, id);
  if (before.status !== 'signed_off') throw conflict(`DPIA ${id} is not signed off`);
  await setStatus(tx, actor, before, { status: 'draft', signedOffById: null, signedOffAt: null });
}

/**
 * "Create a risk from this DPIA": writes a risk through the risks service and links it to the DPIA, in the caller's
 * transaction. Needs dataPrivacy:update on the DPIA and risks:create (403 otherwise, audited; nothing is written).
 */
export async function createRiskFromDpia(tx: DbOrTx, actor: Actor, id: string, input: DpiaRiskCreate): Promise<{ id: string }> {
  const before = await loadForAction(tx, dpiaKind, actor, id, 'update');
  requirePermission(actor, 'risks:create');
  const risk = await createRisk(tx, actor, {
    title: input.title?.trim() || `DPIA: ${before.name}`.slice(0, 300),
    description: input.description ?? before.risksToDataSubjects,
    classificationId: input.classificationId,
    inherentLikelihood: input.inherentLikelihood,
    inherentImpact: input.inherentImpact,
  });
  await setStatus(tx, actor, before, { riskIds: [...before.riskIds, risk.id] });
  return risk;
}

/** The choices of the "Create a risk" form: the risk classifications and the levels of the risk scale (Risk Settings). */
export async function riskRatingChoices(db: DbOrTx) {
  const [classifications, likelihoods, impacts] = await Promise.all([
    db.select({ value: riskClassifications.id, label: riskClassifications.name }).from(riskClassifications).orderBy(asc(riskClassifications.name)),
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels).orderBy(asc(riskLikelihoodLevels.value)),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels).orderBy(asc(riskImpactLevels.value)),
  ]);
  const levels = (rows: { value: number; name: string }[]) => rows.map((r) => ({ value: String(r.value), label: `${r.value} ${r.name}` }));
  return { classifications, likelihoods: levels(likelihoods), impacts: levels(impacts) };
}
export type RiskRatingChoices = Awaited<ReturnType<typeof riskRatingChoices>>;
