import { and, asc, count, desc, eq, getTableColumns, ilike, inArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { PgColumn, PgSelect, PgTable } from 'drizzle-orm/pg-core';
import { inTurn, Semaphore } from '../core/semaphore';
import { copyCsvOut, STREAM_CONNECTIONS, flatStatement, selectFlat, streamFlat, streamValues, withIsoTimestamps, type DbOrTx } from '../../../db/client';
import { customFieldValues, groups, users } from '../../../db/schema';
import {
  applyCustomFields, auditedCustomFields, customFieldsColumn, definitionsFor, deleteCustomFields, isCustomFieldModule, loadCustomFields,
  prepareCustomFields, saveCustomFieldWrite,
  type CustomFieldMap, type CustomFieldWrite, type Definition,
} from './custom-field-values';
import { AppError, conflict, invalid, notFound, type FieldProblem } from '../core/errors';
import { refuseRepeatedIds } from './batch';
import { insertRows, rowAsStored, updateRowsById } from '../core/bulk-insert';
import { sendOrWait, type PipelinedWrites } from '../core/pipelined-writes';
import { diffFields, listHistory, recordChange, recordChanges, type HistoryView } from '../audit/history';
import { historyAsSeen, type NamedLink } from './links';
import { NOT_AN_ACTIVE_USER, ownerProblems, ownershipCondition, requireOwnLevelKeepsOwnership } from '../permissions/ownership';
import { paging, type Page } from '../http/paging';
import { listTotalQuery } from './row-counts';
import { requireOnRecord, requirePermission, type Actor, type Module, type Owned, type Permission } from '../permissions/permissions';
import { isUuid } from '../core/uuid';
import { labelFilter, labelNamesSql, labelProblems } from './label-columns';

/**
 * The register kit: what every owned record type (controls, assets, policies, incidents, ...) shares — listing
 * with the own/all filter, paging, sorting and search; reading with the 404-if-unreadable rule; creating, changing
 * and deleting with validation, the own-level ownership rule, reference checks, and the Audit Log + History entry
 * in the same transaction. A module describes its table and its rules in a RecordKind; nothing else is repeated.
 */

/** Columns every owned register table has. */
export interface OwnedColumns {
  id: PgColumn;
  ownerId: PgColumn;
  ownerGroupId: PgColumn;
  createdAt: PgColumn;
  updatedAt: PgColumn;
}
export type OwnedTable = PgTable & OwnedColumns;

type Row<T extends OwnedTable> = T['$inferSelect'];
type Values = Record<string, unknown>;

/** Another table pointing at this record; deleting while any point at it answers 409 naming them. */
export interface Reference {
  /** Plural noun for the message: "3 risks". */
  label: string;
  /** Singular noun, for one: "1 risk". */
  one: string;
  count(db: DbOrTx, id: string): Promise<number>;
  /**
   * The referring records, where they are records of a declared type (a finding, a requirement, a risk): its kind and
   * the first `limit` of their ids, so the refusal can name them and link to them (the type's naming rules apply).
   */
  referrers?: { kind: string; ids(db: DbOrTx, id: string, limit: number): Promise<string[]> };
}

/**
 * The rules a batch write applies (createRecords / updateRecords): by default the kind's own check and toColumns;
 * a kind whose rules read data (risks: the scale and the records a link may name) gives batchRules instead, which
 * loads that data once per batch and answers from it.
 */
export interface BatchRules<T extends OwnedTable, Input extends Values> {
  check?(db: DbOrTx, candidate: Input, before: Row<T> | null, actor: Actor): Promise<FieldProblem[]>;
  toColumns?(candidate: Input, before: Row<T> | null, db: DbOrTx): Values | Promise<Values>;
}

/** Makes a register's own view of a record from the standard one (a method, so kinds stay assignable to the kit's general types). */
export interface Presenter<T extends OwnedTable, View> {
  view(record: RecordView<T>): View;
}

/**
 * A register: its table and its rules. `View` is what reads answer (REST, screens, MCP): by default the stored row
 * as RecordView; a kind with `present` shapes its own (risks: levels with names, scores and bands).
 */
export interface RecordKind<T extends OwnedTable, Input extends Values, View = RecordView<T>> {
  module: Module;
  /** Stored in the Audit Log and History: 'control', 'asset', ... */
  recordType: string;
  /** For messages: 'Control'. */
  label: string;
  table: T;
  /** The name or title column: searched by `q`, shown in messages and pickers. */
  titleColumn: PgColumn;
  statusColumn?: PgColumn;
  /** Whitelisted sort keys (API names) and their columns, or SQL computed per row (a risk's score). */
  sortable: Record<string, AnyColumn | SQL>;
  /** Values a new record takes where the input leaves them out. */
  defaults?: Partial<Input>;
  /**
   * The module's own rules on the complete candidate record (the stored record merged with the change on update).
   * Return every problem, not only the first, so forms and imports can show them all.
   */
  check?(db: DbOrTx, candidate: Input, before: Row<T> | null, actor: Actor): Promise<FieldProblem[]>;
  /** Stored columns for a valid candidate (trimming, derived values); by default the candidate's own keys. */
  toColumns?(candidate: Input, before: Row<T> | null, db: DbOrTx): Values | Promise<Values>;
  /** check and toColumns over data loaded once per batch, for the batch writes (see BatchRules). */
  batchRules?(db: DbOrTx, actor: Actor): Promise<BatchRules<T, Input>>;
  /**
   * The register's own view of its records, made from the standard view (owner names, ISO dates, custom fields) by a
   * function prepared once per read from data it loads (risks: the scale and bands). Absent: the standard view.
   */
  present?(db: DbOrTx): Promise<Presenter<T, View>>;
  references?: Reference[];
  /** Extra list filters from the query string, by name. */
  filters?: Record<string, (value: string) => SQL | undefined>;
  /**
   * Problems with a list's filter values that name nothing (a risk level or band not on the scale): a list asked for
   * them is refused 400, on REST and on the screens alike, instead of answering an empty list that looks like a count.
   */
  filterProblems?(db: DbOrTx, query: ListParams): Promise<FieldProblem[]>;
  /**
   * The records take custom fields (defined in Settings › Custom fields for this module): writes accept
   * `customFields: { key: value }`, reads return it, History records `customFields.<key>`. Pair it with
   * `recordInputs(fields, { customFields: true })` and `recordView(fields, { customFields: true })`.
   */
  customFields?: boolean;
  /** Names History keeps beside linked records' ids (a third party's linked risk): shown only to readers of those records. */
  historyLinks?: readonly NamedLink[];
  /** Values derived in SQL and read with every row (evidence's status from its dates): by view field name. */
  computed?: Record<string, SQL>;
  /**
   * The records carry labels of Settings › Labels: the uuid[] column holding their ids (`labelIds` on writes). The kit
   * then refuses an id added that names no label (400 naming `labelIds`), reads `labels` (their names, by name) with
   * every record and filters lists by `label`; the labels module refuses to delete a label records carry (labels.ts).
   */
  labels?: PgColumn;
  /** Why the record (stored row, or its view on a screen) refuses every change and its deletion (409), e.g. locked evidence; null when it does not. */
  frozen?(before: Row<T> | RecordView<T> | View): string | null;
}

export interface ListParams {
  page?: number;
  pageSize?: number;
  sort?: string;
  q?: string;
  status?: string;
  ownerId?: string;
  ownerGroupId?: string;
  [filter: string]: string | number | undefined;
}

export interface OwnerRef {
  id: string;
  name: string;
  email: string;
}

/** A stored row with dates as ISO strings and the owner's and group's names resolved. */
export type RecordView<T extends OwnedTable> = {
  [K in keyof Row<T>]: Row<T>[K] extends Date ? string : Row<T>[K] extends Date | null ? string | null : Row<T>[K];
} & { owner: OwnerRef | null; ownerGroup: { id: string; name: string } | null; customFields?: CustomFieldMap };

const permission = (kind: { module: Module }, right: 'read' | 'create' | 'update' | 'delete') => `${kind.module}:${right}` as Permission;

/** A text for ILIKE '%…%' that matches itself literally (%, _ and \ escaped). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The kind's values derived in SQL with every row: its own `computed`, and `labels` when it carries labels. */
const computedOfKind = new WeakMap<object, Record<string, SQL>>();
export function computedOf(kind: Pick<RecordKind<OwnedTable, Values, unknown>, 'computed' | 'labels'>): Record<string, SQL> {
  let computed = computedOfKind.get(kind);
  if (!computed) computedOfKind.set(kind, (computed = { ...kind.computed, ...(kind.labels ? { labels: labelNamesSql(kind.labels) } : {}) }));
  return computed;
}

/** The kind's list filters: its own, and `label` when it carries labels. */
const filtersOf = (kind: Pick<RecordKind<OwnedTable, Values, unknown>, 'filters' | 'labels'>): Record<string, (value: string) => SQL | undefined> =>
  ({ ...kind.filters, ...(kind.labels ? { label: labelFilter(kind.labels) } : {}) });

/** The label ids a candidate adds that name no label, when the kind carries labels. */
async function labelProblemsOf(db: DbOrTx, kind: Pick<RecordKind<OwnedTable, Values, unknown>, 'labels'>, candidate: Values, before: Values | null): Promise<FieldProblem[]> {
  if (!kind.labels) return [];
  return labelProblems(db, candidate.labelIds as string[] | undefined, before?.labelIds as string[] | undefined);
}

function selectViews<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>) {
  const table = kind.table as OwnedTable;
  return db
    .select({ row: table as PgTable, ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name, ...computedOf(kind) })
    .from(table)
    .leftJoin(users, eq(users.id, table.ownerId))
    .leftJoin(groups, eq(groups.id, table.ownerGroupId));
}

