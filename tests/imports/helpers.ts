import { eq } from 'drizzle-orm';
import { risks } from '../../db/schema';
import type { TestEnv } from '../helpers/app';

export interface ImportAnswer {
  outcome: 'checked' | 'imported' | 'refused';
  counts: { create: number; update: number; unchanged: number; error: number };
  rows: { line: number; outcome: string; id?: string; title?: string; changes?: { column: string; old: string; new: string }[]; errors?: { column: string; message: string }[] }[];
  total: number;
  page: number;
  pageSize: number;
}

/** POSTs a CSV to /api/v1/<area>/import and returns the status and the body. */
export async function postCsv(env: TestEnv, token: string, area: string, csv: string | Uint8Array, mode: 'check' | 'apply', fileName = 'test.csv', query = '') {
  const res = await env.request(`/api/v1/${area}/import?mode=${mode}${query}`, {
    method: 'POST',
    body: csv as BodyInit,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'text/csv', 'x-file-name': fileName },
  });
  const text = await res.text();
  let body: { data?: ImportAnswer; error?: string } = {};
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error(`not JSON (${res.status}): ${text.slice(0, 300)}`);
  }
  return { status: res.status, data: body.data as ImportAnswer, error: body.error, text };
}

export const rowAt = (answer: ImportAnswer, line: number) => {
  const row = answer.rows.find((r) => r.line === line);
  if (!row) throw new Error(`no row for line ${line} in ${JSON.stringify(answer.rows)}`);
  return row;
};

export const errorColumns = (answer: ImportAnswer, line: number) => (rowAt(answer, line).errors ?? []).map((e) => e.column).sort();

export async function riskByTitle(env: TestEnv, title: string) {
  const [row] = await env.ctx.db.select().from(risks).where(eq(risks.title, title));
  return row;
}
