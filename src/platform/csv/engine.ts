import type { TObject } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { asc, inArray } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../../db/client';
import { appendAudit } from '../audit/audit';
import { auditedCustomFields, definitionsFor, loadCustomFields, type Definition } from '../records/custom-field-values';
import { forbidden } from '../core/errors';
import { schemaProblems } from '../http/form-input';
import { levelOf, requirePermission, type Actor } from '../permissions/permissions';
import {
  auditFields, createRecords, listCondition, updateRecords, type BatchOutcome, type OwnedTable, type RecordKind,
} from '../records/records';
import {
  importRefusalsFor, importRights, loadImportLookups, matchAllowed, type ImportColumn, type ImportLookups, type ImportRights, type ImportType,
  type ImportRefusal, type ImportWriter, type ReadResult,
} from './import-type';
import { PipelinedWrites } from '../core/pipelined-writes';
import { CsvRefusal, openCsv, type CsvRow } from './parse';
import { toCsv } from './write';
import { isUuid } from '../core/uuid';
import { isRealDate } from '../core/dates';
import { valueLabel } from '../core/value-labels';

/**
 * The one CSV import engine. A record type only maps columns onto its module's TypeBox shape and names the kind whose
 * batch service writes it (import-type.ts); everything else happens here, identically for every type:
 *
 *   parse (parse.ts) -> header check -> per chunk of rows: map cells to the create/update input, check it against the
 *   REST schema, run the kit's batch service (the same rules as a single write, with audit and History) -> result.
 *
 * Check file runs all of it in a transaction that is rolled back; Import rows runs it again and commits only when no
 * row failed. Only one chunk's inputs and service objects are alive at a time; the result list holds one small entry
 * per row.
 */

export type RowOutcome = 'create' | 'update' | 'unchanged' | 'error';
export interface RowChange { column: string; old: string; new: string }
export interface RowProblem { column: string; message: string }
export interface RowResult {
  line: number;
  outcome: RowOutcome;
  /** The record the row updates (or leaves unchanged), or created once the import is kept: never a checked row's new id. */
  id?: string;
  /** The record's title (or name) as the row leaves it, naming the link to it. */
  title?: string;
  /** Update rows: each changed column, old -> new; create rows: each column the row sets (old blank). */
  changes?: RowChange[];
  errors?: RowProblem[];
}
export type ImportCounts = Record<RowOutcome, number>;
export interface ImportResult {
  outcome: 'checked' | 'imported' | 'refused';
  fileName: string;
  counts: ImportCounts;
  rows: RowResult[];
}
export type ImportMode = 'check' | 'apply';

/** Rows written per batch: one INSERT / UPDATE and one Audit Log + History write per chunk. */
export const CHUNK_ROWS = 1_000;
/** Statements of earlier chunks still running while the next chunk is prepared (a chunk sends about three). */
const WRITES_IN_FLIGHT = 6;
/** Download current records: at most this many (the spec's limit). */
export const DOWNLOAD_LIMIT = 5_000;

type Values = Record<string, unknown>;
type AnyType = ImportType<object>;
type Lookups = object & ImportLookups;
type AnyKind = RecordKind<OwnedTable, Values, unknown>;

/** Thrown inside the transaction to roll it back while carrying the result out. */
class RollBack extends Error {
  constructor(readonly result: ImportResult) {
    super('rolled back');
  }
}

const ID_COLUMN: ImportColumn<object> = { name: 'id', field: 'id', help: 'filled: update that record; blank: create one' };

/* ---------- Custom field columns ---------- */

const OPTION_SEPARATOR = '|';

function customColumn(d: Definition): ImportColumn<object> {
  const field = `customFields.${d.key}`;
  const name = `cf.${d.key}`;
  const base = { name, field, required: d.required, blankOnUpdate: 'clear' as const };
  switch (d.type) {
    case 'number':
      return { ...base, help: 'a number', read: (text) => (/^[+-]?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(text) ? { value: Number(text) } : { problem: `"${text}" is not a number` }) };
    case 'date':
      return { ...base, help: 'date YYYY-MM-DD', read: (text) => (isRealDate(text) ? { value: text } : { problem: `"${text}" is not a real date written YYYY-MM-DD` }) };
    case 'boolean':
      return {
        ...base, help: 'true or false',
        read: (text) => (/^(true|yes)$/i.test(text) ? { value: true } : /^(false|no)$/i.test(text) ? { value: false } : { problem: `"${text}" is not true or false` }),
        write: (value) => (value === true ? 'true' : value === false ? 'false' : ''),
      };
    case 'singleSelect':
      return { ...base, help: d.options.join(', '), read: (text) => matchAllowed(d.options, text) };
    case 'multiSelect':
      return {
        ...base, help: `any of ${d.options.join(', ')}, separated by ${OPTION_SEPARATOR}`,
        read(text) {
          const values: string[] = [];
          for (const part of text.split(OPTION_SEPARATOR).map((p) => p.trim()).filter(Boolean)) {
            const matched = matchAllowed(d.options, part);
            if ('problem' in matched) return matched;
            values.push(matched.value as string);
          }
          return { value: values };
        },
        write: (value) => (Array.isArray(value) ? value.join(OPTION_SEPARATOR) : ''),
      };
    default:
      return { ...base, help: 'text' };
  }
}

