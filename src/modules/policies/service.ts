import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, inArray } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { analysisPolicies, policies, policyApprovals, policyReviews, policyVersions, users } from '../../../db/schema';
import { refusalOf, refuseRepeatedIds, type BatchResult } from '../../platform/records/batch';
import { updateRowsById } from '../../platform/core/bulk-insert';
import { conflict, invalidField, notFound } from '../../platform/core/errors';
import { recordChange, recordChanges, type RecordChange } from '../../platform/audit/history';
import { requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { auditFields, exists, getRecord, loadForAction, referencedBy, type RecordKind } from '../../platform/records/records';
import {
  DEFAULT_REVIEW_FREQUENCY_MONTHS, POLICY_STATUSES,
  type PolicyApprovalCreate, type PolicyApprovalView, type PolicyContent, type PolicyCreate, type PolicyReviewCreate,
  type PolicyReviews, type PolicyVersionView,
} from './schema';
import { outsideApprovalsAllowed } from './settings-service';
import { addMonths, isRealDate } from '../../platform/core/dates';
import { isUuid } from '../../platform/core/uuid';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';

export const policyKind: RecordKind<typeof policies, PolicyCreate> = {
  module: 'policies',
  customFields: true,
  recordType: 'policy',
  label: 'Policy',
  table: policies,
  titleColumn: policies.title,
  statusColumn: policies.status,
  sortable: {
    title: policies.title, status: inDefinedOrder(policies.status, POLICY_STATUSES), reviewFrequencyMonths: policies.reviewFrequencyMonths,
    currentVersion: policies.currentVersion, owner: ownerNameSort,
    createdAt: policies.createdAt, updatedAt: policies.updatedAt,
  },
  defaults: { description: '', reviewFrequencyMonths: DEFAULT_REVIEW_FREQUENCY_MONTHS },
  // A blank frequency (null) means the default, on update as on create.
  toColumns: (c) => ({ ...c, title: c.title.trim(), reviewFrequencyMonths: c.reviewFrequencyMonths ?? DEFAULT_REVIEW_FREQUENCY_MONTHS }),
  async check(_db, candidate) {
    return candidate.title.trim() ? [] : [{ field: 'title', message: 'must not be blank' }];
  },
  // Published text is kept for good: a policy that has been published cannot be deleted (its versions are immutable).
  references: [referencedBy({ one: 'published version (kept for good: a published policy cannot be deleted)', many: 'published versions (kept for good: a published policy cannot be deleted)' }, policyVersions, policyVersions.policyId), referencedBy({ one: 'requirement', many: 'requirements' }, analysisPolicies, analysisPolicies.policyId, { kind: 'requirement', id: analysisPolicies.analysisId })],
};



function requireRealDate(field: string, value: string): void {
  if (!isRealDate(value)) throw invalidField(field, 'must be a real date written YYYY-MM-DD');
}

/** The policy row locked for the rest of the transaction, so concurrent publications number their versions in turn. */
async function lockPolicy(tx: DbOrTx, id: string) {
  const [row] = await tx.select().from(policies).where(eq(policies.id, id)).for('update');
  return row;
}

/** Replaces the draft content (needs policies:update on the policy). Published versions are untouched. */
export async function setPolicyContent(tx: DbOrTx, actor: Actor, id: string, input: PolicyContent): Promise<{ changed: boolean }> {
  await loadForAction(tx, policyKind, actor, id, 'update');
  const before = await lockPolicy(tx, id);
  if (before.content === input.content) return { changed: false };
  const [after] = await tx.update(policies).set({ content: input.content, updatedAt: new Date() }).where(eq(policies.id, id)).returning();
  await recordChange(tx, actor, { module: 'policies', recordType: 'policy', recordId: id, action: 'update', before: auditFields(before), after: auditFields(after) });
  return { changed: true };
}

/**
 * Publishes the draft as version n+1 (needs policies:update). Refused (409) when the draft is empty or identical to
 * the current version: a version is a new text, never a copy.
 */
export async function publishPolicy(tx: DbOrTx, actor: Actor, id: string): Promise<{ id: string; version: number }> {
  await loadForAction(tx, policyKind, actor, id, 'update');
  const before = await lockPolicy(tx, id);
  if (!before.content.trim()) throw conflict(`Policy ${id} has no content to publish; write its content first`);
  const [latest] = await tx.select({ version: policyVersions.version, content: policyVersions.content }).from(policyVersions)
    .where(eq(policyVersions.policyId, id)).orderBy(desc(policyVersions.version)).limit(1);
  if (latest && latest.content === before.content) {
    throw conflict(`Policy ${id}: the content is unchanged since version ${latest.version}; nothing to publish`);
  }
  const version = (latest?.version ?? 0) + 1;
  const [created] = await tx.insert(policyVersions).values({ policyId: id, version, content: before.content, publishedBy: actor.userId }).returning();
  const [after] = await tx.update(policies).set({ status: 'published', currentVersion: version, updatedAt: new Date() })
    .where(eq(policies.id, id)).returning();
  await recordChange(tx, actor, {
    module: 'policies', recordType: 'policy', recordId: id, action: 'publish', before: auditFields(before), after: auditFields(after),
    details: { version },
  });
  const { id: versionId, ...fields } = created;
  await recordChange(tx, actor, { module: 'policies', recordType: 'policyVersion', recordId: versionId, action: 'create', before: null, after: fields });
  return { id: versionId, version };
}

/**
 * Publishes many policies in one transaction (POST /api/v1/policies/batch/publish): the rules of publishPolicy for
 * each (update right on the policy, content not empty, not identical to the current version), one result per id,
 * the versions inserted together and every publication and version in the Audit Log and History.
 */
export async function publishPolicies(tx: DbOrTx, actor: Actor, ids: string[]): Promise<BatchResult[]> {
  requirePermission(actor, 'policies:update');
  refuseRepeatedIds(ids, 'Policy');
  const wanted = [...new Set(ids.filter(isUuid))];
  const rows = wanted.length ? await tx.select().from(policies).where(inArray(policies.id, wanted)).orderBy(asc(policies.id)).for('update') : [];
  const byId = new Map(rows.map((row) => [row.id, row]));
  const latest = new Map((wanted.length
    ? await tx.selectDistinctOn([policyVersions.policyId], { policyId: policyVersions.policyId, version: policyVersions.version, content: policyVersions.content })
      .from(policyVersions).where(inArray(policyVersions.policyId, wanted)).orderBy(policyVersions.policyId, desc(policyVersions.version))
    : []).map((v) => [v.policyId, v]));
  const results: BatchResult[] = new Array(ids.length);
  const publishing: { index: number; before: typeof policies.$inferSelect; version: number; versionId: string }[] = [];
  ids.forEach((id, index) => {
    try {
      const before = byId.get(id);
      if (!before) throw notFound(`Policy ${id}`);
      requireOnRecord(actor, 'policies:update', before, `Policy ${id}`);
      if (!before.content.trim()) throw conflict(`Policy ${id} has no content to publish; write its content first`);
      const current = latest.get(id);
      if (current && current.content === before.content) throw conflict(`Policy ${id}: the content is unchanged since version ${current.version}; nothing to publish`);
      publishing.push({ index, before, version: (current?.version ?? 0) + 1, versionId: randomUUID() });
    } catch (error) {
      results[index] = refusalOf(error);
    }
  });
  if (publishing.length === 0) return results;
  const publishedAt = new Date();
  const versions = await tx.insert(policyVersions).values(publishing.map((p) => ({
    id: p.versionId, policyId: p.before.id, version: p.version, content: p.before.content, publishedBy: actor.userId, publishedAt,
  }))).returning();
  const versionById = new Map(versions.map((v) => [v.id, v]));
  await updateRowsById(tx, policies, publishing.map((p) => ({ id: p.before.id, values: { status: 'published', currentVersion: p.version } })));
  const changes: RecordChange[] = [];
  for (const p of publishing) {
    const after = { ...p.before, status: 'published' as const, currentVersion: p.version };
    changes.push({
      module: 'policies', recordType: 'policy', recordId: p.before.id, action: 'publish', before: auditFields(p.before), after: auditFields(after),
      details: { version: p.version },
    });
    const { id: versionId, ...fields } = versionById.get(p.versionId)!;
    changes.push({ module: 'policies', recordType: 'policyVersion', recordId: versionId, action: 'create', before: null, after: fields });
    results[p.index] = { id: versionId, changed: true };
  }
  await recordChanges(tx, actor, changes);
  return results;
}

/** Every published version, newest first (needs read on the policy). */
export async function listPolicyVersions(db: DbOrTx, actor: Actor, id: string): Promise<PolicyVersionView[]> {
  await getRecord(db, policyKind, actor, id);
  const rows = await db.select({ v: policyVersions, name: users.name }).from(policyVersions)
    .leftJoin(users, eq(users.id, policyVersions.publishedBy))
    .where(eq(policyVersions.policyId, id)).orderBy(desc(policyVersions.version));
  return rows.map(({ v, name }) => ({ ...v, publishedAt: v.publishedAt.toISOString(), publishedByName: name }));
}

/** The policy for a review-right action: 404 when unreadable, 403 without policies:review (or at own level on another's). */
async function loadForReview(tx: DbOrTx, actor: Actor, id: string) {
  const row = await loadForAction(tx, policyKind, actor, id, 'read');
  requireOnRecord(actor, 'policies:review', row, `Policy ${id}`);
  return row;
}

/** Records a review (needs policies:review); the next review falls due the frequency's months after it. */
export async function recordPolicyReview(tx: DbOrTx, actor: Actor, id: string, input: PolicyReviewCreate): Promise<{ id: string }> {
  await loadForReview(tx, actor, id);
  requireRealDate('reviewedOn', input.reviewedOn);
  const reviewerId = input.reviewerId ?? actor.userId;
  if (reviewerId && !(await exists(tx, users, users.id, reviewerId))) throw invalidField('reviewerId', 'no such user');
  const [row] = await tx.insert(policyReviews).values({
    policyId: id, reviewerId, reviewedOn: input.reviewedOn, outcome: input.outcome, notes: input.notes ?? '',
  }).returning();
  const { id: reviewId, createdAt: _c, ...fields } = row;
  await recordChange(tx, actor, { module: 'policies', recordType: 'policyReview', recordId: reviewId, action: 'create', before: null, after: fields });
  return { id: reviewId };
}

export async function policyReviewSchedule(db: DbOrTx, actor: Actor, id: string): Promise<PolicyReviews> {
  const policy = await getRecord(db, policyKind, actor, id);
  const rows = await db.select({ r: policyReviews, name: users.name }).from(policyReviews)
    .leftJoin(users, eq(users.id, policyReviews.reviewerId))
    .where(eq(policyReviews.policyId, id)).orderBy(desc(policyReviews.reviewedOn), desc(policyReviews.createdAt));
  const last = rows[0]?.r.reviewedOn ?? null;
  const frequency = policy.reviewFrequencyMonths;
  let nextReviewDue: string | null = last ? addMonths(last, frequency) : null;
  if (!last) {
    const [first] = await db.select({ at: policyVersions.publishedAt }).from(policyVersions)
      .where(and(eq(policyVersions.policyId, id), eq(policyVersions.version, 1)));
    nextReviewDue = first ? addMonths(first.at.toISOString().slice(0, 10), frequency) : null;
  }
  return {
    frequencyMonths: frequency,
    lastReviewedOn: last,
    nextReviewDue,
    reviews: rows.map(({ r, name }) => ({ ...r, reviewerName: name, createdAt: r.createdAt.toISOString() })),
  };
}

/**
 * Records an approval given outside the app (needs policies:review). Refused with 409 while the setting
 * 'Allow recording outside approvals' is off, and while the policy has no published version to approve.
 */
export async function recordPolicyApproval(tx: DbOrTx, actor: Actor, id: string, input: PolicyApprovalCreate): Promise<{ id: string }> {
  const policy = await loadForReview(tx, actor, id);
  if (!(await outsideApprovalsAllowed(tx))) {
    throw conflict("Recording approvals given outside the app is turned off; an administrator can turn on 'Allow recording outside approvals' in Settings › Policies");
  }
  requireRealDate('approvedOn', input.approvedOn);
  const approverName = input.approverName.trim();
  if (!approverName) throw invalidField('approverName', 'must not be blank');
  const wanted = input.version ?? policy.currentVersion;
  if (wanted === null) throw conflict(`Policy ${id} has no published version to approve; publish it first`);
  const [version] = await tx.select({ id: policyVersions.id }).from(policyVersions)
    .where(and(eq(policyVersions.policyId, id), eq(policyVersions.version, wanted)));
  if (!version) throw invalidField('version', `policy ${id} has no version ${wanted}`);
  const [row] = await tx.insert(policyApprovals).values({
    policyId: id, versionId: version.id, approverName, approvedOn: input.approvedOn, recordedBy: actor.userId,
  }).returning();
  const { id: approvalId, createdAt: _c, ...fields } = row;
  await recordChange(tx, actor, {
    module: 'policies', recordType: 'policyApproval', recordId: approvalId, action: 'create', before: null, after: fields,
    details: { policyId: id, version: wanted },
  });
  return { id: approvalId };
}

export async function listPolicyApprovals(db: DbOrTx, actor: Actor, id: string): Promise<PolicyApprovalView[]> {
  await getRecord(db, policyKind, actor, id);
  const rows = await db.select({ a: policyApprovals, version: policyVersions.version }).from(policyApprovals)
    .innerJoin(policyVersions, eq(policyVersions.id, policyApprovals.versionId))
    .where(eq(policyApprovals.policyId, id)).orderBy(asc(policyVersions.version), asc(policyApprovals.approvedOn));
  return rows.map(({ a, version }) => ({
    id: a.id, policyId: a.policyId, version, approverName: a.approverName, approvedOn: a.approvedOn,
    recordedBy: a.recordedBy, createdAt: a.createdAt.toISOString(),
  }));
}
