import { desc, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { analysisControls, auditFindings, controlTests, controls, riskTreatments, treatmentControls, users } from '../../../db/schema';
import { invalidField } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { exists, getRecord, listRecords, loadForAction, referencedBy, type RecordKind, type RecordView } from '../../platform/records/records';
import { recordPages } from '../../platform/reports/declarations';
import type { ListParams } from '../../platform/records/records';
import type { Actor } from '../../platform/permissions/permissions';
import type { ControlCreate, ControlTestCreate, ControlTesting } from './schema';
import { addMonths, isRealDate, todayIso } from '../../platform/core/dates';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { CONTROL_STATUSES, CONTROL_TYPES } from './schema';

export const controlKind: RecordKind<typeof controls, ControlCreate> = {
  module: 'controls',
  recordType: 'control',
  label: 'Control',
  table: controls,
  titleColumn: controls.name,
  statusColumn: controls.status,
  sortable: {
    name: controls.name, type: inDefinedOrder(controls.type, CONTROL_TYPES), status: inDefinedOrder(controls.status, CONTROL_STATUSES), owner: ownerNameSort,
    createdAt: controls.createdAt, updatedAt: controls.updatedAt,
  },
  defaults: { description: '', type: 'process', status: 'active', testFrequencyMonths: null },
  filters: { type: (value) => eq(controls.type, value as ControlCreate['type'] & string) },
  references: [
    referencedBy({ one: 'audit finding', many: 'audit findings' }, auditFindings, auditFindings.controlId, { kind: 'auditFinding', id: auditFindings.id }),
    referencedBy({ one: 'requirement', many: 'requirements' }, analysisControls, analysisControls.controlId, { kind: 'requirement', id: analysisControls.analysisId }),
    // A treatment's page is its risk's: the risks are named.
    referencedBy({ one: 'risk treatment', many: 'risk treatments' }, treatmentControls, treatmentControls.controlId, {
      kind: 'risk', id: sql`(select ${riskTreatments.riskId} from ${riskTreatments} where ${riskTreatments.id} = ${treatmentControls.treatmentId})`,
    }),
  ],
  customFields: true,
  toColumns: (c) => ({ ...c, name: c.name.trim() }),
  async check(_db, candidate) {
    return candidate.name.trim() ? [] : [{ field: 'name', message: 'must not be blank' }];
  },
};


/** Records a test of a control (needs controls:update on that control); the next due date follows from the schedule. */
export async function recordControlTest(tx: DbOrTx, actor: Actor, controlId: string, input: ControlTestCreate): Promise<{ id: string }> {
  await loadForAction(tx, controlKind, actor, controlId, 'update');
  if (!isRealDate(input.testedOn)) throw invalidField('testedOn', 'must be a real date written YYYY-MM-DD');
  const testerId = input.testerId ?? actor.userId;
  if (testerId && !(await exists(tx, users, users.id, testerId))) throw invalidField('testerId', 'no such user');
  const [row] = await tx.insert(controlTests).values({
    controlId, testedOn: input.testedOn, result: input.result, notes: input.notes ?? '', testerId,
  }).returning();
  const { id, createdAt: _c, ...fields } = row;
  await recordChange(tx, actor, { module: 'controls', recordType: 'controlTest', recordId: id, action: 'create', before: null, after: fields });
  return { id };
}

export async function controlTesting(db: DbOrTx, actor: Actor, controlId: string, today = new Date()): Promise<ControlTesting> {
  const control = await getRecord(db, controlKind, actor, controlId);
  const tests = await db.select().from(controlTests).where(eq(controlTests.controlId, controlId))
    .orderBy(desc(controlTests.testedOn), desc(controlTests.createdAt));
  const last = tests[0]?.testedOn ?? null;
  const frequency = control.testFrequencyMonths;
  const nextTestDue = frequency ? (last ? addMonths(last, frequency) : today.toISOString().slice(0, 10)) : null;
  return {
    frequencyMonths: frequency,
    lastTestedOn: last,
    nextTestDue,
    tests: tests.map((test) => ({ ...test, createdAt: test.createdAt.toISOString() })),
  };
}

/** Controls the actor owns whose next test is due today or earlier (the assistant's my_open_items). */
export async function controlTestsDue(db: DbOrTx, actor: Actor, today = todayIso()) {
  if (!actor.userId) return [];
  const owned = (await listRecords(db, controlKind, actor, { ownerId: actor.userId, pageSize: 200 })).rows;
  const due = await Promise.all(owned.filter((c) => c.testFrequencyMonths).map(async (c) => {
    const testing = await controlTesting(db, actor, c.id);
    return testing.nextTestDue && testing.nextTestDue <= today ? { controlId: c.id, name: c.name, nextTestDue: testing.nextTestDue } : null;
  }));
  return due.filter((c) => c !== null);
}

/**
 * The controls the actor may read with the latest test of each (the control test status report), a page at a time:
 * one query for the latest tests of each page's controls.
 */
export async function* controlTestStatus(db: DbOrTx, actor: Actor, params: ListParams = {}): AsyncGenerator<ControlTestStatus[]> {
  const today = todayIso();
  for await (const listed of recordPages(db, controlKind, actor, { sort: 'name', ...params })) {
    const latest = await db.selectDistinctOn([controlTests.controlId], { controlId: controlTests.controlId, testedOn: controlTests.testedOn, result: controlTests.result })
      .from(controlTests).where(inArray(controlTests.controlId, listed.map((c) => c.id)))
      .orderBy(controlTests.controlId, desc(controlTests.testedOn), desc(controlTests.createdAt));
    const byControl = new Map(latest.map((t) => [t.controlId, t]));
    yield listed.map((c) => {
      const last = byControl.get(c.id) ?? null;
      const frequency = c.testFrequencyMonths;
      const nextTestDue = frequency ? (last ? addMonths(last.testedOn, frequency) : today) : null;
      return { control: c, lastTestedOn: last?.testedOn ?? null, lastResult: last?.result ?? null, nextTestDue, overdue: nextTestDue !== null && nextTestDue < today };
    });
  }
}

export interface ControlTestStatus {
  control: RecordView<typeof controls> & { name: string; type: string; status: string; testFrequencyMonths: number | null };
  lastTestedOn: string | null;
  lastResult: 'pass' | 'fail' | 'partial' | null;
  nextTestDue: string | null;
  overdue: boolean;
}