/** The columns of a type's import format: id, the type's own, then one per custom field. */
export async function importColumns(db: DbOrTx, type: AnyType): Promise<ImportColumn<object>[]> {
  const custom = type.customFields ? (await definitionsFor(db, type.module)).map(customColumn) : [];
  return [ID_COLUMN, ...type.columns, ...custom];
}

const headerKey = (name: string) => name.trim().replace(/\*$/, '').trim().toLowerCase();

/**
 * Maps the file's header onto the columns (names ignore case and a trailing *); a repeated or unknown column refuses
 * the file (nothing is dropped silently). Every CSV import's header goes through it.
 */
export function mapHeader<C extends { name: string }>(header: string[], columns: readonly C[], refused: readonly ImportRefusal[] = []): (C | null)[] {
  // Columns declared never to be imported are refused with their reason before anything else is read.
  for (const refusal of refused) {
    const named = header.filter((name) => refusal.columns.includes(headerKey(name)));
    if (named.length) {
      throw new CsvRefusal(`The column${named.length > 1 ? 's' : ''} ${named.map((n) => `"${n}"`).join(', ')} cannot be imported: ${refusal.reason}.`);
    }
  }
  const byName = new Map(columns.map((c) => [c.name.toLowerCase(), c]));
  const seen = new Set<string>();
  const repeated: string[] = [];
  const unknown: string[] = [];
  const mapped = header.map((name, index) => {
    const key = headerKey(name);
    if (key === '') {
      unknown.push(`(blank name in column ${index + 1})`);
      return null;
    }
    if (seen.has(key)) repeated.push(name);
    seen.add(key);
    const column = byName.get(key);
    if (!column) unknown.push(name);
    return column ?? null;
  });
  if (repeated.length) throw new CsvRefusal(`The header repeats ${repeated.map((n) => `"${n}"`).join(', ')}; each column may appear once.`);
  if (unknown.length) {
    throw new CsvRefusal(`Unknown column${unknown.length > 1 ? 's' : ''} ${unknown.map((n) => `"${n}"`).join(', ')}. The columns are: ${columns.map((c) => c.name).join(', ')}.`);
  }
  return mapped;
}

/** Values the service wrote as a spreadsheet-safe cell ('=x) come back without the guard apostrophe. */
export const unguard = (cell: string) => (/^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell);

const writeCell = (column: ImportColumn<object>, fields: Values, lookups: Lookups): string => {
  const value = fields[column.field];
  if (column.write) return column.write(value, lookups);
  return value === null || value === undefined ? '' : String(value);
};

/** A stored value as check results show it: the column's `show` (people by name), otherwise as the file writes it. */
const showCell = (column: ImportColumn<object>, fields: Values, lookups: Lookups): string =>
  (column.show ? column.show(fields[column.field], lookups) : writeCell(column, fields, lookups));

const readCell = (column: ImportColumn<object>, text: string, lookups: Lookups): ReadResult => (column.read ? column.read(text, lookups) : { value: text });

/** Puts a mapped value on the input: `customFields.<key>` nest under customFields. */
function setField(input: Values, field: string, value: unknown) {
  if (field.startsWith('customFields.')) {
    const custom = (input.customFields ??= {}) as Values;
    custom[field.slice('customFields.'.length)] = value;
  } else input[field] = value;
}

/** A blank cell on update: null when the schema accepts it, otherwise '' (text), otherwise left out. */
function blankValue(type: AnyType, column: ImportColumn<object>): { value: unknown } | null {
  if (column.blankOnUpdate === 'keep') return null;
  if (column.field.startsWith('customFields.')) return { value: null };
  const property = type.Update.properties[column.field];
  if (!property) return null;
  const accepts = (v: unknown) => schemaProblems(type.Update, { [column.field]: v }).every((p) => p.field !== column.field);
  if (accepts(null)) return { value: null };
  if (accepts('')) return { value: '' };
  return null;
}

