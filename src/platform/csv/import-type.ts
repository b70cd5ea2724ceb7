import type { TObject } from '@sinclair/typebox';
import { asc } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { groups, users } from '../../../db/schema';
import type { FieldProblem } from '../core/errors';
import { RESTRICTED_NAME, type LinkTarget } from '../records/links';
import { ownershipCondition } from '../permissions/ownership';
import { levelOf, type Actor, type Module, type Permission } from '../permissions/permissions';
import type { PipelinedWrites } from '../core/pipelined-writes';
import type { BatchOutcome, OwnerLookup, OwnedTable, RecordKind } from '../records/records';
import { isUuid } from '../core/uuid';
import { squash } from '../core/text';
import { valueLabel, valueLabelList } from '../core/value-labels';
import { isRealDate } from '../core/dates';

/**
 * What a record type tells the CSV engine (engine.ts): its columns, each mapped onto a field of the module's
 * existing TypeBox create/update shape, and the RecordKind whose batch service writes it. Nothing else: parsing,
 * checking, diffing, writing, auditing, templates and downloads are the engine's. See docs/csv-import.md.
 */

/** Column text in, a field value out (or the problem with the text). */
export type ReadResult = { value: unknown } | { problem: string };

export interface ImportColumn<L> {
  /** Header name, lower case: 'owner_group'. */
  name: string;
  /** The input field it fills: 'ownerGroupId'. */
  field: string;
  /** `*` in the spec: must be filled when a row creates a record. */
  required?: boolean;
  /** Allowed values or format, for the template's comment row and the docs. */
  help: string;
  /** The stored keys a keyed column takes: its help names them by label; a help row written with the keys still reads as one. */
  values?: readonly string[];
  /** Text (never blank) to the field value; default: the trimmed text. */
  read?(text: string, lookups: L & ImportLookups): ReadResult;
  /** Stored field value to text (downloads, and old -> new in results); default: String(value), '' for null. */
  write?(value: unknown, lookups: L & ImportLookups): string;
  /**
   * Stored field value as check results show it, where the file's text is not what screens show (the file names a
   * person by e-mail, which imports back; the results name them as the screens do); default: `write`.
   */
  show?(value: unknown, lookups: L & ImportLookups): string;
  /**
   * What a blank cell means on update: 'clear' sets null (or '' when the field is text that cannot be null),
   * 'keep' leaves the stored value. On create a blank always means "left out" so the record's defaults apply.
   */
  blankOnUpdate?: 'clear' | 'keep' | '';
}

/** Owners by e-mail and groups by name, loaded once per run. */
export interface ImportLookups {
  owners: OwnerLookup;
  userByEmail: ReadonlyMap<string, { id: string; status: string }>;
  emailOf: ReadonlyMap<string, string>;
  /** People's names by id, for check results. */
  userNameOf: ReadonlyMap<string, string>;
  groupByName: ReadonlyMap<string, string>;
  groupNameOf: ReadonlyMap<string, string>;
}

export interface ImportType<L = object> {
  /** Path segment of the screens and REST routes: '/risks/import', '/api/v1/risks/import'. */
  area: string;
  module: Module;
  /** 'Risks' */
  title: string;
  /** The create and update shapes the REST API validates with; every mapped row is checked against them. */
  Create: TObject;
  Update: TObject;
  columns: ImportColumn<L>[];
  /** Extra columns `cf.<key>` for the module's custom fields. */
  customFields: boolean;
  /** The type's own lookups, loaded once per run (risk scale, classifications, ...). */
  prepare(db: DbOrTx, actor: Actor): Promise<L>;
  /** The kind whose batch writes (createRecords / updateRecords) run the rows; it may close over the lookups. */
  kind?(lookups: L & ImportLookups): RecordKind<OwnedTable, Record<string, unknown>, unknown>;
  /**
   * Instead of a kind: the type's own set-based writer (records that are not a plain RecordKind, such as exceptions
   * of a parent). Exactly one of `kind` and `writer` is given.
   */
  writer?(lookups: L & ImportLookups): ImportWriter;
  /** The rights that govern the type; by default `<module>:create`, `<module>:update`, `<module>:read`. */
  rights?: ImportRights;
  /** The page of a record the import created or changed, linked from its result; by default `/<area>/<id>`, null for none. */
  recordHref?(id: string): string | null;
}

export interface ImportRights {
  /** Needed by rows without id. */
  create: Permission;
  /** Needed by rows with an id. */
  update: Permission;
  /** Needed by the current-records download. */
  read: Permission;
}

type Fields = Record<string, unknown>;

