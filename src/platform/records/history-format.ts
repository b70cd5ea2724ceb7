import { and, desc, eq, getTableColumns, inArray, or, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { apiTokens, groups, history, users } from '../../../db/schema';
import type { FieldChanges, HistoryView } from '../audit/history';
import { valueLabel } from '../core/value-labels';
import { isUuid } from '../core/uuid';
import { levelOf, type Actor, type Module, type Permission } from '../permissions/permissions';
import { historyAsSeen, RESTRICTED_NAME, type NamedLink } from './links';
import { findRecordType, historyTypeOf, recordRows, recordTypes, typedRecordAsSeen, type RecordTypeDeclaration, type TypedRow } from './record-types';

/**
 * One way History and the Audit Log read, for every module: field labels, linked ids as names (or "(restricted)", or
 * "(deleted)"), stored keys by their labels, times marked for the reader's zone, long text as a line diff. What a
 * record type's History entries mean comes from the manifests: each module's `events` (fields and their labels,
 * statuses, fields holding people, groups and links to other record types, names kept beside linked ids) and its
 * `recordTypes` (titles, owners, enum columns, the records kept as parts of another).
 */
export interface HistoryDescription {
  /** As History stores it: 'risk', 'riskTreatment'. */
  recordType: string;
  label: string;
  module: Module;
  /** Labels of the fields by the key History uses. */
  fields: Readonly<Record<string, string>>;
  titleField?: string;
  statuses?: Readonly<Record<string, string>>;
  statusField?: string;
  /** Other fields holding keys of a fixed list, with their values' labels. */
  values?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  people?: readonly string[];
  groups?: readonly string[];
  /** Fields holding the id of a record of another type: its record-type kind. */
  links?: Readonly<Record<string, string>>;
  historyLinks?: readonly NamedLink[];
}

let described: readonly HistoryDescription[] = [];

/** Called once by installModules with every module's History descriptions (its `events`). */
export function installHistoryDescriptions(descriptions: readonly HistoryDescription[]): void {
  described = descriptions;
}

export const historyDescription = (recordType: string): HistoryDescription | undefined => described.find((d) => d.recordType === recordType);

/** A History entry as stored, with whose record it is. */
export type StoredEntry = HistoryView & { recordType: string; recordId: string };

export interface DiffLine {
  kind: 'same' | 'added' | 'removed';
  text: string;
}

/** A value as shown: text, or a time (`at`, ISO) the screen writes in the reader's zone; `text` is then its UTC form. */
export interface ShownValue {
  text: string;
  at?: string;
  /** Linked records as named in `text`, each with its page where the reader may open it (screens link them). */
  links?: { text: string; href: string | null }[];
}

export interface ShownChange {
  field: string;
  label: string;
  before: ShownValue;
  after: ShownValue;
  /** Long text (Markdown) as a line diff instead of before and after. */
  lines?: DiffLine[];
}

export interface ShownRecord {
  /** 'Risk treatment'. */
  label: string;
  title: string;
  href: string | null;
  /** The reader may read it (or, deleted, could have at level all): otherwise its entry's changes are not shown. */
  readable: boolean;
}

export interface ShownEntry {
  at: string;
  /** Who: a person's name, a token's, or 'System'. */
  who: string;
  /** The door: 'In the app', 'REST API, token "ci"', 'CSV import of risks.csv'. */
  door: string;
  action: string;
  actionLabel: string;
  /** The record the entry is about, when it is not the page's own record (a treatment in its risk's History). */
  record: ShownRecord | null;
  changes: ShownChange[];
  /** The changes were left out: the entry is about a record the reader may not read (they would name it). */
  hidden: boolean;
  auditSeq: number | null;
}

/** What a register adds to the manifests' wording: its form's labels and names of its own values (risk levels). */
export interface HistoryWording {
  /** The record whose page shows the History: its entries name no record, its parts' entries name theirs. */
  own?: { recordType: string; recordId: string };
  label?(recordType: string, field: string): string | undefined;
  name?(recordType: string, field: string, value: unknown): string | undefined;
  /** Fields of a type whose values are keys of a fixed list (a form's select), shown by their labels. */
  keyed?(recordType: string, field: string): boolean;
}

export const ACTION_LABELS: Readonly<Record<string, string>> = {
  create: 'Created', update: 'Changed', delete: 'Deleted', signin: 'Signed in', signout: 'Signed out', 'permission.denied': 'Refused: no permission',
};
/** 'create' reads 'Created'; 'control.link' 'Control linked', 'subProcessor.add' 'Sub processor added'; any other action as words. */
export function actionLabel(action: string): string {
  const link = /^(\w+)\.(link|unlink|add|remove)$/.exec(action);
  if (link) return `${valueLabel(link[1])} ${({ link: 'linked', unlink: 'unlinked', add: 'added', remove: 'removed' } as Record<string, string>)[link[2]]}`;
  return ACTION_LABELS[action] ?? valueLabel(action.replaceAll('.', ' '));
}

const VERBS: Record<string, string> = { linked: 'link', unlinked: 'unlink', added: 'add', removed: 'remove' };

/**
 * The stored actions a person's words for an action name, as the Audit Log's filter reads them: the text as stored
 * ("update", "control.link"), and the actions it is the label of ("Changed", "Control linked", "Approve").
 */
export function actionsNamed(text: string): string[] {
  const typed = text.trim();
  const lower = typed.toLowerCase();
  const byLabel = Object.keys(ACTION_LABELS).filter((action) => actionLabel(action).toLowerCase() === lower);
  const linked = /^(.+) (linked|unlinked|added|removed)$/.exec(lower);
  const link = linked ? [`${linked[1].split(' ').map((w, i) => (i === 0 ? w : w.charAt(0).toUpperCase() + w.slice(1))).join('')}.${VERBS[linked[2]]}`] : [];
  return [...new Set([typed, lower, lower.replaceAll(' ', '.'), ...byLabel, ...link])];
}

/** 'ownerGroupId' reads 'Owner group', 'LockedAt' 'Locked at'. */
export const fieldWords = (key: string): string =>
  valueLabel(key.replace(/Ids?$/, (m) => (m === 'Ids' ? 's' : '')).replace(/^./, (c) => c.toLowerCase()));

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;
const NOTHING = '—';

/** The UTC form of a time, as the CSV download and a screen without scripts show it. */
export const utcText = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
};

