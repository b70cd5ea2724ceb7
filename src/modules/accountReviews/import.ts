import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../../db/client';
import { accountReviewItems, users } from '../../../db/schema';
import {
  cleanFileName, isTemplateHelpRow, keepOnlyWhenImported, mapHeader as engineMapHeader, templateCsv, unguard, type ImportCounts, type ImportFile, type ImportMode, type ImportResult, type RowChange, type RowProblem, type RowResult,
} from '../../platform/csv/engine';
import { matchAllowed, writeLabel } from '../../platform/csv/import-type';
import { valueLabel, valueLabelList } from '../../platform/core/value-labels';
import { CsvRefusal, parseCsv } from '../../platform/csv/parse';
import { toCsv } from '../../platform/csv/write';
import { recordChanges, type RecordChange } from '../../platform/audit/history';
import type { Actor } from '../../platform/permissions/permissions';
import { getRecord } from '../../platform/records/records';
import { DECISIONS, type Decision } from './schema';
import { accountKey, ITEM_RECORD_TYPE, itemAuditFields, personProblem, programForItemWrite, programKind, usersByEmail, type ActiveUser } from './service';
import { isUuid } from '../../platform/core/uuid';

/**
 * Account review CSV (Import CSV on a review program): the program's items, created or updated in bulk.
 * The parent program comes from the address; the importer needs accountReviews:update on it and it must be open.
 * Parsing, file rules, result shape and the check-then-apply runs are the CSV engine's (src/platform/csv); the rows
 * are written here because items are not owned records: one multi-row INSERT and one multi-row UPDATE per chunk,
 * with their Audit Log and History entries written as arrays in the same transaction.
 */

export const ITEM_COLUMNS = [
  { name: 'id', help: 'filled: update that item of this program; blank: add one' },
  { name: 'account', help: 'account name, up to 300 characters', required: true },
  { name: 'system', help: 'system the account is on, up to 300 characters', required: true },
  { name: 'owner', help: 'e-mail of an active account' },
  { name: 'decision', help: `${valueLabelList(DECISIONS)} (blank: Pending)`, values: DECISIONS },
  { name: 'reviewer', help: 'e-mail of an active account; blank with a decision: you' },
  { name: 'reviewed_at', help: 'date YYYY-MM-DD or date and time (ISO 8601); blank with a new decision: now' },
] as const;
type ColumnName = (typeof ITEM_COLUMNS)[number]['name'];

const CHUNK_ROWS = 1_000;
const MAX_TEXT = 300;

type Item = typeof accountReviewItems.$inferSelect;
interface Fields {
  account: string;
  system: string;
  ownerId: string | null;
  decision: Decision | null;
  reviewerId: string | null;
  reviewedAt: Date | null;
}

/** Download current records: at most this many items (the spec's limit). */
export const DOWNLOAD_LIMIT = 5_000;

/** The program's items in the import format (oldest first, at most DOWNLOAD_LIMIT); needs read on the program. */
export async function currentItemsCsv(db: DbOrTx, actor: Actor, programId: string): Promise<{ csv: string; truncated: boolean }> {
  await getRecord(db, programKind, actor, programId);
  const rows = await db.select().from(accountReviewItems).where(eq(accountReviewItems.programId, programId))
    .orderBy(asc(accountReviewItems.createdAt), asc(accountReviewItems.id)).limit(DOWNLOAD_LIMIT + 1);
  const kept = rows.slice(0, DOWNLOAD_LIMIT);
  const people = [...new Set(kept.flatMap((r) => [r.ownerId, r.reviewerId]).filter((id): id is string => id !== null))];
  const emails = people.length
    ? new Map((await db.select({ id: users.id, email: users.email }).from(users).where(inArray(users.id, people))).map((u) => [u.id, u.email]))
    : new Map<string, string>();
  const lines = kept.map((item) => {
    const cells = cellsOf(item, emails);
    return [item.id, cells.account, cells.system, cells.owner, cells.decision, cells.reviewer, cells.reviewed_at];
  });
  return { csv: toCsv([ITEM_COLUMNS.map((c) => c.name), ...lines]), truncated: rows.length > DOWNLOAD_LIMIT };
}

/** The template: header and a comment row with each column's allowed values (skipped on import). */
export const itemTemplate = () => templateCsv(ITEM_COLUMNS);

/** Where each known column is in the file (the engine's header rules: unknown or repeated columns refuse it). */
function mapHeader(header: string[]): Map<ColumnName, number> {
  const positions = new Map<ColumnName, number>();
  engineMapHeader(header, ITEM_COLUMNS).forEach((column, index) => {
    if (column) positions.set(column.name, index);
  });
  return positions;
}

