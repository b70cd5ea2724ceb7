import type { AssistantTool } from '../../platform/modules/module';
import type { AppContext } from '../../platform/http/context';
import { invalidField } from '../../platform/core/errors';
import { levelOf, type Actor, type Permission } from '../../platform/permissions/permissions';
import { getRecord, listRecords, type OwnedTable, type RecordKind } from '../../platform/records/records';
import { todayIso } from '../../platform/core/dates';
import { assetKind } from '../assets/service';
import { auditPlanKind, findingKind } from '../audits/service';
import { getAnalysis } from '../compliance/analyses-service';
import { controlKind, controlTesting } from '../controls/service';
import { evidenceInFull } from '../evidence/assistant';
import { listFiles } from '../evidence/files';
import { evidenceLinkedTo, evidenceReminders } from '../evidence/service';
import type { LinkedRecordType } from '../evidence/schema';
import { listExceptions } from '../exceptions/service';
import { complianceParent, policyParent, riskParent } from '../exceptions/parents';
import { incidentKind } from '../incidents/service';
import { policyKind } from '../policies/service';
import { projectKind } from '../projects/service';
import { getRisk } from '../risks/service';
import { listTreatments } from '../risks/treatments-service';
import { thirdPartyKind } from '../thirdParties/service';
import { GetRecordInput, MyOpenItemsInput, type GET_RECORD_TYPES } from './schema';

type RecordType = (typeof GET_RECORD_TYPES)[number];

/** The evidence proving a record, with each file's name, size and SHA-256 (what get_record calls attachments). */
async function attachments(ctx: AppContext, actor: Actor, types: LinkedRecordType[], ids: string[]) {
  const linked = await evidenceLinkedTo(ctx.db, actor, types, ids);
  return Promise.all(linked.map(async (e) => ({ ...e, files: await listFiles(ctx.db, actor, e.id) })));
}

const kinds: Partial<Record<RecordType, RecordKind<OwnedTable, Record<string, unknown>>>> = {
  policy: policyKind,
  thirdParty: thirdPartyKind,
  incident: incidentKind,
  auditPlan: auditPlanKind,
  auditFinding: findingKind,
  asset: assetKind,
  project: projectKind,
};

/** One record in full as the user may read it, with its key linked records and the evidence files that prove it. */
async function recordInFull(ctx: AppContext, actor: Actor, recordType: RecordType, id: string): Promise<unknown> {
  switch (recordType) {
    case 'evidence':
      return evidenceInFull(ctx, actor, id);
    case 'risk':
      return { ...(await getRisk(ctx.db, actor, id)), treatments: await listTreatments(ctx.db, actor, id), evidence: await attachments(ctx, actor, ['risk'], [id]) };
    case 'control': {
      const control = await getRecord(ctx.db, controlKind, actor, id);
      const testing = await controlTesting(ctx.db, actor, id);
      return { ...control, testing, evidence: await attachments(ctx, actor, ['control', 'controlTest'], [id, ...testing.tests.map((test) => test.id)]) };
    }
    case 'requirement':
      return { ...(await getAnalysis(ctx.db, actor, id)), evidence: await attachments(ctx, actor, ['requirement'], [id]) };
    default: {
      const kind = kinds[recordType];
      if (!kind) throw invalidField('recordType', 'not a record type get_record reads');
      const record = await getRecord(ctx.db, kind, actor, id);
      const evidenceTypes: Partial<Record<RecordType, LinkedRecordType>> = { policy: 'policy', thirdParty: 'thirdParty', incident: 'incident', auditPlan: 'auditPlan', auditFinding: 'auditFinding' };
      const type = evidenceTypes[recordType];
      return { ...record, ...(type ? { evidence: await attachments(ctx, actor, [type], [id]) } : {}) };
    }
  }
}

/**
 * What waits on the user: audit findings they own that are open or in remediation, exceptions they are the approver of
 * that wait for a decision, controls they own whose next test is due, and their evidence expiring within 30 days or
 * expired. Each part only when the user may read that module.
 */
async function myOpenItems(ctx: AppContext, actor: Actor) {
  const today = todayIso();
  const scoped = (module: string) => levelOf(actor, `${module}:read` as Permission) !== null;
  const findings = scoped('audits') && actor.userId
    ? (await listRecords(ctx.db, findingKind, actor, { ownerId: actor.userId, pageSize: 200, sort: 'deadline' })).rows.filter((f) => f.status !== 'closed')
    : [];
  const decide = async (parent: typeof riskParent, module: string) => (scoped(module)
    ? (await listExceptions(ctx.db, parent, actor, { status: 'requested', pageSize: 200 })).rows.filter((e) => e.approverId === actor.userId)
    : []);
  const exceptions = [...await decide(riskParent, 'risks'), ...await decide(policyParent, 'policies'), ...await decide(complianceParent, 'compliance')];
  const controls = scoped('controls') && actor.userId ? (await listRecords(ctx.db, controlKind, actor, { ownerId: actor.userId, pageSize: 200 })).rows : [];
  const testsDue = (await Promise.all(controls.filter((c) => c.testFrequencyMonths).map(async (c) => {
    const testing = await controlTesting(ctx.db, actor, c.id);
    return testing.nextTestDue && testing.nextTestDue <= today ? { controlId: c.id, name: c.name, nextTestDue: testing.nextTestDue } : null;
  }))).filter((c) => c !== null);
  const evidence = scoped('evidence') ? await evidenceReminders(ctx.db, { owner: actor }) : [];
  return {
    auditFindings: findings.map((f) => ({ id: f.id, title: f.title, status: f.status, deadline: f.deadline })),
    exceptionsToDecide: exceptions.map((e) => ({ id: e.id, title: e.title, parent: e.parent, expiresAt: e.expiresAt })),
    controlTestsDue: testsDue,
    evidenceExpiring: evidence,
  };
}

export const assistantCoreTools: AssistantTool[] = [
  {
    name: 'get_record', title: 'Read one record', readOnly: true, input: GetRecordInput,
    description: 'One record in full as you may read it: a risk (with treatments), control (with its testing), policy, requirement, evidence (files with SHA-256 and links), third party, incident, audit plan or finding, asset or project; with the evidence proving it and each file\'s SHA-256.',
    run: (ctx, actor, args) => recordInFull(ctx, actor, args.recordType as RecordType, String(args.id)),
  },
  {
    name: 'my_open_items', title: 'What waits on me', readOnly: true, input: MyOpenItemsInput,
    description: 'What waits on you: your open audit findings, exceptions waiting for your decision, your controls whose test is due, and your evidence expiring within 30 days or expired.',
    run: (ctx, actor) => myOpenItems(ctx, actor),
  },
];