/**
 * A page of a register as flat rows: the table's columns, the owner's and group's names, and the custom fields when
 * the kind takes them, read in the page's own query. Flat, because Drizzle maps a nested `{ row: table }` selection
 * with more work per value, and a page maps 200 rows. No register has columns named like the joined fields.
 */
const pageFieldsOfKind = new WeakMap<object, ReturnType<typeof buildPageFields>>();

/** The kind's page fields, built once per kind (the page query and its row mapping take the same map). */
function pageFields<T extends OwnedTable>(kind: RecordKind<T, Values, unknown>) {
  let fields = pageFieldsOfKind.get(kind);
  if (!fields) pageFieldsOfKind.set(kind, (fields = buildPageFields(kind)));
  return fields;
}

/** The page fields without the custom fields (a report's columns name none): built once per kind. */
const plainFieldsOfKind = new WeakMap<object, ReturnType<typeof buildPageFields>>();

function plainPageFields<T extends OwnedTable>(kind: RecordKind<T, Values, unknown>) {
  let fields = plainFieldsOfKind.get(kind);
  if (!fields) plainFieldsOfKind.set(kind, (fields = buildPageFields(kind, false)));
  return fields;
}

function buildPageFields<T extends OwnedTable>(kind: RecordKind<T, Values, unknown>, withCustomFields = true) {
  const table = kind.table as OwnedTable;
  const customFields: Record<string, SQL> = withCustomFields && kind.customFields && isCustomFieldModule(kind.module)
    ? { customFields: customFieldsColumn(kind.module, table.id) } : {};
  return withIsoTimestamps({
    ...getTableColumns(table), ownerName: users.name, ownerEmail: users.email, ownerGroupName: groups.name, ...computedOf(kind), ...customFields,
  });
}

function selectPageViews<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, fields: ReturnType<typeof buildPageFields> = pageFields(kind)) {
  const table = kind.table as OwnedTable;
  return db
    .select(fields)
    .from(table)
    .leftJoin(users, eq(users.id, table.ownerId))
    .leftJoin(groups, eq(groups.id, table.ownerGroupId));
}