/** Stored records of a chunk as audited fields (the same shape History keeps), custom fields included. */
async function storedFields(db: DbOrTx, type: AnyType, kind: AnyKind, ids: string[]): Promise<Map<string, Values>> {
  const valid = [...new Set(ids.filter(isUuid).map((id) => id.toLowerCase()))];
  if (valid.length === 0) return new Map();
  const table = kind.table as OwnedTable;
  const rows = (await db.select().from(table as PgTable).where(inArray(table.id, valid))) as Values[];
  const custom = type.customFields ? await loadCustomFields(db, type.module, valid) : new Map();
  return new Map(rows.map((row) => [String(row.id), { ...auditFields(row), ...auditedCustomFields(custom.get(String(row.id)) ?? {}) }]));
}

/** A kind's batch writes (the register kit) as the engine's writer. */
function kindWriter(type: AnyType, kind: AnyKind, lookups: Lookups, definitions: Definition[]): ImportWriter {
  // A kind's batch rules (data its rules read) are loaded once per run, on the first chunk, not once per chunk.
  let loaded: ReturnType<NonNullable<AnyKind['batchRules']>> | undefined;
  const rules = (tx: DbOrTx, actor: Actor) => (kind.batchRules ? (loaded ??= kind.batchRules(tx, actor)) : undefined);
  return {
    label: kind.label,
    stored: (db, _actor, ids) => storedFields(db, type, kind, ids),
    create: (tx, actor, inputs, writes) => createRecords(tx, kind, actor, inputs, { owners: lookups.owners, definitions, writes, rules: rules(tx, actor) }),
    update: (tx, actor, items, writes) => updateRecords(tx, kind, actor, items, { owners: lookups.owners, definitions, writes, rules: rules(tx, actor) }),
    async current(db, actor, limit) {
      const table = kind.table as OwnedTable;
      const rows = (await db.select().from(table as PgTable).where(listCondition(kind, actor, {}))
        .orderBy(asc(table.createdAt), asc(table.id)).limit(limit)) as Values[];
      const custom = type.customFields ? await loadCustomFields(db, type.module, rows.map((r) => String(r.id))) : new Map();
      return rows.map((row) => ({ ...auditFields(row), id: row.id, ...auditedCustomFields(custom.get(String(row.id)) ?? {}) }));
    },
  };
}

/** The type's writer: its own, or its kind's batch writes. */
function writerOf(type: AnyType, lookups: Lookups, definitions: Definition[]): ImportWriter {
  if (type.writer) return type.writer(lookups);
  if (type.kind) return kindWriter(type, type.kind(lookups), lookups, definitions);
  throw new Error(`import type ${type.area} has neither a kind nor a writer`);
}

const compiledSchemas = new WeakMap<TObject, TypeCheck<TObject>>();
/** The module's create/update schema compiled once per process (TypeBox's compiled checks are ~100x faster per row). */
function compiled(schema: TObject): TypeCheck<TObject> {
  let check = compiledSchemas.get(schema);
  if (!check) {
    check = TypeCompiler.Compile(schema);
    compiledSchemas.set(schema, check);
  }
  return check;
}

interface Pending {
  row: CsvRow;
  id: string | null;
  input: Values;
  problems: RowProblem[];
}