/**
 * A type's own batch writer. Fields are in the type's import shape (the `field` of each column), so the engine diffs,
 * reports and downloads them exactly as it does a kind's audited fields. Every write is checked by the writer's
 * service rules and audited (Audit Log + History) in the caller's transaction.
 */
export interface ImportWriter {
  /** 'Risk exception', for messages. */
  label: string;
  /** The stored records among `ids` that the importer may read, as fields; others are left out (not disclosed). */
  stored(db: DbOrTx, actor: Actor, ids: string[]): Promise<Map<string, Fields>>;
  /** `writes`: a writer may send its statements through it instead of waiting for each (the engine drains it). */
  create(tx: DbOrTx, actor: Actor, inputs: Fields[], writes?: PipelinedWrites): Promise<BatchOutcome[]>;
  update(tx: DbOrTx, actor: Actor, items: { id: string; patch: Fields }[], writes?: PipelinedWrites): Promise<BatchOutcome[]>;
  /** The records the actor may read, oldest first, at most `limit`, as fields with their `id`. */
  current(db: DbOrTx, actor: Actor, limit: number): Promise<Fields[]>;
}

/** The rights of a type: its own, or `<module>:create|update|read`. */
export const importRights = (type: { module: string; rights?: ImportRights }): ImportRights => type.rights ?? {
  create: `${type.module}:create` as Permission, update: `${type.module}:update` as Permission, read: `${type.module}:read` as Permission,
};

/* ---------- Allowed values and formats shared by the column definitions ---------- */

/**
 * A stored key or its label as the screens show it ("in_progress", "In progress", "Non-compliant"); the problem lists
 * the allowed values as `shown` words them (keyed columns: their labels).
 */
export function matchAllowed(values: readonly string[], text: string, shown: (value: string) => string = (value) => value): ReadResult {
  const found = values.find((v) => squash(v) === squash(text) || squash(valueLabel(v)) === squash(text));
  return found ? { value: found } : { problem: `"${text}" is not one of: ${values.map(shown).join(', ')}` };
}

/** A stored key written as its label (value-labels.ts), as the screens show it; '' for none. */
export const writeLabel = (value: unknown): string => (typeof value === 'string' && value !== '' ? valueLabel(value) : '');

/**
 * A column holding a key of a fixed list (a status, a type): the template's help row lists the labels the screens show
 * ("Planned, In progress, Completed", then `note`, which names values by label too), downloads and check results write
 * the label, and the import reads the label or the stored key, so a download imports back unchanged.
 */
export const keyedColumn = <L>(
  values: readonly string[], { note, ...column }: Omit<ImportColumn<L>, 'read' | 'write' | 'show' | 'help' | 'values'> & { note?: string },
): ImportColumn<L> => ({
  ...column, help: `${valueLabelList(values)}${note ? ` ${note}` : ''}`, values, read: (text) => matchAllowed(values, text, valueLabel), write: writeLabel,
});

export function readInteger(text: string, min: number, max: number): ReadResult {
  if (!/^[+-]?\d+$/.test(text)) return { problem: `"${text}" is not a whole number (${min} to ${max})` };
  const value = Number(text);
  return value >= min && value <= max ? { value } : { problem: `must be between ${min} and ${max}` };
}

export const readDate = (text: string): ReadResult =>
  isRealDate(text) ? { value: text } : { problem: `"${text}" is not a real date written YYYY-MM-DD` };

/** Loads users by e-mail and groups by name for the owner and owner_group columns. */
export async function loadImportLookups(db: DbOrTx): Promise<ImportLookups> {
  const [userRows, groupRows] = await Promise.all([
    db.select({ id: users.id, email: users.email, name: users.name, status: users.status }).from(users),
    db.select({ id: groups.id, name: groups.name }).from(groups).orderBy(asc(groups.name)),
  ]);
  return {
    owners: { userStatus: new Map(userRows.map((u) => [u.id, u.status])), groupIds: new Set(groupRows.map((g) => g.id)) },
    userByEmail: new Map(userRows.map((u) => [u.email.toLowerCase(), { id: u.id, status: u.status }])),
    emailOf: new Map(userRows.map((u) => [u.id, u.email])),
    userNameOf: new Map(userRows.map((u) => [u.id, u.name])),
    groupByName: new Map(groupRows.map((g) => [g.name.toLowerCase(), g.id])),
    groupNameOf: new Map(groupRows.map((g) => [g.id, g.name])),
  };
}