interface JoinedRow {
  row: Values;
  ownerName: string | null;
  ownerEmail: string | null;
  ownerGroupName: string | null;
  /** The kind's computed values, by view field name. */
  [computed: string]: unknown;
}

function toView<T extends OwnedTable>(joined: JoinedRow, computed: readonly string[]): RecordView<T> {
  const view = viewOf<T>(joined.row, Object.keys(joined.row), joined);
  for (const key of computed) (view as Values)[key] = joined[key];
  return view;
}

/** The view of a stored row: its `columns` with dates as ISO strings, plus the owner and group with their names. */
function viewOf<T extends OwnedTable>(row: Values, columns: readonly string[], names: Omit<JoinedRow, 'row'>): RecordView<T> {
  const view: Values = {};
  for (const key of columns) {
    const value = row[key];
    view[key] = value instanceof Date ? value.toISOString() : value;
  }
  const ownerId = row.ownerId as string | null;
  const ownerGroupId = row.ownerGroupId as string | null;
  view.owner = ownerId && names.ownerName ? { id: ownerId, name: names.ownerName, email: names.ownerEmail ?? '' } : null;
  view.ownerGroup = ownerGroupId && names.ownerGroupName ? { id: ownerGroupId, name: names.ownerGroupName } : null;
  return view as RecordView<T>;
}

/** WHERE for a list: what the actor may see, plus the standard filters (status, owner, owner group, text) and the kind's own. */
export function listCondition<T extends OwnedTable>(kind: RecordKind<T, Values, unknown>, actor: Actor, query: ListParams): SQL | undefined {
  const table = kind.table as OwnedTable;
  const extra = Object.entries(filtersOf(kind)).map(([name, build]) => {
    const value = query[name];
    return value === undefined || value === '' ? undefined : build(String(value));
  });
  return and(
    ownershipCondition(actor, permission(kind, 'read'), table.ownerId, table.ownerGroupId),
    query.status && kind.statusColumn ? eq(kind.statusColumn, query.status) : undefined,
    query.ownerId ? eq(table.ownerId, query.ownerId) : undefined,
    query.ownerGroupId ? eq(table.ownerGroupId, query.ownerGroupId) : undefined,
    query.q ? ilike(kind.titleColumn, `%${escapeLike(query.q)}%`) : undefined,
    ...extra,
  );
}

function listOrder<T extends OwnedTable>(kind: RecordKind<T, Values, unknown>, sort: string | undefined): SQL[] {
  const table = kind.table as OwnedTable;
  const descending = sort?.startsWith('-') ?? false;
  const column = sort ? kind.sortable[descending ? sort.slice(1) : sort] : undefined;
  if (!column) return [desc(table.createdAt), desc(table.id)];
  return descending ? [desc(column), desc(table.id)] : [asc(column), asc(table.id)];
}

/** The page and total queries of a list; exported so benchmarks time exactly the SQL the API runs. */
export function listQueries<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, query: ListParams) {
  const { pageSize, offset } = paging(query);
  const where = listCondition(kind, actor, query);
  return {
    page: selectPageViews(db, kind).where(where).orderBy(...listOrder(kind, query.sort)).limit(pageSize).offset(offset),
    total: listTotalQuery(db, kind.table, where),
    /** Nothing narrows the list (level all, no filter): the page can run as the kind's prepared unfiltered page. */
    unfiltered: where === undefined,
  };
}

/**
 * The unfiltered page (level all, no filter: what an integration reads most) of a kind by sort order, built once per
 * handle with the page's limit and offset as placeholders: the same SQL as listQueries writes, without building it
 * per request.
 */
const unfilteredPages = new WeakMap<DbOrTx, WeakMap<object, Map<string, ReturnType<typeof flatStatement<Values>>>>>();

function unfilteredPage<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, sort: string | undefined) {
  let byKind = unfilteredPages.get(db);
  if (!byKind) unfilteredPages.set(db, (byKind = new WeakMap()));
  let bySort = byKind.get(kind);
  if (!bySort) byKind.set(kind, (bySort = new Map()));
  const key = sort ?? '';
  let statement = bySort.get(key);
  if (!statement) {
    const builder = selectPageViews(db, kind).orderBy(...listOrder(kind, sort)).limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
    bySort.set(key, (statement = flatStatement<Values>(db, pageFields(kind), builder)));
  }
  return statement;
}

/** The kind's presenter prepared for one read; the standard view when it has none. */
async function presenter<T extends OwnedTable, V>(db: DbOrTx, kind: RecordKind<T, Values, V>): Promise<Presenter<T, V>> {
  if (kind.present) return kind.present(db);
  // No presenter: View is the interface's default, RecordView<T> (a kind may only declare another View with present).
  return { view: (record) => record as unknown as V };
}

export async function listRecords<T extends OwnedTable, V>(db: DbOrTx, kind: RecordKind<T, Values, V>, actor: Actor, query: ListParams): Promise<Page<V>> {
  const { page, pageSize, offset } = paging(query);
  const problems = (await kind.filterProblems?.(db, query)) ?? [];
  if (problems.length) throw invalid(problems);
  const queries = listQueries(db, kind, actor, query);
  const sort = query.sort && kind.sortable[query.sort.replace(/^-/, '')] ? query.sort : undefined;
  // Named statements: PostgreSQL keeps the plan per connection instead of planning every request.
  const [rows, [{ total }], present] = await Promise.all([
    queries.unfiltered ? unfilteredPage(db, kind, sort).execute({ limit: pageSize, offset }) : selectFlat<Values>(db, pageFields(kind), queries.page),
    queries.total.prepare(`${kind.recordType}_list_total`).execute(),
    presenter(db, kind),
  ]);
  const columns = [...Object.keys(getTableColumns(kind.table as OwnedTable)), ...Object.keys(computedOf(kind))];
  const views = (rows as (Values & Omit<JoinedRow, 'row'> & { customFields?: CustomFieldMap | null })[]).map((r) => {
    const view = viewOf<T>(r, columns, r);
    if (kind.customFields) view.customFields = r.customFields ?? {};
    return present.view(view);
  });
  return { rows: views, total, page, pageSize };
}


