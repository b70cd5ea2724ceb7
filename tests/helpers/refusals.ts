import { appendFileSync } from 'node:fs';
import { expect } from 'bun:test';
import { and, eq, gt, max } from 'drizzle-orm';
import { auditLog } from '../../db/schema';
import type { TestEnv } from './app';

export interface Refusal {
  status: number;
  /** The answer's `error` (JSON answers only). */
  error?: string;
  /** The reasons of the refusals the request left in the Audit Log (permission.denied), oldest first. */
  reasons: string[];
}

/**
 * Sends a request and tells why it was refused: the status, the `error` of the answer and the reasons of the refusals it
 * left in the Audit Log (one entry per refusal in tests: REFUSAL_WINDOW_SECONDS is 0). A test that asserts these fails
 * when a refusal happens for another reason than the one it names.
 */
export async function refusalOf(env: TestEnv, send: () => Promise<Response>): Promise<Refusal> {
  const [{ head }] = await env.ctx.db.select({ head: max(auditLog.seq) }).from(auditLog);
  const res = await send();
  const text = await res.text();
  let error: string | undefined;
  try {
    const body = JSON.parse(text) as { error?: unknown };
    if (typeof body.error === 'string') error = body.error;
  } catch {
    // a screen's HTML answer: only the status and the audited reasons tell why
  }
  const entries = await env.ctx.db.select({ details: auditLog.details }).from(auditLog)
    .where(and(gt(auditLog.seq, head ?? 0), eq(auditLog.module, 'security'), eq(auditLog.action, 'permission.denied')))
    .orderBy(auditLog.seq);
  const refusal: Refusal = { status: res.status, ...(error !== undefined ? { error } : {}), reasons: entries.map((e) => String((e.details as { reason?: unknown }).reason)) };
  if (process.env.REFUSALS_RECORD) {
    const caller = new Error().stack?.split('\n').find((line) => line.includes('.test.ts'))?.match(/\((.*\.test\.ts):(\d+):\d+\)|at (.*\.test\.ts):(\d+):\d+/);
    appendFileSync(process.env.REFUSALS_RECORD, `${JSON.stringify({ file: caller?.[1] ?? caller?.[3], line: Number(caller?.[2] ?? caller?.[4]), refusal })}\n`);
  }
  return refusal;
}

/** `<id>` in an expected text stands for any record id (a UUID). */
const textLike = (text: string) =>
  text.includes('<id>')
    ? expect.stringMatching(new RegExp(`^${text.split('<id>').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[0-9a-f-]{36}')}$`))
    : text;

/** The expected refusal: its status, its `error` (undefined for a screen) and each audited reason, `<id>` for any id. */
export function refusedWith(status: number, error: string | undefined, ...reasons: string[]): Refusal {
  return { status, ...(error !== undefined ? { error: textLike(error) } : {}), reasons: reasons.map(textLike) } as Refusal;
}
