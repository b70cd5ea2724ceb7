import { and, asc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { invalidField } from '../core/errors';
import { isUuid } from '../core/uuid';
import type { AppContext } from '../http/context';
import { ownershipCondition } from '../permissions/ownership';
import { levelOf, type Actor, type Module, type Permission } from '../permissions/permissions';
import { escapeLike, getRecord, type OwnedTable, type RecordKind } from './records';
import { nameAsSeen, requireLinkedRow, type LinkedRecord, type OwnedTitle } from './links';

/**
 * A record type, declared once by the module that owns it (its manifest's `recordTypes`). Everything that refers to
 * records of other modules reads these declarations: evidence links and the evidence section on record pages, the
 * assistant's get_record and my_open_items, search, the names of linked records in History, and the sections other
 * modules add to its page. No module keeps another module's list of record types.
 */
export interface RecordTypeDeclaration {
  /** The one key of the type everywhere (evidence links, get_record, search kinds, sections): 'risk', 'auditPlan'. */
  kind: string;
  /** 'Audit plan' and 'Audit plans'. */
  label: string;
  plural: string;
  /** Its permission area: reading needs `<module>:read`, at level own only the records its owner columns give. */
  module: Module;
  /**
   * What its History and Audit Log entries call it, where that differs from `kind`: entries are sealed in the
   * hash-chained log, so the name they were written under stays (the register kit's `recordType`).
   */
  historyType?: string;
  table: PgTable;
  id: PgColumn;
  /** The name people know it by (SQL when built from several columns: a requirement's code and name). */
  title: PgColumn | SQL<string>;
  /** Owner columns deciding the own level (on `join`'s table when the record borrows its parent's: a control test). */
  ownerId: PgColumn;
  ownerGroupId: PgColumn;
  /** The table the title or the owner columns come from. */
  join?: { table: PgTable; on: SQL };
  /** A record shown as part of another (a control test of its control): its parent's kind and the column naming it. */
  parent?: { kind: string; id: PgColumn };
  /**
   * Records kept as parts of this type's records without a declaration of their own (a risk's treatments and reviews):
   * their History entries, under `historyType`, appear in the record's History (history-format.ts). Declared types
   * naming this one as `parent` appear there too.
   */
  historyParts?: readonly {
    historyType: string; table: PgTable; id: PgColumn; parentId: PgColumn; where?: SQL;
    /** The part's own page, linked from its parent's History while it exists (a treatment's page). */
    href?(id: string, parentId: string): string;
  }[];
  /**
   * Entries of this type's History that name a record of another type, shown in that record's History too (a
   * requirement's mapping of a control, made from the requirement's side, in the control's History): the record's
   * `kind`, the changes' field holding its id, and the actions.
   */
  historyMentions?: readonly { kind: string; field: string; actions: readonly string[] }[];
  /**
   * Fields of its History entries holding the id of a record of another type whose name does not say the kind (a
   * requirement's `packageId` names a `compliancePackage`): shown by that record's name, as `<kind>Id` fields are.
   */
  links?: Readonly<Record<string, string>>;
  /**
   * The records carry labels of Settings › Labels: the uuid[] column holding their ids (the register kit's `labels`,
   * copied by registerType). The labels module finds the records carrying a label through these declarations.
   */
  labels?: PgColumn;
  /** Its screen; a child's is its parent's. */
  href(id: string, parentId: string | null): string;
  /** Evidence may be linked to it: evidence links, the evidence section on its page, get_record's attachments. */
  evidence?: boolean;
  /**
   * Found by search (src/platform/search/search.ts): the text searched besides the title, and the stored tsvector
   * (by default the table's `search_vector` column, made by `searchColumnsSql` in the type's migration).
   */
  search?: { body?: PgColumn | SQL<string>; vector?: SQL };
  /** The assistant's get_record: the record in full as the module's service answers it (with its key linked records). */
  read?(ctx: AppContext, actor: Actor, id: string): Promise<object>;
  /**
   * Records of this type proving other records (evidence), for get_record: those linked to any of `targets` that the
   * actor may read, in full, under `key` of every record type declaring `evidence`.
   */
  attaches?: { key: string; to(ctx: AppContext, actor: Actor, targets: readonly { kind: string; ids: readonly string[] }[]): Promise<object[]> };
  /** What the assistant's my_open_items lists of this type for the actor, under `key` (types may share a key). */
  openItems?: { key: string; list(ctx: AppContext, actor: Actor): Promise<object[]> };
}

export type RecordSection = (ctx: AppContext, recordId: string, viewer: Actor, csrfToken: string) => Promise<JSX.Element | null>;

/** A module's contribution to other record types' pages: a section for a type, or null for types it has nothing for. */
export type SectionProvider = (type: RecordTypeDeclaration) => RecordSection | null;

let declared: readonly RecordTypeDeclaration[] = [];
let providers: readonly SectionProvider[] = [];

/** Called once by installModules with every module's declarations, in module order. */
export function installRecordTypes(types: readonly RecordTypeDeclaration[], sectionProviders: readonly SectionProvider[]): void {
  const kinds = new Set<string>();
  for (const type of types) {
    if (kinds.has(type.kind)) throw new Error(`record type ${type.kind} is declared twice`);
    kinds.add(type.kind);
  }
  declared = types;
  providers = sectionProviders;
}

export const recordTypes = (): readonly RecordTypeDeclaration[] => declared;

/** The declaration of a kind, or of the name its History entries carry; undefined when no module declares it. */
export const findRecordType = (kindOrHistoryType: string): RecordTypeDeclaration | undefined =>
  declared.find((t) => t.kind === kindOrHistoryType) ?? declared.find((t) => t.historyType === kindOrHistoryType);

export function recordType(kind: string): RecordTypeDeclaration {
  const type = findRecordType(kind);
  if (!type) throw new Error(`no installed module declares the record type ${kind}`);
  return type;
}

/** What History and the Audit Log call records of this type. */
export const historyTypeOf = (type: RecordTypeDeclaration): string => type.historyType ?? type.kind;

export const readPermission = (type: Pick<RecordTypeDeclaration, 'module'>) => `${type.module}:read` as Permission;

/** Types the actor may read at all (their module's read right at some level). */
export const readableTypes = (actor: Actor, types: readonly RecordTypeDeclaration[] = declared): RecordTypeDeclaration[] =>
  types.filter((t) => levelOf(actor, readPermission(t)) !== null);

/** The sections every installed module adds to the page of a record of this type, rendered in module order. */
export async function recordSections(ctx: AppContext, kindOrHistoryType: string, recordId: string, viewer: Actor, csrfToken: string): Promise<string[]> {
  const type = findRecordType(kindOrHistoryType);
  if (!type) return [];
  const sections = providedSections(type);
  const rendered = await Promise.all(sections.map((section) => section(ctx, recordId, viewer, csrfToken)));
  return rendered.filter((s): s is string => s !== null);
}

/** The sections the installed modules add to pages of this type (what links here, evidence), in module order. */
export const providedSections = (type: RecordTypeDeclaration): RecordSection[] => providers.flatMap((provide) => provide(type) ?? []);

const titleSql = (type: RecordTypeDeclaration): SQL<string> => sql<string>`${type.title}`;

export type TypedRow = OwnedTitle & { parentId: string | null };

/** Records of one type by id, with what the access rules need (one query). */
export async function recordRows(db: DbOrTx, type: RecordTypeDeclaration, ids: readonly string[]): Promise<Map<string, TypedRow>> {
  const wanted = [...new Set(ids.filter(isUuid))];
  if (wanted.length === 0) return new Map();
  const selection = {
    id: type.id, title: titleSql(type), ownerId: type.ownerId, ownerGroupId: type.ownerGroupId,
    parentId: type.parent ? sql<string | null>`${type.parent.id}` : sql<string | null>`null`,
  };
  const base = db.select(selection).from(type.table);
  const rows = await (type.join ? base.innerJoin(type.join.table, type.join.on) : base).where(inArray(type.id, wanted));
  return new Map((rows as TypedRow[]).map((row) => [String(row.id), row]));
}

/** Ids of the records of `part` that are part of one record of its parent type (a control's tests). */
export async function childIds(db: DbOrTx, part: RecordTypeDeclaration, parentId: string): Promise<string[]> {
  if (!part.parent || !isUuid(parentId)) return [];
  const rows = await db.select({ id: part.id }).from(part.table).where(eq(part.parent.id, parentId));
  return rows.map((row) => String(row.id));
}

/** A record's name as the actor may see it, with its screen only when they may read it: `(restricted)` or `(deleted)` otherwise. */
export function typedRecordAsSeen(actor: Actor, type: RecordTypeDeclaration, id: string, row: TypedRow | undefined): { title: string; href: string | null } {
  if (!row) return { title: '(deleted)', href: null };
  const title = nameAsSeen(actor, type.module, row, row.title);
  return { title, href: title === row.title ? type.href(id, row.parentId) : null };
}

/** The record a link of this type points at, by Bearer rule 4: its module's read right (403) and a readable record (404, audited). */
export async function requireTypedRecord(db: DbOrTx, actor: Actor, type: RecordTypeDeclaration, id: string, field?: string): Promise<LinkedRecord & { row: TypedRow }> {
  const row = (await recordRows(db, type, [id])).get(id);
  const linked = requireLinkedRow(actor, type, id, row, field);
  return { ...linked, row: row! };
}

/** Records of one type the viewer may read, by title, those containing `q` when given: at most `limit` (pickers). */
export async function readableChoices(db: DbOrTx, viewer: Actor, type: RecordTypeDeclaration, q = '', limit = 1000): Promise<{ value: string; label: string }[]> {
  const read = readPermission(type);
  if (levelOf(viewer, read) === null) return [];
  const base = db.select({ value: sql<string>`${type.id}::text`, label: titleSql(type) }).from(type.table);
  const joined = type.join ? base.innerJoin(type.join.table, type.join.on) : base;
  const matching = q ? sql`${titleSql(type)} ilike ${`%${escapeLike(q)}%`}` : undefined;
  return joined.where(and(ownershipCondition(viewer, read, type.ownerId, type.ownerGroupId), matching)).orderBy(asc(titleSql(type))).limit(limit);
}

/** The declaration a caller names by kind, among `types`; a 400 naming the field otherwise. */
export function requireKind(kind: string, types: readonly RecordTypeDeclaration[], field: string): RecordTypeDeclaration {
  const type = types.find((t) => t.kind === kind);
  if (!type) throw invalidField(field, `must be one of ${types.map((t) => t.kind).join(', ')}`);
  return type;
}

/**
 * The declaration of a register's record type from its RecordKind (table, module, title and owner columns, History
 * name, the labels it carries), with what the kind does not say: its key, plural, screen, and whether evidence, search
 * and the assistant reach it. `read: true` gives get_record the register's own view (getRecord).
 */
export function registerType<T extends OwnedTable, Input extends Record<string, unknown>, View>(
  recordKind: RecordKind<T, Input, View>,
  o: Pick<RecordTypeDeclaration, 'kind' | 'plural' | 'evidence' | 'search' | 'openItems' | 'historyParts' | 'links'> & {
    href(id: string): string;
    read?: true | RecordTypeDeclaration['read'];
  },
): RecordTypeDeclaration {
  const table = recordKind.table as OwnedTable;
  return {
    kind: o.kind, label: recordKind.label, plural: o.plural, module: recordKind.module,
    ...(recordKind.recordType !== o.kind ? { historyType: recordKind.recordType } : {}),
    table, id: table.id, title: recordKind.titleColumn, ownerId: table.ownerId, ownerGroupId: table.ownerGroupId,
    href: (id) => o.href(id),
    evidence: o.evidence, search: o.search, openItems: o.openItems, historyParts: o.historyParts, links: o.links,
    ...(recordKind.labels ? { labels: recordKind.labels } : {}),
    read: o.read === true ? (ctx, actor, id) => getRecord(ctx.db, recordKind, actor, id) as Promise<object> : o.read,
  };
}