/**
 * Every record of a list the actor may read (their own/all level, the list's filters and sort, as listRecords reads a
 * page), `pageSize` at a time: the list's one statement read through a cursor (streamFlat), with no count and no
 * OFFSET, so a report or an export of the whole register reads each row once and holds one page at a time.
 */
export async function* streamRecords<T extends OwnedTable, V>(
  db: DbOrTx, kind: RecordKind<T, Values, V>, actor: Actor, query: ListParams, options: { pageSize?: number; customFields?: boolean } = {},
): AsyncGenerator<V[]> {
  const { pageSize = 2000, customFields = true } = options;
  const problems = (await kind.filterProblems?.(db, query)) ?? [];
  if (problems.length) throw invalid(problems);
  const where = listCondition(kind, actor, query);
  const sort = query.sort && kind.sortable[query.sort.replace(/^-/, '')] ? query.sort : undefined;
  const present = await presenter(db, kind);
  const columns = [...Object.keys(getTableColumns(kind.table as OwnedTable)), ...Object.keys(computedOf(kind))];
  // Without the custom fields where the reader shows none: each is a lookup per row.
  const fields = customFields ? pageFields(kind) : plainPageFields(kind);
  const build = () => selectPageViews(db, kind, fields).where(where).orderBy(...listOrder(kind, sort));
  for await (const rows of streamFlat<Values & Omit<JoinedRow, 'row'> & { customFields?: CustomFieldMap | null }>(db, fields, build, pageSize)) {
    yield rows.map((r) => {
      const view = viewOf<T>(r, columns, r);
      if (kind.customFields && customFields) view.customFields = r.customFields ?? {};
      return present.view(view);
    });
  }
}

/**
 * What a reader of a whole list computes in SQL instead of from each row's view: one expression per value, over the
 * kind's table joined to its owner (`users`) and owner group (`groups`), and to whatever `joins` adds (lookup tables).
 */
export interface ListValuesSelect {
  values: readonly (SQL | PgColumn)[];
  joins?: (query: PgSelect) => PgSelect;
}

/**
 * Every record of a list the actor may read, as streamRecords reads them (the same WHERE: their own/all level and the
 * list's filters; the same ORDER), but each row only the values `select` computes, as the driver reads them: no view,
 * no presenter. For a report of a whole register, whose cells PostgreSQL can write (docs/reports.md).
 */
export async function* streamListValues<T extends OwnedTable>(
  db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, query: ListParams, select: ListValuesSelect, pageSize = 2000,
): AsyncGenerator<unknown[][]> {
  yield* streamValues(db, await listValuesQuery(db, kind, actor, query, select.values, select), pageSize);
}

/** COPY downloads at once at most (each a connection of its own), as cursor downloads; more wait their turn, in order. */
const copyTurns = new Semaphore(STREAM_CONNECTIONS, Number.MAX_SAFE_INTEGER);

/**
 * The rows streamListValues reads, as PostgreSQL itself writes them as CSV (copyCsvOut: each value as its text, so a
 * flag reads `true`, not COPY's `t`), for a download whose cells PostgreSQL computes; undefined where no COPY can be
 * made (PGlite, a transaction): the caller then reads them through streamListValues.
 */
export async function listValuesCsv<T extends OwnedTable>(
  db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, query: ListParams, select: ListValuesSelect,
): Promise<AsyncGenerator<Uint8Array> | undefined> {
  const asText = select.values.map((value) => sql`(${value})::text`);
  const copied = copyCsvOut(db, (await listValuesQuery(db, kind, actor, query, asText, select))().getSQL());
  return copied && inTurn(copyTurns, copied);
}

/** The select of a list's values (the list's WHERE at the actor's level, its filters and ORDER); refused filters throw. */
async function listValuesQuery<T extends OwnedTable>(
  db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, query: ListParams, values: readonly (SQL | PgColumn)[], { joins }: ListValuesSelect,
) {
  const problems = (await kind.filterProblems?.(db, query)) ?? [];
  if (problems.length) throw invalid(problems);
  const table = kind.table as OwnedTable;
  const where = listCondition(kind, actor, query);
  const sort = query.sort && kind.sortable[query.sort.replace(/^-/, '')] ? query.sort : undefined;
  // Keys in the values' order: a flat selection is written in the order of its keys.
  const fields = Object.fromEntries(values.map((value, i) => [`v${i}`, value]));
  return () => {
    const joined = db.select(fields).from(table).leftJoin(users, eq(users.id, table.ownerId)).leftJoin(groups, eq(groups.id, table.ownerGroupId)).$dynamic();
    return (joins ? joins(joined) : joined).where(where).orderBy(...listOrder(kind, sort));
  };
}

async function loadJoined<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, id: string): Promise<JoinedRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await selectViews(db, kind).where(eq((kind.table as OwnedTable).id, id));
  return row as JoinedRow | undefined;
}

/** The stored row after the permission check: 404 when missing or unreadable, 403 when readable but `right` is not held. */
export async function loadForAction<T extends OwnedTable>(
  db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, id: string, right: 'read' | 'update' | 'delete',
): Promise<Row<T>> {
  const joined = await loadJoined(db, kind, id);
  const what = `${kind.label} ${id}`;
  if (!joined) throw notFound(what);
  const row = joined.row as Row<T> & { ownerId: string | null; ownerGroupId: string | null };
  requireOnRecord(actor, permission(kind, right), row, what);
  const frozen = right === 'read' ? null : kind.frozen?.(row);
  if (frozen) throw conflict(frozen);
  return row;
}