/** Runs one chunk of rows through the kind's batch service; returns their results in file order. */
async function runChunk(
  tx: DbOrTx, type: AnyType, writer: ImportWriter, importer: Actor, rows: CsvRow[], mapped: (ImportColumn<object> | null)[],
  lookups: Lookups, seenIds: Map<string, number>, rights: { create: boolean; update: boolean }, writes: PipelinedWrites,
): Promise<RowResult[]> {
  const idIndex = mapped.findIndex((c) => c?.name === 'id');
  const columns = mapped.map((c, index) => ({ column: c!, index })).filter(({ column }) => column.name !== 'id');
  // Every column of the type, present in the file or not, so a problem with a missing column still names the column.
  const fieldToColumn = new Map([...type.columns, ...columns.map(({ column }) => column)].map((column) => [column.field, column.name]));
  const columnOf = (field: string) => (field === '(record)' ? '' : (fieldToColumn.get(field) ?? field));
  const cellAt = (row: CsvRow, index: number) => unguard(row.cells[index] ?? '');
  const stored = await writer.stored(tx, importer, rows.map((row) => (idIndex >= 0 ? cellAt(row, idIndex).trim() : '')).filter(Boolean));

  const pending: Pending[] = rows.map((row) => {
    const problems: RowProblem[] = [];
    const extra = row.cells.slice(mapped.length).filter((c) => c.trim() !== '');
    if (extra.length || row.cells.length < mapped.length) {
      problems.push({ column: '', message: `has ${row.cells.length} fields; the header has ${mapped.length}` });
    }
    const rawId = idIndex >= 0 ? cellAt(row, idIndex).trim() : '';
    const id = rawId ? rawId.toLowerCase() : null;
    const input: Values = {};
    if (id !== null) {
      const before = stored.get(id);
      const earlier = seenIds.get(id);
      if (!before) problems.push({ column: 'id', message: `no ${writer.label.toLowerCase()} with id ${rawId}` });
      else if (earlier !== undefined) problems.push({ column: 'id', message: `the same id is on line ${earlier}` });
      else if (!rights.update) problems.push({ column: 'id', message: `updating needs the right ${importRights(type).update}` });
      seenIds.set(id, seenIds.get(id) ?? row.line);
      if (before) {
        // Only cells that differ from the record's current value are part of the change.
        for (const { column, index } of columns) {
          const cell = cellAt(row, index);
          if (cell === writeCell(column, before, lookups)) continue;
          const text = cell.trim();
          if (text === '') {
            const blank = blankValue(type, column);
            if (blank) setField(input, column.field, blank.value);
            continue;
          }
          const read = readCell(column, text, lookups);
          if ('problem' in read) problems.push({ column: column.name, message: read.problem });
          else setField(input, column.field, read.value);
        }
      }
    } else {
      if (!rights.create) problems.push({ column: '', message: `creating needs the right ${importRights(type).create}` });
      for (const { column, index } of columns) {
        const text = cellAt(row, index).trim();
        if (text === '') {
          if (column.required) problems.push({ column: column.name, message: 'is required' });
          continue;
        }
        const read = readCell(column, text, lookups);
        if ('problem' in read) problems.push({ column: column.name, message: read.problem });
        else setField(input, column.field, read.value);
      }
      for (const column of type.columns) {
        if (column.required && !columns.some((c) => c.column === column)) problems.push({ column: column.name, message: 'is required (column missing)' });
      }
    }
    if (id === null || Object.keys(input).length > 0) {
      const schema = id === null ? type.Create : type.Update;
      // The compiled check is cheap; the detailed (slow) walk runs only for rows that fail it.
      const problemsOf = compiled(schema).Check(input) ? [] : schemaProblems(schema, input);
      for (const p of problemsOf) {
        const column = columnOf(p.field);
        if (!problems.some((q) => q.column === column)) problems.push({ column, message: p.message });
      }
    }
    return { row, id, input, problems };
  });

  const creates = pending.filter((p) => p.id === null && p.problems.length === 0);
  const updates = pending.filter((p) => p.id !== null && p.problems.length === 0);
  const outcomes = new Map<Pending, BatchOutcome>();
  if (creates.length) {
    const done = await writer.create(tx, importer, creates.map((p) => p.input), writes);
    creates.forEach((p, i) => outcomes.set(p, done[i]));
  }
  if (updates.length) {
    const done = await writer.update(tx, importer, updates.map((p) => ({ id: p.id!, patch: p.input })), writes);
    updates.forEach((p, i) => outcomes.set(p, done[i]));
  }

  const allColumns = columns.map((c) => c.column);
  const titleColumn = allColumns.find((c) => c.name === 'title') ?? allColumns.find((c) => c.name === 'name');
  return pending.map((p): RowResult => {
    const outcome = outcomes.get(p);
    if (!outcome || !outcome.ok) {
      const problems = [...p.problems, ...(outcome && !outcome.ok ? outcome.problems.map((q) => ({ column: columnOf(q.field), message: q.message })) : [])];
      return { line: p.row.line, outcome: 'error', errors: problems };
    }
    // Old -> new as the screens show them: people, groups and linked records by name, stored keys by their labels.
    const changes: RowChange[] = [];
    for (const column of allColumns) {
      // Whether the cell changed is judged on the file's text (two people may share a name, never an e-mail).
      if (p.id !== null && writeCell(column, outcome.before ?? {}, lookups) === writeCell(column, outcome.after, lookups)) continue;
      const old = p.id === null ? '' : showCell(column, outcome.before ?? {}, lookups);
      const next = showCell(column, outcome.after, lookups);
      if (p.id !== null || old !== next) changes.push({ column: column.name, old, new: next });
    }
    const title = titleColumn ? writeCell(titleColumn, outcome.after, lookups) || undefined : undefined;
    if (p.id === null) return { line: p.row.line, outcome: 'create', id: outcome.id, title, changes };
    if (!outcome.changed) return { line: p.row.line, outcome: 'unchanged', id: outcome.id, title };
    return { line: p.row.line, outcome: 'update', id: outcome.id, title, changes };
  });
}