/** A line diff (longest common subsequence of lines; long texts beyond 2,000 lines a side compare by their ends). */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before === '' ? [] : before.split(/\r?\n/);
  const b = after === '' ? [] : after.split(/\r?\n/);
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) { endA--; endB--; }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle: DiffLine[] = [];
  if (midA.length * midB.length > 4_000_000) {
    middle.push(...midA.map((text) => ({ kind: 'removed' as const, text })), ...midB.map((text) => ({ kind: 'added' as const, text })));
  } else {
    const lcs: number[][] = Array.from({ length: midA.length + 1 }, () => new Array<number>(midB.length + 1).fill(0));
    for (let i = midA.length - 1; i >= 0; i--) {
      for (let j = midB.length - 1; j >= 0; j--) lcs[i][j] = midA[i] === midB[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
    let i = 0;
    let j = 0;
    while (i < midA.length || j < midB.length) {
      if (i < midA.length && j < midB.length && midA[i] === midB[j]) { middle.push({ kind: 'same', text: midA[i] }); i++; j++; }
      // Removed lines before the lines that replace them, as diffs read.
      else if (i < midA.length && (j === midB.length || lcs[i + 1][j] >= lcs[i][j + 1])) middle.push({ kind: 'removed', text: midA[i++] });
      else middle.push({ kind: 'added', text: midB[j++] });
    }
  }
  // Unchanged lines around the change: two of context each side, the rest left out.
  const head = a.slice(Math.max(0, start - 2), start).map((text) => ({ kind: 'same' as const, text }));
  const tail = a.slice(endA, endA + 2).map((text) => ({ kind: 'same' as const, text }));
  return [...head, ...middle, ...tail];
}

const isLongText = (value: unknown) => typeof value === 'string' && (value.includes('\n') || value.length > 200);
const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The table a History type's records live in: its declaration's, or the `historyParts` entry naming it. */
function tableOf(recordType: string): PgTable | undefined {
  return findRecordType(recordType)?.table ?? recordTypes().flatMap((t) => t.historyParts ?? []).find((p) => p.historyType === recordType)?.table;
}

/** The columns of a History type's table that hold keys of a fixed list (enum columns): their values are shown by label. */
const enumColumnsCache = new WeakMap<PgTable, Set<string>>();
function enumColumns(recordType: string): Set<string> {
  const table = tableOf(recordType);
  if (!table) return new Set();
  let found = enumColumnsCache.get(table);
  if (!found) {
    found = new Set(Object.entries(getTableColumns(table)).filter(([, c]) => ((c as PgColumn & { enumValues?: string[] }).enumValues?.length ?? 0) > 0).map(([k]) => k));
    enumColumnsCache.set(table, found);
  }
  return found;
}

type Role = { person: true } | { group: true } | { link: RecordTypeDeclaration } | null;

/** Fields every module names for the person in a role (a review's reviewer, a requirement's assessor), parts included. */
const PERSON_ROLES = /^(reviewer|assessor|approver|assignee|tester|person)Id$/;
/** People and groups are the platform's: fields naming them by these words hold their ids (`userIds`, `audienceGroupIds`, `signedOffById`). */
const PEOPLE_FIELD = /^(userIds|[a-z]\w*UserIds|[a-z]\w*ById)$/;
const GROUPS_FIELD = /^(groupIds?|[a-z]\w*GroupIds?)$/;

/** The declared type a `<name>Type` field of the same change names, for its `<name>Id` (an evidence link's `linkedType`). */
function typeBeside(changes: FieldChanges | undefined, field: string): RecordTypeDeclaration | undefined {
  const name = /^(\w+)Id$/.exec(field)?.[1];
  const kind = name && changes ? changes[`${name}Type`]?.after ?? changes[`${name}Type`]?.before : undefined;
  return typeof kind === 'string' ? findRecordType(kind) : undefined;
}

/**
 * What a field of a History type's entries holds, by the manifests: people, groups, a linked record of a declared type
 * (its events' or record-type declaration's `links`, the kind its `<name>Type` field names, else `<kind>Id`, `<kind>Ids`).
 */
function roleOf(recordType: string, field: string, changes?: FieldChanges): Role {
  const d = historyDescription(recordType);
  if (field === 'ownerId' || field === 'userId' || /[a-z](By|UserId)$/.test(field) || PERSON_ROLES.test(field) || PEOPLE_FIELD.test(field) || d?.people?.includes(field)) return { person: true };
  if (field === 'ownerGroupId' || GROUPS_FIELD.test(field) || d?.groups?.includes(field)) return { group: true };
  const kind = d?.links?.[field] ?? findRecordType(recordType)?.links?.[field] ?? (/Ids?$/.test(field) ? field.replace(/Ids?$/, '') : null);
  const type = typeBeside(changes, field) ?? (kind ? findRecordType(kind) : undefined);
  return type ? { link: type } : null;
}

const idsIn = (value: unknown): string[] => (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string' && isUuid(v));

/**
 * History entries (of one record, of its parts, or of the Audit Log's page) as the reader reads them. Linked records are
 * named only to a reader who may read them; names History kept beside linked ids follow the same rule.
 */
export async function describeHistory(db: DbOrTx, viewer: Actor, stored: readonly StoredEntry[], wording: HistoryWording = {}): Promise<ShownEntry[]> {
  // Names kept beside linked ids ({riskId, riskTitle}): restricted per record type's declared historyLinks.
  const byType = new Map<string, StoredEntry[]>();
  for (const e of stored) byType.set(e.recordType, [...(byType.get(e.recordType) ?? []), e]);
  const seen = new Map<StoredEntry, StoredEntry>();
  for (const [recordType, entries] of byType) {
    const links = historyDescription(recordType)?.historyLinks ?? [];
    const shown = links.length ? await historyAsSeen(db, viewer, entries, links) : entries;
    entries.forEach((e, i) => seen.set(e, { ...e, changes: shown[i].changes }));
  }
  const entries = stored.map((e) => seen.get(e) ?? e);

  // Every id the entries name, by what it is, then one query per kind.
  const people = new Set<string>();
  const groupIds = new Set<string>();
  const tokens = new Set<string>();
  const linked = new Map<RecordTypeDeclaration, Set<string>>();
  const note = (type: RecordTypeDeclaration, ids: string[]) => {
    if (!linked.has(type)) linked.set(type, new Set());
    for (const id of ids) linked.get(type)!.add(id);
  };
  for (const e of entries) {
    if (e.actorUserId) people.add(e.actorUserId);
    if (e.tokenId) tokens.add(e.tokenId);
    const declared = findRecordType(e.recordType);
    if (declared && !isOwn(e, wording)) note(declared, [e.recordId]);
    for (const [field, change] of Object.entries(e.changes)) {
      const role = roleOf(e.recordType, field, e.changes);
      const ids = [...idsIn(change.before), ...idsIn(change.after)];
      if (!role || ids.length === 0) continue;
      if ('person' in role) ids.forEach((id) => people.add(id));
      else if ('group' in role) ids.forEach((id) => groupIds.add(id));
      else note(role.link, ids);
    }
  }
  // On a record's page, its parts (a risk's treatments, reviews and exceptions) are read with it; those without a
  // declaration of their own are looked up to tell a part still there (linked to its page) from a removed one.
  const ownType = wording.own ? findRecordType(wording.own.recordType) : undefined;
  const pageParts = new Map(ownType ? partsOf(ownType).map((p) => [p.historyType, p]) : []);
  const undeclaredParts = [...pageParts.values()].filter((p) => !findRecordType(p.historyType));
  const livePartIds = async (p: HistoryPart): Promise<string[]> => {
    const ids = [...new Set(entries.filter((e) => e.recordType === p.historyType && isUuid(e.recordId)).map((e) => e.recordId))];
    if (ids.length === 0) return [];
    return (await db.select({ id: sql<string>`${p.id}::text` }).from(p.table).where(inArray(p.id, ids))).map((r) => r.id);
  };
  const [userRows, groupRows, tokenRows, rows, liveParts] = await Promise.all([
    people.size ? db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, [...people])) : [],
    groupIds.size ? db.select({ id: groups.id, name: groups.name }).from(groups).where(inArray(groups.id, [...groupIds])) : [],
    tokens.size ? db.select({ id: apiTokens.id, name: apiTokens.name }).from(apiTokens).where(inArray(apiTokens.id, [...tokens])) : [],
    Promise.all([...linked].map(async ([type, ids]) => [type, await recordRows(db, type, [...ids])] as const)),
    Promise.all(undeclaredParts.map(livePartIds)).then((lists) => new Set(lists.flat())),
  ]);
  const userNames = new Map(userRows.map((u) => [u.id, u.name]));
  const groupNames = new Map(groupRows.map((g) => [g.id, g.name]));
  const tokenNames = new Map(tokenRows.map((t) => [t.id, t.name]));
  const recordsOf = new Map<RecordTypeDeclaration, Map<string, TypedRow>>(rows);

  const seenRecord = (type: RecordTypeDeclaration, id: string) => typedRecordAsSeen(viewer, type, id, recordsOf.get(type)?.get(id));

  const show = (e: StoredEntry, field: string, value: unknown, keyed: boolean): ShownValue => {
    if (value === null || value === undefined || value === '') return { text: NOTHING };
    const own = wording.name?.(e.recordType, field, value);
    if (own !== undefined) return { text: own };
    const role = roleOf(e.recordType, field, e.changes);
    if (role && idsIn(value).length) {
      const values = Array.isArray(value) ? value : [value];
      if ('link' in role) {
        // Linked records are named and, where the reader may open them, linked (an exception's risk, a treatment's controls).
        const links = values.map((v) => (typeof v === 'string' && isUuid(v) ? seenRecord(role.link, v) : { title: String(v), href: null }))
          .map((r) => ({ text: r.title, href: r.href }));
        return { text: links.map((l) => l.text).join(', ') || NOTHING, ...(links.some((l) => l.href) ? { links } : {}) };
      }
      const name = (id: string) => ('person' in role ? userNames.get(id) ?? '(deleted)' : groupNames.get(id) ?? '(deleted)');
      return { text: values.map((v) => (typeof v === 'string' && isUuid(v) ? name(v) : String(v))).join(', ') || NOTHING };
    }
    if (typeof value === 'boolean') return { text: value ? 'Yes' : 'No' };
    // A field naming a declared record type (an evidence link's linked type, a rule's record type) by the type's label.
    if (typeof value === 'string' && /(^t|T)ype$/.test(field) && findRecordType(value)) return { text: findRecordType(value)!.label };
    if (typeof value === 'string' && ISO_TIME.test(value)) return { text: utcText(value), at: new Date(value).toISOString() };
    if (typeof value === 'string' && keyed) {
      const d = historyDescription(e.recordType);
      return { text: (field === (d?.statusField ?? 'status') ? d?.statuses?.[value] : d?.values?.[field]?.[value]) ?? valueLabel(value) };
    }
    // A number from a fixed list (a schedule's weekday) by its label, where its record type declares the labels.
    const numberLabel = typeof value === 'number' ? historyDescription(e.recordType)?.values?.[field]?.[String(value)] : undefined;
    if (numberLabel) return { text: numberLabel };
    if (Array.isArray(value)) return { text: value.length ? value.map((v) => show(e, field, v, keyed).text).join(', ') : NOTHING };
    if (typeof value === 'object') return { text: JSON.stringify(value) };
    return { text: String(value) };
  };

  return entries.map((e) => {
    const d = historyDescription(e.recordType);
    const declared = findRecordType(e.recordType);
    const enums = enumColumns(e.recordType);
    const labelOf = (field: string) => wording.label?.(e.recordType, field) ?? d?.fields[field] ?? fieldWords(field);
    const isKeyed = (field: string) => field === (d?.statusField ?? 'status') || enums.has(field) || d?.values?.[field] !== undefined
      || (wording.keyed?.(e.recordType, field) ?? false);
    const changes: ShownChange[] = [];
    for (const [field, change] of Object.entries(e.changes)) {
      if (isPlainObject(change.before) || isPlainObject(change.after)) {
        // Custom fields and other maps: one line per key that changed.
        const before = isPlainObject(change.before) ? change.before : {};
        const after = isPlainObject(change.after) ? change.after : {};
        for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
          if (JSON.stringify(before[key] ?? null) === JSON.stringify(after[key] ?? null)) continue;
          const label = wording.label?.(e.recordType, `${field}.${key}`) ?? `${labelOf(field)}: ${fieldWords(key)}`;
          changes.push({ field: `${field}.${key}`, label, before: show(e, key, before[key], false), after: show(e, key, after[key], false) });
        }
        continue;
      }
      const keyed = isKeyed(field);
      const shown: ShownChange = { field, label: labelOf(field), before: show(e, field, change.before, keyed), after: show(e, field, change.after, keyed) };
      // Nothing before and nothing after (a blank field of a new record) says nothing: left out.
      if (shown.before.text === NOTHING && shown.after.text === NOTHING) continue;
      if (isLongText(change.before) || isLongText(change.after)) {
        shown.lines = lineDiff(typeof change.before === 'string' ? change.before : '', typeof change.after === 'string' ? change.after : '');
      }
      changes.push(shown);
    }
    const pagePart = wording.own ? pageParts.get(e.recordType) : undefined;
    const part = pagePart && wording.own
      ? { live: liveParts.has(e.recordId), href: pagePart.href?.(e.recordId, wording.own.recordId) ?? null }
      : null;
    const record = isOwn(e, wording) ? null : shownRecord(viewer, e, d, declared, declared ? recordsOf.get(declared)?.get(e.recordId) : undefined, part);
    const hidden = record !== null && !record.readable;
    return {
      at: new Date(e.at).toISOString(),
      who: e.actorUserId ? userNames.get(e.actorUserId) ?? e.actor ?? '(deleted)' : e.actor ?? (e.tokenId ? 'Token' : 'System'),
      door: doorOf(e, tokenNames),
      action: e.action,
      actionLabel: actionLabel(e.action),
      record,
      changes: hidden ? [] : changes,
      hidden,
      auditSeq: e.auditSeq,
    };
  });
}