export async function getRecord<T extends OwnedTable, V>(db: DbOrTx, kind: RecordKind<T, Values, V>, actor: Actor, id: string): Promise<V> {
  const [joined, present] = await Promise.all([loadJoined(db, kind, id), presenter(db, kind)]);
  if (!joined) throw notFound(`${kind.label} ${id}`);
  requireOnRecord(actor, permission(kind, 'read'), joined.row as { ownerId: string | null; ownerGroupId: string | null }, `${kind.label} ${id}`);
  const view = toView<T>(joined, Object.keys(computedOf(kind)));
  if (kind.customFields) view.customFields = (await loadCustomFields(db, kind.module, [id])).get(id) ?? {};
  return present.view(view);
}

/** A record's History as the actor may see it: 404 unless the record is readable; linked names as historyAsSeen. */
export async function recordHistory<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, id: string): Promise<HistoryView[]> {
  await loadForAction(db, kind, actor, id, 'read');
  return historyAsSeen(db, actor, await listHistory(db, kind.recordType, id), kind.historyLinks ?? []);
}

/** The fields History and the Audit Log keep: stored values without the bookkeeping columns. */
export function auditFields(row: Values): Values {
  const { id: _id, createdAt: _c, updatedAt: _u, createdBy: _b, ...fields } = row;
  return fields;
}

const ownerOf = (candidate: Values) => ({ ownerId: (candidate.ownerId as string | null) ?? null, ownerGroupId: (candidate.ownerGroupId as string | null) ?? null });

/**
 * Only an owner being set is checked, by a single write and by a batch (CSV) alike: a record whose owner has left can
 * still be edited (a status, a title) while the owner is kept; handing it to a deactivated account is refused.
 */
function ownerBeingSet(candidate: Values, before: Values | null) {
  const owner = ownerOf(candidate);
  const kept = before ? ownerOf(before) : null;
  return { ownerId: owner.ownerId === kept?.ownerId ? null : owner.ownerId, ownerGroupId: owner.ownerGroupId === kept?.ownerGroupId ? null : owner.ownerGroupId };
}

async function validated<T extends OwnedTable, Input extends Values>(
  db: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, candidate: Input, before: Row<T> | null, extraProblems: FieldProblem[] = [],
): Promise<Values> {
  const problems = [
    ...(await ownerProblems(db, ownerBeingSet(candidate, before))), ...((await kind.check?.(db, candidate, before, actor)) ?? []),
    ...(await labelProblemsOf(db, kind as RecordKind<T, Values, unknown>, candidate, before as Values | null)), ...extraProblems,
  ];
  if (problems.length) throw invalid(problems);
  return kind.toColumns ? kind.toColumns(candidate, before, db) : { ...candidate };
}

/** Only keys that are columns of the table are written; an input may carry extra fields for `check`. */
function columnsOnly(table: OwnedTable, values: Values): Values {
  return Object.fromEntries(Object.entries(values).filter(([key]) => key in table && key !== 'id'));
}

/** Splits `customFields` off the input and checks it (all problems are reported with the record's own). */
async function customFieldsOf(
  db: DbOrTx, kind: { module: string; customFields?: boolean }, recordId: string | null, input: Values,
): Promise<{ own: Values; write: CustomFieldWrite | null; problems: FieldProblem[] }> {
  const { customFields, ...own } = input;
  if (!kind.customFields) {
    return { own, write: null, problems: customFields === undefined ? [] : [{ field: 'customFields', message: 'this record type has no custom fields' }] };
  }
  const write = await prepareCustomFields(db, kind.module, recordId, customFields);
  return { own, write, problems: write.problems };
}

export async function createRecord<T extends OwnedTable, Input extends Values>(
  tx: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, input: Input,
): Promise<{ id: string }> {
  const level = requirePermission(actor, permission(kind, 'create'));
  const custom = await customFieldsOf(tx, kind, null, input);
  const unowned = input.ownerId === undefined && input.ownerGroupId === undefined;
  const candidate = { ...kind.defaults, ...custom.own, ...(unowned && actor.userId ? { ownerId: actor.userId } : {}) } as Input;
  // The own level is judged on the ids before they are looked up: an owner the actor may not give the record to is
  // refused the same whether that id is an account or not.
  requireOwnLevelKeepsOwnership(actor, permission(kind, 'create'), level, ownerOf(candidate));
  const values = columnsOnly(kind.table, await validated(tx, kind, actor, candidate, null, custom.problems));
  const table = kind.table as OwnedTable;
  const stamped = 'createdBy' in kind.table ? { ...values, createdBy: actor.userId } : values;
  const [row] = (await tx.insert(table as PgTable).values(stamped).returning()) as Values[];
  if (custom.write) await saveCustomFieldWrite(tx, custom.write, String(row.id));
  const after = { ...auditFields(row), ...auditedCustomFields(custom.write?.next ?? {}) };
  await recordChange(tx, actor, { module: kind.module, recordType: kind.recordType, recordId: String(row.id), action: 'create', before: null, after });
  return { id: String(row.id) };
}

/** Applies a partial change: fields left out keep their stored value; `null` clears an optional field. */
export async function updateRecord<T extends OwnedTable, Input extends Values>(
  tx: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, id: string, patch: Partial<Input>,
): Promise<{ changed: boolean }> {
  const before = await loadForAction(tx, kind as RecordKind<T, Values, unknown>, actor, id, 'update');
  const level = requirePermission(actor, permission(kind, 'update'));
  const custom = await customFieldsOf(tx, kind, id, patch as Values);
  const defined = Object.fromEntries(Object.entries(custom.own).filter(([, v]) => v !== undefined));
  const candidate = { ...(before as Values), ...defined } as Input;
  requireOwnLevelKeepsOwnership(actor, permission(kind, 'update'), level, ownerOf(candidate));
  const values = columnsOnly(kind.table, await validated(tx, kind, actor, candidate, before, custom.problems));
  const table = kind.table as OwnedTable;
  const [after] = (await tx.update(table as PgTable).set({ ...values, updatedAt: new Date() }).where(eq(table.id, id)).returning()) as Values[];
  if (custom.write) await saveCustomFieldWrite(tx, custom.write, id);
  const beforeFields = { ...auditFields(before as Values), ...auditedCustomFields(custom.write?.before ?? {}) };
  const afterFields = { ...auditFields(after), ...auditedCustomFields(custom.write?.next ?? {}) };
  await recordChange(tx, actor, { module: kind.module, recordType: kind.recordType, recordId: id, action: 'update', before: beforeFields, after: afterFields });
  return { changed: JSON.stringify(beforeFields) !== JSON.stringify(afterFields) };
}