const emptyCounts = (): ImportCounts => ({ create: 0, update: 0, unchanged: 0, error: 0 });
const right = (type: AnyType, r: 'create' | 'update' | 'read') => importRights(type)[r];

/** The type's create or update right (by default `<module>:create` / `<module>:update`): needed to check or import a file. */
export function mayImport(actor: Actor, type: { module: string; rights?: ImportRights }): boolean {
  const rights = importRights(type);
  return levelOf(actor, rights.create) !== null || levelOf(actor, rights.update) !== null;
}

/** What a missing import right is called in a 403: 'risks:create or risks:update missing'. */
export const importRightsMissing = (type: { module: string; rights?: ImportRights }) => {
  const rights = importRights(type);
  return rights.create === rights.update ? `${rights.create} missing` : `${rights.create} or ${rights.update} missing`;
};

export interface ImportFile {
  name: string;
  bytes: Uint8Array;
}

/** A file name as recorded in History and the Audit Log: its last path segment, printable, at most 200 characters. */
export const cleanFileName = (name: string | null | undefined) =>
  (name ?? '').split(/[\\/]/).pop()!.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200) || 'upload.csv';

/**
 * Checks (mode check) or imports (mode apply) a CSV file of one record type. A file refused as a whole throws
 * CsvRefusal; a missing right throws 403. Apply keeps the writes only when every row succeeds, and records one
 * summary Audit Log entry (action import) whether it was imported or refused.
 */
export async function runCsvImport<L extends object>(
  db: Db, importType: ImportType<L>, actor: Actor, file: ImportFile, mode: ImportMode,
  options: { onProgress?(rowsDone: number, rowsTotal: number): void } = {},
): Promise<ImportResult> {
  const type = importType;
  const rights = { create: levelOf(actor, right(type, 'create')) !== null, update: levelOf(actor, right(type, 'update')) !== null };
  if (!rights.create && !rights.update) {
    requirePermission(actor, right(type, 'create'));
    throw forbidden(importRightsMissing(type));
  }
  const fileName = cleanFileName(file.name);
  const csv = openCsv(file.bytes);
  const columns = await importColumns(db, type);
  const mapped = mapHeader(csv.header, columns, importRefusalsFor(type.area));
  const skip = csv.firstRow && isTemplateHelpRow(csv.firstRow.cells, mapped) ? 1 : 0;
  if (csv.rowCount - skip === 0) throw new CsvRefusal('The file has only a header row and no records.');
  const importer: Actor = { ...actor, via: 'import', source: `CSV import of ${fileName}` };

  const run = async (tx: DbOrTx, importer: Actor): Promise<ImportResult> => {
    const lookups = { ...(await type.prepare(tx, actor)), ...(await loadImportLookups(tx)) } as Lookups;
    const definitions = type.customFields ? await definitionsFor(tx, type.module) : [];
    const writer = writerOf(type, lookups, definitions);
    const results: RowResult[] = [];
    const seenIds = new Map<string, number>();
    // Each chunk's writes are sent without waiting, so the database stores one chunk while the next is prepared;
    // at most WRITES_IN_FLIGHT statements wait at a time, so memory stays flat however long the file.
    const writes = new PipelinedWrites();
    for (const rows of csv.chunks(CHUNK_ROWS, skip)) {
      results.push(...(await runChunk(tx, type, writer, importer, rows, mapped, lookups, seenIds, rights, writes)));
      await writes.drain(WRITES_IN_FLIGHT);
      options.onProgress?.(results.length, csv.rowCount - skip);
    }
    await writes.drain();
    const counts = emptyCounts();
    for (const r of results) counts[r.outcome] += 1;
    return { outcome: mode === 'check' ? 'checked' : counts.error ? 'refused' : 'imported', fileName, counts, rows: results };
  };
  const result = await keepOnlyWhenImported(db, importer, mode, fileName, { module: type.module, recordType: null, recordId: null }, run);
  // A created row's id names a record only when the import was kept (a check, or a refused import, was rolled back).
  if (result.outcome !== 'imported') for (const row of result.rows) if (row.outcome === 'create') delete row.id;
  return result;
}