const isOwn = (e: StoredEntry, wording: HistoryWording) => wording.own !== undefined && wording.own.recordType === e.recordType && wording.own.recordId === e.recordId;

/** How a change came in. */
function doorOf(e: StoredEntry, tokenNames: Map<string, string>): string {
  switch (e.via) {
    case 'screen': return 'In the app';
    case 'api': return e.tokenId ? `REST API, token "${tokenNames.get(e.tokenId) ?? '(deleted)'}"` : 'REST API';
    case 'import': return e.source ?? 'CSV import';
    case 'mcp': return 'AI assistant';
    case 'scim': return 'SCIM provisioning';
    case 'cli': return 'Command line';
    case 'loader': return e.source ?? 'Bundle loader';
    default: return e.source ?? 'The service';
  }
}

/**
 * The record an entry is about, named as the reader may see it. On a record's page its parts are read with it (whoever
 * may read a risk may read its treatments, reviews and exceptions): named, linked to their page while they exist, and
 * named by the title their entry kept with "(deleted)" once removed. Elsewhere a declared type is named from its row
 * (readable, "(restricted)", or "(deleted)"); a part without a declaration of its own (a risk treatment) by the title
 * its History entry kept, and only to a reader of its module at level all (its parent decides the own level, which is
 * not known here).
 */