/** What still points at a record, by kind of referrer with its count ("2 audit findings"); empty when nothing does. */
export async function referencesTo<T extends OwnedTable>(db: DbOrTx, kind: RecordKind<T, Values, unknown>, id: string): Promise<{ label: string; count: number; reference: Reference }[]> {
  const counted = await Promise.all((kind.references ?? []).map(async (reference) => {
    const n = await reference.count(db, id);
    return { label: n === 1 ? reference.one : reference.label, count: n, reference };
  }));
  return counted.filter((r) => r.count > 0);
}

/** Refuses (409) while other records point at this one, naming what still does; never orphans data. */
export async function deleteRecord<T extends OwnedTable>(tx: DbOrTx, kind: RecordKind<T, Values, unknown>, actor: Actor, id: string): Promise<void> {
  const before = await loadForAction(tx, kind, actor, id, 'delete');
  const still = (await referencesTo(tx, kind, id)).map((r) => `${r.count} ${r.label}`);
  if (still.length) throw conflict(`${kind.label} ${id} is still referenced by ${still.join(', ')}; remove those references first`);
  const table = kind.table as OwnedTable;
  const customFields = kind.customFields ? ((await loadCustomFields(tx, kind.module, [id])).get(id) ?? {}) : {};
  if (kind.customFields) await deleteCustomFields(tx, kind.module, id);
  await tx.delete(table).where(eq(table.id, id));
  await recordChange(tx, actor, {
    module: kind.module, recordType: kind.recordType, recordId: id, action: 'delete',
    before: { ...auditFields(before as Values), ...auditedCustomFields(customFields) }, after: null,
  });
}

/**
 * Counts rows of `table` whose `column` equals the id: the usual Reference. With `records`, those rows are (or name)
 * records of a declared type: `id` is the column (or expression over `table`) holding the referring record's id.
 */
export const referencedBy = (nouns: { one: string; many: string }, table: PgTable, column: PgColumn, records?: { kind: string; id: PgColumn | SQL }): Reference => ({
  label: nouns.many,
  one: nouns.one,
  async count(db, id) {
    const [{ n }] = await db.select({ n: count() }).from(table).where(eq(column, id));
    return n;
  },
  ...(records ? {
    referrers: {
      kind: records.kind,
      async ids(db: DbOrTx, id: string, limit: number) {
        const rows = await db.selectDistinct({ id: sql<string>`(${records.id})::text` }).from(table).where(eq(column, id)).limit(limit);
        return rows.map((r) => r.id);
      },
    },
  } : {}),
});

/** For `check`: a referenced record of another kind must exist (and, for links, be readable — see requireReadable). */
export async function exists(db: DbOrTx, table: PgTable, idColumn: PgColumn, id: string | null | undefined): Promise<boolean> {
  if (!id) return true;
  if (!isUuid(id)) return false;
  const [row] = await db.select({ n: count() }).from(table).where(eq(idColumn, id));
  return row.n > 0;
}

/* ---------- Batch writes (CSV import): the same rules as createRecord/updateRecord, set-based ---------- */

/** Users and groups loaded once per batch, so owner rules cost no query per record. */
export interface OwnerLookup {
  /** Every user's status by id. */
  userStatus: ReadonlyMap<string, string>;
  groupIds: ReadonlySet<string>;
}

export async function loadOwnerLookup(db: DbOrTx): Promise<OwnerLookup> {
  const [userRows, groupRows] = await Promise.all([
    db.select({ id: users.id, status: users.status }).from(users),
    db.select({ id: groups.id }).from(groups),
  ]);
  return { userStatus: new Map(userRows.map((u) => [u.id, u.status])), groupIds: new Set(groupRows.map((g) => g.id)) };
}

/** The same problems as ownerProblems (ownership.ts), answered from a preloaded lookup. */
export function ownerProblemsFrom(lookup: OwnerLookup, owner: { ownerId: string | null; ownerGroupId: string | null }): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (owner.ownerId) {
    if (lookup.userStatus.get(owner.ownerId) !== 'active') problems.push({ field: 'ownerId', message: NOT_AN_ACTIVE_USER });
  }
  if (owner.ownerGroupId && !lookup.groupIds.has(owner.ownerGroupId)) problems.push({ field: 'ownerGroupId', message: 'no such group' });
  return problems;
}

/** One record's result in a batch: written (or, for an update, found unchanged) with its audited fields, or refused with every problem. */
export type BatchOutcome =
  | { ok: true; id: string; changed: boolean; before: Values | null; after: Values }
  | { ok: false; problems: FieldProblem[] };

const refusedBy = (error: unknown): FieldProblem[] => {
  if (error instanceof AppError) {
    if (error.problems.length) return error.problems;
    return [{ field: '(record)', message: error.code === 'FORBIDDEN' ? `not allowed: ${error.deniedReason ?? error.message}` : error.message }];
  }
  throw error;
};

/** The kind's rules on one candidate of a batch; a refusal it throws (a link to a record not found) is that row's problem. */
async function checkedByKind<T extends OwnedTable, Input extends Values>(
  db: DbOrTx, rules: BatchRules<T, Input>, actor: Actor, candidate: Input, before: Row<T> | null,
): Promise<FieldProblem[]> {
  try {
    return (await rules.check?.(db, candidate, before, actor)) ?? [];
  } catch (error) {
    return refusedBy(error);
  }
}

