import { arrayContains, asc, count, eq, getTableName, ilike, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { t, type Static } from 'elysia';
import { Type, type TObject } from '@sinclair/typebox';
import type { DbOrTx } from '../../../db/client';
import { conflict, invalid, notFound, type FieldProblem } from '../core/errors';
import { listHistory, recordChange, type HistoryView } from '../audit/history';
import { listQuery, orderBy, paging, type Page } from '../http/paging';
import { levelOf, requirePermission, type Actor, type Permission } from '../permissions/permissions';
import { isUuid } from '../core/uuid';
import { squash } from '../core/text';

/**
 * The name + description list kit: a short supporting list managed in Settings (risk classifications, incident
 * classifications) that records of one register point at. A module declares the list once (`defineNameList`) and
 * gets its service functions here, its REST routes (name-list-api.ts) and its Settings section (name-list-screen.tsx):
 * - read by whoever reads the register it serves, and by whoever may open Settings (the Settings screen);
 * - added with settings:create, renamed, described and deleted with settings:update (Settings has no delete right);
 * - one rule for names (1 to NAME_MAX_LENGTH characters once trimmed) and descriptions (up to DESCRIPTION_MAX_LENGTH);
 * - a name already taken, ignoring case, spaces and underscores (as CSV imports match names), is a 409 naming it;
 * - an entry records still use is not deleted: 409 naming how many records use it;
 * - records point at an entry by its id, or, on a keyed list, by a key made from its name when it is added and never
 *   changed after (renaming an entry changes no record), in a column or a list column (text[]);
 * - every write and its Audit Log + History entry in the caller's one transaction.
 */

export const NAME_MAX_LENGTH = 200;
export const DESCRIPTION_MAX_LENGTH = 2000;

/** The body that adds an entry; the same for every list (REST, screens, bundles). */
export const NameListInput = t.Object({
  name: t.String({ minLength: 1, maxLength: NAME_MAX_LENGTH }),
  description: t.Optional(t.String({ maxLength: DESCRIPTION_MAX_LENGTH })),
}, { additionalProperties: false });
export type NameListInput = Static<typeof NameListInput>;
export const NameListPatch = t.Partial(NameListInput, { additionalProperties: false, minProperties: 1 });
export type NameListPatch = Static<typeof NameListPatch>;
export const NameListQuery = listQuery(['name', 'createdAt'] as const, {});
export type NameListQuery = Static<typeof NameListQuery>;

/** Columns every name list's table has; a keyed list's table has `key` too. */
export interface NameListColumns {
  id: PgColumn;
  name: PgColumn;
  description: PgColumn;
  createdAt: PgColumn;
  key?: PgColumn;
}

/** A column of records naming entries: one entry per row, or a list of them (a text[] column). */
export interface NameListUse {
  table: PgTable;
  column: PgColumn;
}
export type NameListTable = PgTable & NameListColumns;

export interface NameListSpec<C extends string> {
  /** Stored in the Audit Log and History: 'risk_classification'. */
  recordType: string;
  /** For messages and summaries, capitalised: 'Risk classification'. */
  label: string;
  /** 'Risk classifications'. */
  plural: string;
  table: NameListTable;
  /** Who reads the list besides Settings: those who read the register it serves ('risks:read'). */
  readers: Permission;
  /**
   * Records store the entry's `key` column (unique text made from the name when the entry is added, never changed
   * after) rather than its id: for lists whose values records held before the list existed (data privacy's categories).
   */
  keyed?: boolean;
  /** The register whose records point at an entry: counted on each entry and refusing its deletion. */
  usedBy: NameListUse & {
    /** Other columns naming entries, counted with `column` (the personal-data categories of assets' data maps). */
    alsoIn?: NameListUse[];
    /** 'risk' and 'risks', for "used by 1 risk" and "used by 2 risks". */
    one: string;
    many: string;
    /** The view's count field ('riskCount') and its OpenAPI description. */
    countField: C;
    countDescription: string;
  };
}

/** An entry as reads answer it: with how many records use it, under the list's own count field. */
export type NameListView<C extends string> = { id: string; name: string; description: string; key?: string } & Record<C, number>;

const keyed = <K extends string, V>(key: K, value: V) => ({ [key]: value }) as Record<K, V>;
const escapeLike = (q: string) => q.replace(/[\\%_]/g, (c) => `\\${c}`);
const article = (noun: string) => (/^[aeiou]/i.test(noun) ? 'an' : 'a');

/** A keyed entry's key from its name: "Loyalty members" gives loyalty_members (accents dropped, other signs as _). */
export const keyFromName = (name: string) =>
  name.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 60) || 'entry';