function shownRecord(
  viewer: Actor, e: StoredEntry, d: HistoryDescription | undefined, declared: RecordTypeDeclaration | undefined, row: TypedRow | undefined,
  part: { live: boolean; href: string | null } | null,
): ShownRecord {
  const label = d?.label ?? declared?.label ?? valueLabel(e.recordType);
  // Neither declared nor described (the risk scale, a setting): nothing to restrict, its id says what it is; a part of
  // the record shown (a risk's review) has no title of its own: its label and changes say what it is, never its id.
  // Its changes are shown to every reader, so a name they hold (a report schedule's) may name it too.
  if (!declared && !d) {
    const named = ['name', 'title'].map((f) => e.changes[f]?.after ?? e.changes[f]?.before).find((v): v is string => typeof v === 'string' && v !== '');
    return { label, title: part ? named ?? NOTHING : named ?? (e.recordId || NOTHING), href: part?.live ? part.href : null, readable: true };
  }
  const module = declared?.module ?? d!.module;
  const readsAll = levelOf(viewer, `${module}:read` as Permission) === 'all';
  const kept = d?.titleField ? (e.changes[d.titleField]?.after ?? e.changes[d.titleField]?.before) : undefined;
  if (part) {
    if (declared && row) return { label, title: row.title, href: declared.href(e.recordId, row.parentId), readable: true };
    if (!declared && part.live) return { label, title: typeof kept === 'string' ? kept : NOTHING, href: part.href, readable: true };
    return { label, title: typeof kept === 'string' ? `${kept} (deleted)` : '(deleted)', href: null, readable: true };
  }
  if (declared) {
    const seen = typedRecordAsSeen(viewer, declared, e.recordId, row);
    // A deleted record is named by the title its entry kept (its delete entry keeps them all), to a reader of every one.
    if (!row && readsAll) return { label, title: typeof kept === 'string' ? `${kept} (deleted)` : seen.title, href: null, readable: true };
    return { label, title: seen.title, href: seen.href, readable: seen.href !== null };
  }
  if (readsAll) return { label, title: typeof kept === 'string' ? kept : NOTHING, href: null, readable: true };
  return { label, title: RESTRICTED_NAME, href: null, readable: false };
}