/** Candidate checks shared by batch create and update: owner rules from the lookup, the kind's rules, custom fields, own level. */
async function batchProblems<T extends OwnedTable, Input extends Values>(
  db: DbOrTx, kind: RecordKind<T, Input, unknown>, rules: BatchRules<T, Input>, actor: Actor, lookup: OwnerLookup, candidate: Input,
  before: Row<T> | null, level: 'own' | 'all', right: 'create' | 'update', customProblems: FieldProblem[],
): Promise<{ problems: FieldProblem[]; values: Values }> {
  const owner = ownerOf(candidate);
  try {
    requireOwnLevelKeepsOwnership(actor, permission(kind, right), level, owner);
  } catch (error) {
    return { problems: refusedBy(error), values: {} };
  }
  const problems = [
    ...ownerProblemsFrom(lookup, ownerBeingSet(candidate, before)), ...(await checkedByKind(db, rules, actor, candidate, before)),
    ...(await labelProblemsOf(db, kind as RecordKind<T, Values, unknown>, candidate, before as Values | null)), ...customProblems,
  ];
  if (problems.length) return { problems, values: {} };
  const values = columnsOnly(kind.table, rules.toColumns ? await rules.toColumns(candidate, before, db) : { ...candidate });
  return { problems: [], values };
}

/** Upserts and clears custom field values of many records: one DELETE and one INSERT for the batch. */
async function saveCustomFieldBatch(
  tx: DbOrTx, module: string, batch: { recordId: string; write: CustomFieldWrite }[], writes?: PipelinedWrites,
): Promise<void> {
  const cleared: { recordId: string; definitionId: string }[] = [];
  const upserts: { definitionId: string; module: string; recordId: string; value: unknown }[] = [];
  for (const { recordId, write } of batch) {
    const byKey = new Map(write.definitions.map((d) => [d.key, d]));
    for (const key of Object.keys(write.before)) {
      if (write.next[key] === undefined && byKey.has(key)) cleared.push({ recordId, definitionId: byKey.get(key)!.id });
    }
    for (const [key, value] of Object.entries(write.next)) {
      if (byKey.has(key) && JSON.stringify(write.before[key]) !== JSON.stringify(value)) {
        upserts.push({ definitionId: byKey.get(key)!.id, module, recordId, value });
      }
    }
  }
  if (cleared.length) {
    await sendOrWait(writes, tx.delete(customFieldValues)
      .where(or(...cleared.map((c) => and(eq(customFieldValues.recordId, c.recordId), eq(customFieldValues.definitionId, c.definitionId))))));
  }
  if (upserts.length) {
    await sendOrWait(writes, tx.insert(customFieldValues).values(upserts).onConflictDoUpdate({
      target: [customFieldValues.definitionId, customFieldValues.recordId],
      set: { value: sql`excluded.value` },
    }));
  }
}

/** What a batch write is given besides its records. */
export interface BatchOptions {
  /** Users and groups for the owner rules. */
  owners: OwnerLookup;
  /** The module's custom field definitions, when the caller has them already (one query less per batch). */
  definitions?: Definition[];
  /** Send the writes without waiting (a bulk path that drains them before its transaction ends). */
  writes?: PipelinedWrites;
  /** The kind's batchRules when the caller loaded them already (a CSV import loads them once per run, not per chunk). */
  rules?: Promise<BatchRules<OwnedTable, Values>>;
}

/** The rules a batch applies: those given, the kind's batchRules loaded now, or its own check and toColumns. */
async function batchRulesOf<T extends OwnedTable, Input extends Values>(
  db: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, options: BatchOptions,
): Promise<BatchRules<T, Input>> {
  if (options.rules) return options.rules;
  return kind.batchRules ? kind.batchRules(db, actor) : kind;
}

/**
 * Creates many records with the rules of createRecord (permission, defaults, owner defaulting to the actor, owner
 * rules, the kind's check, custom fields, own level), answering per input instead of throwing: one multi-row INSERT,
 * one custom field write and one recordChanges call for the batch. Ids are made here (random UUIDs, as the column
 * default would) so the INSERT needs no RETURNING and can be sent without waiting. Throws only when the actor may not
 * create at all.
 */
export async function createRecords<T extends OwnedTable, Input extends Values>(
  tx: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, inputs: Input[], options: BatchOptions,
): Promise<BatchOutcome[]> {
  const level = requirePermission(actor, permission(kind, 'create'));
  const rules = await batchRulesOf(tx, kind, actor, options);
  const definitions = kind.customFields ? (options.definitions ?? (await definitionsFor(tx, kind.module))) : [];
  const outcomes: BatchOutcome[] = new Array(inputs.length);
  const accepted: { index: number; values: Values; write: CustomFieldWrite | null }[] = [];
  for (const [index, input] of inputs.entries()) {
    const { customFields, ...own } = input as Values;
    let write: CustomFieldWrite | null = null;
    const customProblems: FieldProblem[] = [];
    if (kind.customFields) {
      const applied = applyCustomFields(definitions, customFields, {}, 'create');
      write = { module: kind.module, definitions, before: {}, next: applied.next, problems: applied.problems };
      customProblems.push(...applied.problems);
    } else if (customFields !== undefined) {
      customProblems.push({ field: 'customFields', message: 'this record type has no custom fields' });
    }
    const unowned = own.ownerId === undefined && own.ownerGroupId === undefined;
    const candidate = { ...kind.defaults, ...own, ...(unowned && actor.userId ? { ownerId: actor.userId } : {}) } as Input;
    const checked = await batchProblems(tx, kind, rules, actor, options.owners, candidate, null, level, 'create', customProblems);
    if (checked.problems.length) outcomes[index] = { ok: false, problems: checked.problems };
    else {
      const values = { id: crypto.randomUUID(), ...('createdBy' in kind.table ? { createdBy: actor.userId } : {}), ...checked.values };
      accepted.push({ index, values, write });
    }
  }
  if (accepted.length === 0) return outcomes;
  const table = kind.table as OwnedTable as PgTable;
  const known = accepted.map((a) => rowAsStored(table, a.values));
  // A column with an SQL default the batch leaves out: only the database knows what it stores, so ask it.
  const stored = known.every((row) => row !== null)
    ? (await insertRows(tx, table, accepted.map((a) => a.values), { writes: options.writes }), known as Values[])
    : await insertRows(tx, table, accepted.map((a) => a.values), { returning: true });
  const changes: Parameters<typeof recordChanges>[2] = [];
  const customWrites: { recordId: string; write: CustomFieldWrite }[] = [];
  for (const [i, a] of accepted.entries()) {
    const id = String(a.values.id);
    if (a.write) customWrites.push({ recordId: id, write: a.write });
    const after = { ...auditFields(stored[i]), ...auditedCustomFields(a.write?.next ?? {}) };
    changes.push({ module: kind.module, recordType: kind.recordType, recordId: id, action: 'create', before: null, after });
    outcomes[a.index] = { ok: true, id, changed: true, before: null, after };
  }
  if (customWrites.length) await saveCustomFieldBatch(tx, kind.module, customWrites, options.writes);
  await recordChanges(tx, actor, changes, options.writes);
  return outcomes;
}