function readTimestamp(text: string): { value: Date } | { problem: string } {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(text);
  const parsed = new Date(dateOnly ? `${text}T00:00:00Z` : text);
  const real = !Number.isNaN(parsed.getTime()) && (!dateOnly || parsed.toISOString().startsWith(text));
  if (!real || !/^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(text)) {
    return { problem: `"${text}" is not a date YYYY-MM-DD or an ISO 8601 date and time` };
  }
  if (parsed.getTime() > Date.now() + 60_000) return { problem: 'must not be in the future' };
  return { value: parsed };
}

const emailOf = (id: string | null, emails: ReadonlyMap<string, string>) => (id ? (emails.get(id) ?? id) : '');
/** An item as the file writes it: people by e-mail (unique, so a download imports back), the decision by its label. */
const cellsOf = (f: Fields, emails: ReadonlyMap<string, string>): Record<Exclude<ColumnName, 'id'>, string> => ({
  account: f.account, system: f.system, owner: emailOf(f.ownerId, emails), decision: writeLabel(f.decision),
  reviewer: emailOf(f.reviewerId, emails), reviewed_at: f.reviewedAt?.toISOString() ?? '',
});

interface Planned {
  line: number;
  before: Item | null;
  fields: Fields;
  problems: RowProblem[];
}


/** Reads one row against the stored item (update) or as a new item; every problem of the row is listed. */
function planRow(
  line: number, cell: (name: ColumnName) => string | null, before: Item | null, rawId: string,
  people: Map<string, ActiveUser>, actor: Actor, now: Date,
): Planned {
  const problems: RowProblem[] = [];
  const problem = (column: string, message: string) => problems.push({ column, message });
  const base: Fields = before
    ? { account: before.account, system: before.system, ownerId: before.ownerId, decision: before.decision, reviewerId: before.reviewerId, reviewedAt: before.reviewedAt }
    : { account: '', system: '', ownerId: null, decision: null, reviewerId: null, reviewedAt: null };
  const fields = { ...base };
  if (rawId && !before) problem('id', `no item of this program with id ${rawId}`);

  for (const name of ['account', 'system'] as const) {
    const text = cell(name);
    if (text === null) {
      if (!before) problem(name, 'is required (column missing)');
    } else if (text === '') {
      if (!before) problem(name, 'is required');
      else problem(name, 'must not be blank');
    } else if (text.length > MAX_TEXT) problem(name, `must be at most ${MAX_TEXT} characters`);
    else fields[name] = text;
  }
  const person = (column: 'owner' | 'reviewer'): string | null | undefined => {
    const text = cell(column);
    if (text === null) return undefined;
    if (text === '') return null;
    const found = personProblem(column, text, people);
    if (found) {
      problem(column, found.message);
      return undefined;
    }
    return people.get(text.toLowerCase())!.id;
  };
  const owner = person('owner');
  if (owner !== undefined) fields.ownerId = owner;

  const decisionText = cell('decision');
  const reviewer = person('reviewer');
  const reviewedText = cell('reviewed_at');
  let reviewedAt: Date | null | undefined;
  if (reviewedText) {
    const read = readTimestamp(reviewedText);
    if ('problem' in read) problem('reviewed_at', read.problem);
    else reviewedAt = read.value;
  } else if (reviewedText === '') reviewedAt = null;

  if (decisionText !== null) {
    if (decisionText === '') {
      // Back to pending: nobody has reviewed it.
      fields.decision = null;
      if (reviewer) problem('reviewer', 'is given without a decision');
      if (reviewedAt) problem('reviewed_at', 'is given without a decision');
      fields.reviewerId = null;
      fields.reviewedAt = null;
      return { line, before, fields, problems };
    }
    const read = matchAllowed(DECISIONS, decisionText, valueLabel);
    if ('problem' in read) problem('decision', read.problem);
    else fields.decision = read.value as Decision;
  }
  if (fields.decision === null) {
    if (reviewer) problem('reviewer', 'is given without a decision');
    if (reviewedAt) problem('reviewed_at', 'is given without a decision');
    return { line, before, fields, problems };
  }
  const decisionChanged = fields.decision !== base.decision;
  // A new decision is reviewed by the importer, now, unless the file says who and when.
  fields.reviewerId = reviewer ?? (decisionChanged || !base.reviewerId ? actor.userId : base.reviewerId);
  fields.reviewedAt = reviewedAt ?? (decisionChanged || !base.reviewedAt ? now : base.reviewedAt);
  return { line, before, fields, problems };
}