type HistoryPart = NonNullable<RecordTypeDeclaration['historyParts']>[number];

/** The History types of the records kept as parts of `type`'s records: its declared `historyParts` and the declared types naming it as `parent`. */
function partsOf(type: RecordTypeDeclaration): HistoryPart[] {
  const declaredParts = recordTypes().filter((t) => t.parent?.kind === type.kind)
    .map((t): HistoryPart => ({ historyType: historyTypeOf(t), table: t.table, id: t.id, parentId: t.parent!.id }));
  return [...declaredParts, ...(type.historyParts ?? [])];
}

/** The JSON key History uses for a table's column (its field name in the row): 'riskId' for exceptions.risk_id. */
const fieldOf = (table: PgTable, column: PgColumn) => Object.entries(getTableColumns(table)).find(([, c]) => c === column)?.[0];

/**
 * Parts of a record deleted since (a risk's removed treatment): their delete entry keeps the parent's id in its
 * changes' `before`. Served by history_mentions_idx (GIN over the changes of entries other than create and update).
 */
async function deletedPartIds(db: DbOrTx, p: { historyType: string; table: PgTable; parentId: PgColumn }, recordId: string): Promise<string[]> {
  const field = fieldOf(p.table, p.parentId);
  if (!field) return [];
  const rows = await db.select({ id: history.recordId }).from(history).where(and(
    eq(history.recordType, p.historyType), eq(history.action, 'delete'),
    sql`${history.changes} @> ${JSON.stringify({ [field]: { before: recordId } })}::jsonb`,
  ));
  return rows.map((r) => r.id);
}