/**
 * The import run states: `run` does every row inside one transaction, which is kept only when the result is
 * "imported" (an apply with no error row) and rolled back otherwise — always for a check. A check runs as a
 * rehearsal: the same services and record writes, without the Audit Log and History entries its rollback would
 * discard. Apply runs, imported or refused, leave one summary Audit Log entry (action import: file, row count,
 * outcome counts).
 */
export async function keepOnlyWhenImported(
  db: Db, importer: Actor, mode: ImportMode, fileName: string,
  target: { module: string; recordType: string | null; recordId: string | null },
  run: (tx: DbOrTx, importer: Actor) => Promise<ImportResult>,
): Promise<ImportResult> {
  const summary = (result: ImportResult) => ({
    ...target, action: 'import',
    details: { file: fileName, rows: result.rows.length, counts: result.counts, outcome: result.outcome },
  });
  try {
    return await db.transaction(async (tx) => {
      const result = await run(tx, mode === 'check' ? { ...importer, rehearsal: true } : importer);
      // A rehearsal wrote no Audit Log or History: whatever it answers, it is never kept.
      if (mode === 'check' || result.outcome !== 'imported') throw new RollBack(result);
      await appendAudit(tx, importer, [summary(result)]);
      return result;
    });
  } catch (error) {
    if (!(error instanceof RollBack)) throw error;
    if (mode === 'apply') await db.transaction((tx) => appendAudit(tx, importer, [summary(error.result)]));
    return error.result;
  }
}

/** Errors first, then by line (the screen's order; the REST answer keeps file order). */
export const errorsFirst = (rows: RowResult[]) => [...rows].sort((a, b) => (a.outcome === 'error' ? 0 : 1) - (b.outcome === 'error' ? 0 : 1) || a.line - b.line);

type HelpColumn = { help: string; required?: boolean; values?: readonly string[] };
const helpCell = (column: HelpColumn) => `${column.required ? 'required: ' : ''}${column.help}`;
/** A help cell as templates made before labels wrote it ("planned, in_progress"), in today's words. */
const inLabels = (text: string, values: readonly string[] | undefined) =>
  values ? text.replace(/[A-Za-z_]+/g, (word) => (values.includes(word) ? valueLabel(word) : word)) : text;

/**
 * The template's second row lists each column's allowed values (its first cell starts with "# "); it is not a record.
 * Only that row, cell for cell (columns may have been moved), is skipped, also as older templates wrote it (stored
 * keys where it now names labels): a record whose first cell starts with # is imported like any other.
 */
export function isTemplateHelpRow(cells: string[], columns: readonly (HelpColumn | null)[]): boolean {
  return cells.some((cell) => cell.startsWith('# '))
    && columns.every((column, i) => column !== null && inLabels((cells[i] ?? '').replace(/^# /, ''), column.values) === helpCell(column));
}

/** A template file: the header and, unless `comments` is false, a comment row (skipped on import) with each column's allowed values. */
export function templateCsv(columns: readonly { name: string; help: string; required?: boolean }[], comments = true): string {
  const header = columns.map((c) => c.name);
  const help = columns.map((c, i) => `${i === 0 ? '# ' : ''}${helpCell(c)}`);
  return toCsv(comments ? [header, help] : [header]);
}

/** The template of an import type (its custom field columns included). */
export async function csvTemplate(db: DbOrTx, importType: ImportType<object>, comments = true): Promise<string> {
  return templateCsv(await importColumns(db, importType), comments);
}

/** Current records the actor can read (at most DOWNLOAD_LIMIT, oldest first) in the import format. */
export async function csvCurrentRecords(db: DbOrTx, importType: ImportType<object>, actor: Actor): Promise<{ csv: string; truncated: boolean }> {
  const type = importType;
  requirePermission(actor, right(type, 'read'));
  const lookups = { ...(await type.prepare(db, actor)), ...(await loadImportLookups(db)) } as Lookups;
  const columns = await importColumns(db, type);
  const rows = await writerOf(type, lookups, []).current(db, actor, DOWNLOAD_LIMIT + 1);
  const truncated = rows.length > DOWNLOAD_LIMIT;
  const lines = rows.slice(0, DOWNLOAD_LIMIT).map((fields) => columns.map((c) => writeCell(c, fields, lookups)));
  return { csv: toCsv([columns.map((c) => c.name), ...lines]), truncated };
}