const sameFields = (a: Fields, b: Fields) =>
  a.account === b.account && a.system === b.system && a.ownerId === b.ownerId && a.decision === b.decision
  && a.reviewerId === b.reviewerId && (a.reviewedAt?.getTime() ?? null) === (b.reviewedAt?.getTime() ?? null);

/** Inserts the new items of a chunk in one statement and the changed ones in one; History and Audit Log as arrays. */
async function writeChunk(tx: DbOrTx, actor: Actor, programId: string, creates: Planned[], updates: Planned[]): Promise<void> {
  const changes: RecordChange[] = [];
  if (creates.length) {
    const rows = await tx.insert(accountReviewItems).values(creates.map((p) => ({ programId, ...p.fields }))).returning();
    for (const row of rows) {
      changes.push({ module: 'accountReviews', recordType: ITEM_RECORD_TYPE, recordId: row.id, action: 'create', before: null, after: itemAuditFields(row) });
    }
  }
  if (updates.length) {
    const values = sql.join(updates.map(({ before, fields: f }) =>
      sql`(${before!.id}::uuid, ${f.account}::text, ${f.system}::text, ${f.ownerId}::uuid, ${f.decision}::text, ${f.reviewerId}::uuid, ${f.reviewedAt?.toISOString() ?? null}::timestamptz)`), sql`, `);
    await tx.execute(sql`
      update ${accountReviewItems} as i set account = v.account, system = v.system, owner_id = v.owner_id, decision = v.decision,
        reviewer_id = v.reviewer_id, reviewed_at = v.reviewed_at, updated_at = now()
      from (values ${values}) as v(id, account, system, owner_id, decision, reviewer_id, reviewed_at)
      where i.id = v.id and i.program_id = ${programId}::uuid`);
    for (const { before, fields } of updates) {
      changes.push({
        module: 'accountReviews', recordType: ITEM_RECORD_TYPE, recordId: before!.id, action: 'update',
        before: itemAuditFields(before!), after: { ...itemAuditFields(before!), ...fields },
      });
    }
  }
  await recordChanges(tx, actor, changes);
}

/**
 * Checks (mode check: everything runs, then is rolled back) or imports (mode apply: kept only when every row
 * succeeds) a CSV of review items into a program. One summary Audit Log entry (action import) per apply run.
 */