/** Entries of other types naming the record (their declared `historyMentions`), as conditions on History. */
function mentionsOf(type: RecordTypeDeclaration, recordId: string): SQL[] {
  return recordTypes().flatMap((other) => (other.historyMentions ?? []).filter((m) => m.kind === type.kind || m.kind === historyTypeOf(type)).map((m) => and(
    eq(history.recordType, historyTypeOf(other)), inArray(history.action, [...m.actions]),
    or(
      sql`${history.changes} @> ${JSON.stringify({ [m.field]: { after: recordId } })}::jsonb`,
      sql`${history.changes} @> ${JSON.stringify({ [m.field]: { before: recordId } })}::jsonb`,
    ),
  )!));
}

/**
 * A record's History with the History of its parts (a risk's treatments, reviews and exceptions; a control's tests),
 * newest first: the parts' ids first (their parent column's index), then one query whose branches each use
 * history_record_idx (record_type, record_id).
 */
export async function historyWithParts(db: DbOrTx, kindOrHistoryType: string, recordId: string, limit = 200): Promise<StoredEntry[]> {
  const type = findRecordType(kindOrHistoryType);
  const own = type ? historyTypeOf(type) : kindOrHistoryType;
  const parts = type && isUuid(recordId) ? partsOf(type) : [];
  const partIds = await Promise.all(parts.map(async (p) => {
    const [live, deleted] = await Promise.all([
      db.select({ id: sql<string>`${p.id}::text` }).from(p.table).where(and(eq(p.parentId, recordId), p.where)),
      deletedPartIds(db, p, recordId),
    ]);
    return { historyType: p.historyType, ids: [...new Set([...live.map((r) => r.id), ...deleted])] };
  }));
  const mentions = type && isUuid(recordId) ? mentionsOf(type, recordId) : [];
  const where = or(
    and(eq(history.recordType, own), eq(history.recordId, recordId)),
    ...partIds.filter((p) => p.ids.length).map((p) => and(eq(history.recordType, p.historyType), inArray(history.recordId, p.ids))),
    ...mentions,
  );
  const rows = await db.select({ h: history, email: users.email }).from(history).leftJoin(users, eq(users.id, history.actorUserId))
    .where(where).orderBy(desc(history.id)).limit(limit);
  return rows.map(({ h, email }) => ({
    at: h.at.toISOString(), action: h.action, via: h.via, source: h.source, actor: email, actorUserId: h.actorUserId, tokenId: h.actorTokenId,
    changes: h.changes as FieldChanges, auditSeq: h.auditSeq, recordType: h.recordType, recordId: h.recordId,
  }));
}
