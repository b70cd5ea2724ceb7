import { and, eq, gt, max } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import type { TestEnv } from './app';

/**
 * Sends a request and tells why it was refused: the status, the `error` of the answer and the reasons of the refusals it
 * left in the Audit Log (permission.denied, one entry per refusal in tests: REFUSAL_WINDOW_SECONDS is 0). A test that
 * asserts these fails when a refusal happens for another reason than the one it names.
 */
export async function refusalOf(env: TestEnv, send: () => Promise<Response>): Promise<{ status: number; error: string; reasons: string[] }> {
  const [{ head }] = await env.ctx.db.select({ head: max(auditLog.seq) }).from(auditLog);
  const res = await send();
  const text = await res.text();
  let error = text;
  try {
    error = (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    // not JSON: the text itself (a screen's answer)
  }
  const entries = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
    .where(and(gt(auditLog.seq, head ?? 0), eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')))
    .orderBy(auditLog.seq);
  return { status: res.status, error, reasons: entries.map((e) => String((e.details as { reason?: unknown }).reason)) };
}