const isList = (column: PgColumn) => column.dataType === 'array';

/** "1 risk", "2 risks". */
export const usedByText = (n: number, usedBy: { one: string; many: string }) => `${n} ${n === 1 ? usedBy.one : usedBy.many}`;

export type NameList<C extends string> = ReturnType<typeof defineNameList<C>>;

export function defineNameList<const C extends string>(spec: NameListSpec<C>) {
  const { table, usedBy } = spec;
  const keyColumn = spec.keyed ? table.key : undefined;
  if (spec.keyed && !keyColumn) throw new Error(`The keyed name list ${spec.recordType} needs a key column`);
  const uses: NameListUse[] = [{ table: usedBy.table, column: usedBy.column }, ...(usedBy.alsoIn ?? [])];
  const lower = spec.label.toLowerCase();
  /** 'A risk classification', 'An incident classification'. */
  const aLabel = `${article(lower)} ${lower}`;
  const Capital = aLabel[0].toUpperCase() + aLabel.slice(1);

  // Typed as any object: the count field's name is the list's own.
  const View: TObject = t.Object({
    id: t.String(),
    ...(keyColumn ? { key: t.String({ description: 'What records store: made from the name when the entry was added, kept when it is renamed' }) } : {}),
    name: t.String(),
    description: t.String(),
    ...keyed(usedBy.countField, Type.Integer({ description: usedBy.countDescription })),
  });

  // Written out with identifiers: in a subquery Drizzle would print the outer column unqualified.
  const referenced = sql`${sql.identifier(getTableName(table))}.${sql.identifier(keyColumn ? keyColumn.name : 'id')}`;
  const usedIn = (use: NameListUse) => {
    const column = sql`u.${sql.identifier(use.column.name)}`;
    return sql`(select count(*)::int from ${sql.identifier(getTableName(use.table))} u where ${isList(use.column) ? sql`${column} @> array[${referenced}]` : sql`${column} = ${referenced}`})`;
  };
  const used = sql<number>`(${sql.join(uses.map(usedIn), sql` + `)})`;
  const select = (db: DbOrTx) => db.select({ id: table.id, key: keyColumn ?? table.id, name: table.name, description: table.description, used }).from(table);
  type Selected = { id: unknown; key: unknown; name: unknown; description: unknown; used: unknown };
  const toView = (row: Selected): NameListView<C> => ({
    id: String(row.id), ...(keyColumn ? { key: String(row.key) } : {}), name: String(row.name), description: String(row.description),
    ...keyed(usedBy.countField, Number(row.used)),
  });
  /** How many records name the entry stored as `value` (its id, or its key on a keyed list). */
  async function usesOf(tx: DbOrTx, value: string): Promise<number> {
    let total = 0;
    for (const use of uses) {
      const matches: SQL = isList(use.column) ? arrayContains(use.column, [value]) : eq(use.column, value);
      const [{ n }] = await tx.select({ n: count() }).from(use.table).where(matches);
      total += n;
    }
    return total;
  }
  /** A key no entry has yet, made from the name (a suffix when a renamed entry kept the key this name would give). */
  async function freshKey(tx: DbOrTx, name: string): Promise<string> {
    const taken = new Set((await tx.select({ key: keyColumn! }).from(table)).map((row) => String(row.key)));
    const base = keyFromName(name);
    let key = base;
    for (let n = 2; taken.has(key); n++) key = `${base}_${n}`;
    return key;
  }
  const historyFields = (row: { name: unknown; description: unknown }) => ({ name: row.name, description: row.description });

  /** Read by whoever reads the register, and by whoever may open Settings (a token still needs its route's scope). */
  function requireRead(actor: Actor): void {
    if (levelOf(actor, 'settings:read') === null) requirePermission(actor, spec.readers);
  }

  async function locked(tx: DbOrTx, id: string) {
    const [row] = isUuid(id) ? await tx.select().from(table).where(eq(table.id, id)).for('update') : [];
    if (!row) throw notFound(`${spec.label} ${id}`);
    return row as { id: string; name: string; description: string; key?: string };
  }

  /** Every field problem at once; then a name taken (ignoring case, spaces and underscores) is a conflict. */
  async function checked(tx: DbOrTx, candidate: { name: string; description: string }, exceptId?: string) {
    const name = candidate.name.trim();
    const description = candidate.description.trim();
    const problems: FieldProblem[] = [];
    if (!name) problems.push({ field: 'name', message: 'must not be blank' });
    if (name.length > NAME_MAX_LENGTH) problems.push({ field: 'name', message: `must be at most ${NAME_MAX_LENGTH} characters` });
    if (description.length > DESCRIPTION_MAX_LENGTH) problems.push({ field: 'description', message: `must be at most ${DESCRIPTION_MAX_LENGTH} characters` });
    if (problems.length) throw invalid(problems);
    // One writer per list at a time, so two names differing only in case cannot both pass the check.
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`name-list:${getTableName(table)}`}))`);
    const existing = await tx.select({ id: table.id, name: table.name }).from(table);
    const clash = existing.find((row) => row.id !== exceptId && squash(String(row.name)) === squash(name));
    if (clash) throw conflict(`${Capital} named "${String(clash.name)}" already exists`);
    return { name, description };
  }

  const audit = (tx: DbOrTx, actor: Actor, recordId: string, action: 'create' | 'update' | 'delete', before: Record<string, unknown> | null, after: Record<string, unknown> | null) =>
    recordChange(tx, actor, { module: 'settings', recordType: spec.recordType, recordId, action, before, after });

  async function get(db: DbOrTx, actor: Actor, id: string): Promise<NameListView<C>> {
    requireRead(actor);
    const [row] = isUuid(id) ? await select(db).where(eq(table.id, id)) : [];
    if (!row) throw notFound(`${spec.label} ${id}`);
    return toView(row);
  }

  return {
    spec,
    View,
    /** 'an incident classification', for sentences. */
    aLabel,

    async list(db: DbOrTx, actor: Actor, query: NameListQuery): Promise<Page<NameListView<C>>> {
      requireRead(actor);
      const { page, pageSize, offset } = paging(query);
      const where = query.q ? ilike(table.name, `%${escapeLike(query.q)}%`) : undefined;
      const order = orderBy(query.sort, { name: table.name, createdAt: table.createdAt }, [asc(table.name), asc(table.id)], table.id);
      const [rows, [{ total }]] = await Promise.all([
        select(db).where(where).orderBy(...order).limit(pageSize).offset(offset),
        db.select({ total: count() }).from(table).where(where),
      ]);
      return { rows: rows.map(toView), total, page, pageSize };
    },

    /** Every entry by name, for pickers and filters (a short list, never paged); `key` is what records store (the id on a list that is not keyed). */
    async options(db: DbOrTx, actor: Actor): Promise<{ id: string; name: string; key: string }[]> {
      requireRead(actor);
      const rows = await db.select({ id: table.id, key: keyColumn ?? table.id, name: table.name }).from(table).orderBy(asc(table.name));
      return rows.map((row) => ({ id: String(row.id), name: String(row.name), key: String(row.key) }));
    },

    get,

    async history(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
      await get(db, actor, id);
      return listHistory(db, spec.recordType, id);
    },

    async create(tx: DbOrTx, actor: Actor, input: NameListInput): Promise<{ id: string }> {
      requirePermission(actor, 'settings:create');
      const checkedValues = await checked(tx, { name: input.name, description: input.description ?? '' });
      const values = keyColumn ? { ...checkedValues, key: await freshKey(tx, checkedValues.name) } : checkedValues;
      const [row] = await tx.insert(table as PgTable).values(values).onConflictDoNothing().returning({ id: table.id });
      if (!row) throw conflict(`${Capital} named "${values.name}" already exists`);
      const id = String(row.id);
      await audit(tx, actor, id, 'create', null, values);
      return { id };
    },

    /** Answers the entry as it now reads (the caller may hold settings:update without the register's read right). */
    async update(tx: DbOrTx, actor: Actor, id: string, patch: NameListPatch): Promise<NameListView<C>> {
      requirePermission(actor, 'settings:update');
      const before = await locked(tx, id);
      const values = await checked(tx, { name: patch.name ?? before.name, description: patch.description ?? before.description }, id);
      await tx.update(table as PgTable).set(values).where(eq(table.id, id));
      await audit(tx, actor, id, 'update', historyFields(before), values);
      const [view] = await select(tx).where(eq(table.id, id));
      return toView(view);
    },

    /** One still used by records is refused (409) naming how many of them use it. */
    async remove(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
      requirePermission(actor, 'settings:update');
      const before = await locked(tx, id);
      const n = await usesOf(tx, keyColumn ? String(before.key) : id);
      if (n > 0) throw conflict(`${spec.label} "${before.name}" is used by ${usedByText(n, usedBy)} and cannot be deleted`);
      await tx.delete(table).where(eq(table.id, id));
      await audit(tx, actor, id, 'delete', historyFields(before), null);
    },
  };
}