export async function importReviewItems(db: Db, actor: Actor, programId: string, file: ImportFile, mode: ImportMode): Promise<ImportResult> {
  await programForItemWrite(db, actor, programId);
  const fileName = cleanFileName(file.name);
  const parsed = parseCsv(file.bytes);
  const positions = mapHeader(parsed.header);
  const helpRow = parsed.rows[0] && isTemplateHelpRow(parsed.rows[0].cells, engineMapHeader(parsed.header, ITEM_COLUMNS));
  const rows = helpRow ? parsed.rows.slice(1) : parsed.rows;
  if (rows.length === 0) throw new CsvRefusal('The file has only a header row and no records.');
  const importer: Actor = { ...actor, via: 'import', source: `CSV import of ${fileName}` };
  const cellOf = (cells: string[], name: ColumnName) => {
    const index = positions.get(name);
    return index === undefined ? null : unguard(cells[index] ?? '').trim();
  };

  const run = async (tx: DbOrTx, importer: Actor): Promise<ImportResult> => {
    // Inside the transaction: the program stays open and writable for the whole run.
    await programForItemWrite(tx, importer, programId);
    const now = new Date();
    const results: RowResult[] = [];
    const seenIds = new Map<string, number>();
    const seenAccounts = new Map<string, number>();
    for (let start = 0; start < rows.length; start += CHUNK_ROWS) {
      const chunk = rows.slice(start, start + CHUNK_ROWS);
      const ids = chunk.map((r) => cellOf(r.cells, 'id') ?? '').filter(isUuid).map((id) => id.toLowerCase());
      const emails = chunk.flatMap((r) => [cellOf(r.cells, 'owner') ?? '', cellOf(r.cells, 'reviewer') ?? '']);
      const [stored, people] = await Promise.all([
        ids.length
          ? tx.select().from(accountReviewItems).where(and(eq(accountReviewItems.programId, programId), inArray(accountReviewItems.id, [...new Set(ids)])))
          : Promise.resolve([] as Item[]),
        usersByEmail(tx, emails),
      ]);
      const byId = new Map(stored.map((item) => [item.id, item]));
      const planned = chunk.map((row) => {
        const rawId = cellOf(row.cells, 'id') ?? '';
        const id = rawId.toLowerCase();
        const plan = planRow(row.line, (name) => cellOf(row.cells, name), rawId ? (byId.get(id) ?? null) : null, rawId, people, importer, now);
        if (row.cells.length !== parsed.header.length && row.cells.slice(parsed.header.length).some((c) => c.trim() !== '')) {
          plan.problems.push({ column: '', message: `has ${row.cells.length} fields; the header has ${parsed.header.length}` });
        }
        if (rawId) {
          const earlier = seenIds.get(id);
          if (earlier !== undefined) plan.problems.push({ column: 'id', message: `the same id is on line ${earlier}` });
          else seenIds.set(id, row.line);
        }
        return plan;
      });
      await checkAccounts(tx, programId, planned, seenAccounts);

      const valid = planned.filter((p) => p.problems.length === 0);
      const creates = valid.filter((p) => !p.before);
      const updates = valid.filter((p) => p.before && !sameFields(p.fields, p.before as Fields));
      await writeChunk(tx, importer, programId, creates, updates);

      const named = await peopleOf(tx, planned);
      for (const p of planned) {
        if (p.problems.length) results.push({ line: p.line, outcome: 'error', errors: p.problems });
        else if (!p.before) results.push({ line: p.line, outcome: 'create' });
        else if (!updates.includes(p)) results.push({ line: p.line, outcome: 'unchanged' });
        else {
          // Changed cells judged on the file's text (two people may share a name), shown with people by name.
          const [old, next] = [cellsOf(p.before as Fields, named.emails), cellsOf(p.fields, named.emails)];
          const [oldShown, nextShown] = [cellsOf(p.before as Fields, named.names), cellsOf(p.fields, named.names)];
          const changed: RowChange[] = (Object.keys(next) as (keyof typeof next)[])
            .filter((column) => old[column] !== next[column]).map((column) => ({ column, old: oldShown[column], new: nextShown[column] }));
          results.push({ line: p.line, outcome: 'update', changes: changed });
        }
      }
    }
    const counts: ImportCounts = { create: 0, update: 0, unchanged: 0, error: 0 };
    for (const r of results) counts[r.outcome] += 1;
    return { outcome: mode === 'check' ? 'checked' : counts.error ? 'refused' : 'imported', fileName, counts, rows: results };
  };
  return keepOnlyWhenImported(db, importer, mode, fileName, { module: 'accountReviews', recordType: 'accountReviewProgram', recordId: programId }, run);
}

/** An account on a system appears once per program: not twice in the file, and not again beside another stored item. */
async function checkAccounts(tx: DbOrTx, programId: string, planned: Planned[], seen: Map<string, number>): Promise<void> {
  const candidates = planned.filter((p) => p.fields.account && p.fields.system);
  const systems = [...new Set(candidates.map((p) => p.fields.system))];
  const stored = systems.length
    ? await tx.select({ id: accountReviewItems.id, account: accountReviewItems.account, system: accountReviewItems.system }).from(accountReviewItems)
      .where(and(eq(accountReviewItems.programId, programId), inArray(accountReviewItems.system, systems)))
    : [];
  const storedIds = new Map(stored.map((s) => [accountKey(s), s.id]));
  for (const p of candidates) {
    const key = accountKey(p.fields);
    const earlier = seen.get(key);
    if (earlier !== undefined) {
      p.problems.push({ column: 'account', message: `${p.fields.account} on ${p.fields.system} is also on line ${earlier}` });
      continue;
    }
    seen.set(key, p.line);
    const holder = storedIds.get(key);
    if (holder && holder !== p.before?.id) p.problems.push({ column: 'account', message: `${p.fields.account} on ${p.fields.system} is already in this program` });
  }
}

/** E-mails and names of every person named before or after in a chunk, in one query. */
async function peopleOf(tx: DbOrTx, planned: Planned[]): Promise<{ emails: Map<string, string>; names: Map<string, string> }> {
  const ids = new Set<string>();
  for (const p of planned) {
    for (const id of [p.fields.ownerId, p.fields.reviewerId, p.before?.ownerId, p.before?.reviewerId]) if (id) ids.add(id);
  }
  if (!ids.size) return { emails: new Map(), names: new Map() };
  const rows = await tx.select({ id: users.id, email: users.email, name: users.name }).from(users).where(inArray(users.id, [...ids]));
  return { emails: new Map(rows.map((r) => [r.id, r.email])), names: new Map(rows.map((r) => [r.id, r.name])) };
}