/**
 * Changes many records with the rules of updateRecord (404 for an unknown or unreadable id, own level per record,
 * owner rules, the kind's check, custom fields), answering per item. Records whose stored fields would not change are
 * reported unchanged and not written; the rest go in one UPDATE ... FROM (VALUES ...) with one recordChanges call.
 */
export async function updateRecords<T extends OwnedTable, Input extends Values>(
  tx: DbOrTx, kind: RecordKind<T, Input, unknown>, actor: Actor, items: { id: string; patch: Partial<Input> }[], options: BatchOptions,
): Promise<BatchOutcome[]> {
  const level = requirePermission(actor, permission(kind, 'update'));
  refuseRepeatedIds(items.map((item) => item.id), kind.label);
  const rules = await batchRulesOf(tx, kind, actor, options);
  const table = kind.table as OwnedTable;
  const ids = [...new Set(items.map((item) => item.id).filter(isUuid))];
  const stored = ids.length ? ((await tx.select().from(table as PgTable).where(inArray(table.id, ids))) as Values[]) : [];
  const byId = new Map(stored.map((row) => [String(row.id), row as Row<T>]));
  const definitions = kind.customFields ? (options.definitions ?? (await definitionsFor(tx, kind.module))) : [];
  const storedCustom = kind.customFields ? await loadCustomFields(tx, kind.module, ids) : new Map<string, CustomFieldMap>();
  const outcomes: BatchOutcome[] = new Array(items.length);
  const writes: { index: number; id: string; values: Values; before: Values; after: Values; write: CustomFieldWrite | null }[] = [];
  for (const [index, { id, patch }] of items.entries()) {
    const before = byId.get(id);
    try {
      if (!before) throw notFound(`${kind.label} ${id}`);
      requireOnRecord(actor, permission(kind, 'update'), before as Row<T> & Owned, `${kind.label} ${id}`);
      const frozen = kind.frozen?.(before);
      if (frozen) throw conflict(frozen);
    } catch (error) {
      outcomes[index] = { ok: false, problems: refusedBy(error) };
      continue;
    }
    const { customFields, ...own } = patch as Values;
    let write: CustomFieldWrite | null = null;
    const customProblems: FieldProblem[] = [];
    if (kind.customFields) {
      const current = storedCustom.get(id) ?? {};
      const applied = applyCustomFields(definitions, customFields, current, 'update');
      write = { module: kind.module, definitions, before: current, next: applied.next, problems: applied.problems };
      customProblems.push(...applied.problems);
    } else if (customFields !== undefined) {
      customProblems.push({ field: 'customFields', message: 'this record type has no custom fields' });
    }
    const defined = Object.fromEntries(Object.entries(own).filter(([, v]) => v !== undefined));
    const candidate = { ...(before as Values), ...defined } as Input;
    const checked = await batchProblems(tx, kind, rules, actor, options.owners, candidate, before, level, 'update', customProblems);
    if (checked.problems.length) {
      outcomes[index] = { ok: false, problems: checked.problems };
      continue;
    }
    const beforeFields = { ...auditFields(before as Values), ...auditedCustomFields(write?.before ?? {}) };
    const afterFields = { ...beforeFields, ...auditFields(checked.values), ...auditedCustomFields(write?.next ?? {}) };
    for (const key of Object.keys(beforeFields)) if (key.startsWith('customFields.') && !(key.slice(13) in (write?.next ?? {}))) delete afterFields[key];
    const changed = Object.keys(diffFields(beforeFields, afterFields)).length > 0;
    outcomes[index] = { ok: true, id, changed, before: beforeFields, after: afterFields };
    if (changed) writes.push({ index, id, values: checked.values, before: beforeFields, after: afterFields, write });
  }
  if (writes.length === 0) return outcomes;
  await updateRowsFromValues(tx, table, writes.map((w) => ({ id: w.id, values: w.values })), options.writes);
  const customWrites = writes.filter((w) => w.write).map((w) => ({ recordId: w.id, write: w.write! }));
  if (customWrites.length) await saveCustomFieldBatch(tx, kind.module, customWrites, options.writes);
  await recordChanges(tx, actor, writes.map((w) => ({
    module: kind.module, recordType: kind.recordType, recordId: w.id, action: 'update', before: w.before, after: w.after,
  })), options.writes);
  return outcomes;
}

/** Writes the changed records' complete candidates (stored record merged with the change) in one statement per 5,000. */
async function updateRowsFromValues(tx: DbOrTx, table: OwnedTable, rows: { id: string; values: Values }[], writes?: PipelinedWrites): Promise<void> {
  const skip = new Set(['id', 'createdAt', 'updatedAt', 'createdBy']);
  const values = rows.map((r) => ({ id: r.id, values: Object.fromEntries(Object.entries(r.values).filter(([key]) => !skip.has(key))) }));
  await updateRowsById(tx, table as PgTable, values, { writes });
}
