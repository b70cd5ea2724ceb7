import { eq } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { settings } from '../../../db/schema';
import { appendAudit } from '../../platform/audit/audit';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import type { PolicySettings } from './schema';

export const ALLOW_OUTSIDE_APPROVALS = 'policies.allowOutsideApprovals';

/** The setting as the approval rule reads it; off unless someone turned it on. No permission: it only gates a write. */
export async function outsideApprovalsAllowed(db: DbOrTx): Promise<boolean> {
  const [row] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, ALLOW_OUTSIDE_APPROVALS));
  return row?.value === true;
}

/** Settings › Policies: opens with settings:read. */
export async function getPolicySettings(db: DbOrTx, actor: Actor): Promise<PolicySettings> {
  requirePermission(actor, 'settings:read');
  return { allowOutsideApprovals: await outsideApprovalsAllowed(db) };
}

/**
 * The setting as a policies reader sees it (GET /api/v1/policies/settings, policies:read): whoever records approvals
 * over the API, the bundle loader among them, can tell before writing whether POST /:id/approvals will be refused.
 * Read only: changing it stays on the Settings screen, which has no REST equivalent.
 */
export async function policyApprovalSettings(db: DbOrTx, actor: Actor): Promise<PolicySettings> {
  requirePermission(actor, 'policies:read');
  return { allowOutsideApprovals: await outsideApprovalsAllowed(db) };
}

/** Saving needs settings:update; a change is written to the Audit Log (saving the same value writes nothing). */
export async function savePolicySettings(tx: DbOrTx, actor: Actor, input: PolicySettings): Promise<{ changed: boolean }> {
  requirePermission(actor, 'settings:update');
  const before = await outsideApprovalsAllowed(tx);
  const after = input.allowOutsideApprovals;
  if (before === after) return { changed: false };
  await tx.insert(settings).values({ key: ALLOW_OUTSIDE_APPROVALS, value: after })
    .onConflictDoUpdate({ target: settings.key, set: { value: after, updatedAt: new Date() } });
  await appendAudit(tx, actor, [{
    module: 'settings', action: 'update', recordType: 'setting', recordId: ALLOW_OUTSIDE_APPROVALS,
    details: { changes: { value: { before, after } } },
  }]);
  return { changed: true };
}