/** `owner`: an active account, by e-mail. */
export const ownerColumn = <L>(): ImportColumn<L> => ({
  name: 'owner', field: 'ownerId', help: 'e-mail of an active account', blankOnUpdate: 'clear',
  read(text, lookups) {
    const user = lookups.userByEmail.get(text.toLowerCase());
    if (!user) return { problem: `no account with e-mail ${text}` };
    if (user.status !== 'active') return { problem: `the account ${text} is not active` };
    return { value: user.id };
  },
  write: (value, lookups) => (typeof value === 'string' ? (lookups.emailOf.get(value) ?? value) : ''),
  // The file names people by e-mail (unique, so it imports back); the results name them as the screens do.
  show: (value, lookups) => (typeof value === 'string' ? (lookups.userNameOf.get(value) ?? lookups.emailOf.get(value) ?? value) : ''),
});

/** `owner_group`: an existing group, by name. */
export const ownerGroupColumn = <L>(): ImportColumn<L> => ({
  name: 'owner_group', field: 'ownerGroupId', help: 'name of an existing group', blankOnUpdate: 'clear',
  read(text, lookups) {
    const id = lookups.groupByName.get(text.toLowerCase());
    return id ? { value: id } : { problem: `no group named ${text}` };
  },
  write: (value, lookups) => (typeof value === 'string' ? (lookups.groupNameOf.get(value) ?? value) : ''),
});

/** A column naming a record of another table by its name (ignoring case) or its id. */
export interface NamedRecords {
  byName: ReadonlyMap<string, string[]>;
  nameOf: ReadonlyMap<string, string>;
}

export function namedRecords(rows: { id: string; name: string }[]): NamedRecords {
  const byName = new Map<string, string[]>();
  for (const row of rows) byName.set(row.name.trim().toLowerCase(), [...(byName.get(row.name.trim().toLowerCase()) ?? []), row.id]);
  return { byName, nameOf: new Map(rows.map((r) => [r.id, r.name])) };
}

/**
 * Another module's records by name, holding only those the importer may read (spec Bearer rule 4): an import links
 * to no other, and a download names no other (writeNamed shows the rest as restricted).
 */
export async function readableNamed(db: DbOrTx, actor: Actor, target: LinkTarget): Promise<NamedRecords> {
  const read = `${target.module}:read` as Permission;
  if (levelOf(actor, read) === null) return namedRecords([]);
  const { table } = target;
  const rows = await db.select({ id: table.id, name: target.titleColumn }).from(table as PgTable)
    .where(ownershipCondition(actor, read, table.ownerId, table.ownerGroupId));
  return namedRecords(rows as { id: string; name: string }[]);
}


export function readNamed(records: NamedRecords, what: string, text: string): ReadResult {
  if (isUuid(text) && records.nameOf.has(text.toLowerCase())) return { value: text.toLowerCase() };
  const ids = records.byName.get(text.toLowerCase()) ?? [];
  if (ids.length === 1) return { value: ids[0] };
  return { problem: ids.length ? `${ids.length} ${what}s are named ${text}; give the id instead` : `no ${what} named ${text}` };
}

/**
 * The name when it identifies the record, otherwise the id (so a download always imports back); a record missing
 * from the lookup is one the reader may not read, shown as restricted. Re-importing that cell unchanged keeps the
 * link, since only cells that differ from the stored value are changes.
 */
export function writeNamed(records: NamedRecords, value: unknown): string {
  if (typeof value !== 'string') return '';
  const name = records.nameOf.get(value);
  if (name === undefined && isUuid(value)) return RESTRICTED_NAME;
  return name !== undefined && (records.byName.get(name.trim().toLowerCase())?.length ?? 0) === 1 ? name : value;
}

export type { FieldProblem };

/** Declares an import type; the result is what the engine, routes and app.ts take (its lookups' type is its own business). */
export const defineImportType = <L extends object>(type: ImportType<L>): ImportType => type;

/**
 * Columns an import refuses with a reason instead of "Unknown column": fields another module keeps on the type's
 * records and the specification leaves out of CSV import (data privacy's data-map fields on assets). Declared by the
 * module keeping them (its manifest's `importRefusals`).
 */
export interface ImportRefusal {
  /** The import's area: 'assets', 'third-parties'. */
  area: string;
  /** Header names, lower case: 'personal_data_held'. */
  columns: readonly string[];
  /** Why, as the refusal says it: 'data-map fields are kept by Data privacy: set them in the asset's Privacy section'. */
  reason: string;
}

let refusals: readonly ImportRefusal[] = [];

/** Called once by installModules with every module's declared refusals. */
export function installImportRefusals(declared: readonly ImportRefusal[]): void {
  refusals = declared;
}

/** The refusals that apply to an import's area. */
export const importRefusalsFor = (area: string): readonly ImportRefusal[] => refusals.filter((r) => r.area === area);
