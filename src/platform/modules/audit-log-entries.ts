import { and, count, desc, eq, gte, ilike, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { auditLog, history } from '../../../db/schema';
import type { FieldChanges } from '../audit/history';
import { invalid, type FieldProblem } from '../core/errors';
import { isUuid } from '../core/uuid';
import { valueLabel } from '../core/value-labels';
import { moduleLabel } from '../http/installed';
import { levelOf, type Actor, type Permission } from '../permissions/permissions';
import { escapeLike } from '../records/records';
import { actionsNamed, describeHistory, type ShownEntry } from '../records/history-format';
import { installedModules } from './module';
import { search } from '../search/search';
import { zonedHeader, zonedTime } from '../csv/zone';
import { findRecordType } from '../records/record-types';

/** What the Audit Log screen filters by; every member optional (the query string's). */
export interface AuditFilter {
  /** A person (user id): entries they made. */
  actor?: string;
  module?: string;
  action?: string;
  /** A record's id: its entries, whatever its type. */
  record?: string;
  /** Days (YYYY-MM-DD, UTC), both included. */
  from?: string;
  to?: string;
  /** Words found in the action, module, record type, record id or details. */
  q?: string;
}

export const AUDIT_PAGE_SIZE = 50;
/** Entries a CSV download holds at most (newest first). */
export const AUDIT_EXPORT_LIMIT = 10_000;

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const validDay = (value: string) => DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`));

/** The filter from a query string: blanks dropped, text trimmed and bounded; a value that cannot be meant is refused (400, per field). */
export function auditFilterFrom(query: Record<string, string | undefined>): AuditFilter {
  const text = (key: string, max = 200) => (query[key] ?? '').trim().slice(0, max) || undefined;
  const filter: AuditFilter = {
    actor: text('actor', 36), module: text('module', 64), action: text('action', 100), record: text('record', 100),
    from: text('from', 10), to: text('to', 10), q: text('q'),
  };
  const problems: FieldProblem[] = [];
  if (filter.actor && !isUuid(filter.actor)) problems.push({ field: 'actor', message: 'must be a person of the list' });
  if (filter.from && !validDay(filter.from)) problems.push({ field: 'from', message: 'must be a date (YYYY-MM-DD)' });
  if (filter.to && !validDay(filter.to)) problems.push({ field: 'to', message: 'must be a date (YYYY-MM-DD)' });
  if (!problems.length && filter.from && filter.to && filter.from > filter.to) problems.push({ field: 'to', message: 'must not be before From' });
  if (problems.length) throw invalid(problems);
  return Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== undefined)) as AuditFilter;
}

const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString();

/**
 * The WHERE of a filter. By record it is `record_id = …`, served by audit_log_record_seq_idx (record_id, seq): the
 * newest entries of one record and their count read only that record's index entries, however long the log.
 */
function conditionOf(viewer: Actor, f: AuditFilter): SQL | undefined {
  const like = f.q ? `%${escapeLike(f.q)}%` : null;
  // Changes are searched only in the modules the reader reads at level all: a match must not tell of a record they may not read.
  const readable = auditModules().map((m) => m.value).filter((m) => levelOf(viewer, `${m}:read` as Permission) === 'all');
  return and(
    f.actor ? eq(auditLog.actorUserId, f.actor) : undefined,
    f.module ? eq(auditLog.module, f.module) : undefined,
    // As stored or by its label ("Changed", "Control linked").
    f.action ? inArray(auditLog.action, actionsNamed(f.action)) : undefined,
    f.record ? eq(auditLog.recordId, f.record) : undefined,
    f.from ? gte(auditLog.at, `${f.from}T00:00:00.000Z`) : undefined,
    f.to ? lt(auditLog.at, nextDay(f.to)) : undefined,
    like ? or(
      ilike(auditLog.action, like), ilike(auditLog.module, like), ilike(auditLog.recordType, like), ilike(auditLog.recordId, like), sql`${auditLog.details}::text ilike ${like}`,
      // The changes the entry seals (a record's name as written), through history_audit_seq_idx.
      readable.length
        ? and(inArray(auditLog.module, readable), sql`exists (select 1 from ${history} where ${history.auditSeq} = ${auditLog.seq} and ${history.changes}::text ilike ${like})`)
        : undefined,
    ) : undefined,
  );
}

/** An entry as the screen and the download show it: the History formatter's wording plus the entry's own facts. */
export interface ShownAuditEntry extends ShownEntry {
  seq: number;
  module: string;
  moduleLabel: string;
  recordType: string | null;
  recordId: string | null;
  /** The details as labelled fields (the History seal's digest left to the download). */
  details: { label: string; value: string }[];
  hash: string;
}

/** A module as the Audit Log names it: the platform's own areas by name, a module by its screens' label. */
const moduleName = (module: string): string => ({ settings: 'Settings', security: 'Security', notifications: 'Notifications' } as Record<string, string>)[module] ?? valueLabel(moduleLabel(module));

/** A page of entries matching the filter, newest first, with the total, each worded for the reader. */
export async function listAuditEntries(db: DbOrTx, viewer: Actor, filter: AuditFilter, page: number, pageSize = AUDIT_PAGE_SIZE): Promise<{ rows: ShownAuditEntry[]; total: number; page: number; pageSize: number }> {
  const where = conditionOf(viewer, filter);
  const [rows, [{ total }]] = await Promise.all([
    db.select({ entry: auditLog, changes: history.changes, source: history.source }).from(auditLog).leftJoin(history, eq(history.auditSeq, auditLog.seq))
      .where(where).orderBy(desc(auditLog.seq)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(auditLog).where(where),
  ]);
  const stored = rows.map(({ entry, changes, source }) => ({
    at: entry.at, action: entry.action, via: entry.via,
    source: source ?? (typeof entry.details === 'object' && entry.details && typeof (entry.details as Record<string, unknown>).source === 'string' ? (entry.details as Record<string, string>).source : null),
    actor: entry.actorKind === 'system' ? 'System' : null, actorUserId: entry.actorUserId, tokenId: entry.actorTokenId,
    changes: (changes ?? {}) as FieldChanges, auditSeq: entry.seq, recordType: entry.recordType ?? '', recordId: entry.recordId ?? '',
  }));
  // The details are worded as the changes are (labels, people and records by name, stored keys by label), as values set.
  const detailsOf = (details: unknown) => Object.entries((details ?? {}) as Record<string, unknown>).filter(([key]) => key !== 'changesSha256');
  const [shown, details] = await Promise.all([
    describeHistory(db, viewer, stored),
    describeHistory(db, viewer, stored.map((e, i) => ({ ...e, changes: Object.fromEntries(detailsOf(rows[i].entry.details).map(([key, value]) => [key, { before: null, after: value }])) }))),
  ]);
  return {
    rows: rows.map(({ entry }, i) => ({
      ...shown[i],
      record: entry.recordType ? shown[i].record : null,
      seq: entry.seq, module: entry.module, moduleLabel: moduleName(entry.module), recordType: entry.recordType, recordId: entry.recordId, hash: entry.hash,
      details: details[i].changes.map((c) => ({ label: c.label, value: c.after.text })),
    })),
    total, page, pageSize,
  };
}

/** The modules the filter offers: every installed module's permission area and the platform's own. */
export function auditModules(): { value: string; label: string }[] {
  const keys = new Set<string>(['security', 'settings', 'notifications']);
  for (const m of installedModules()) if (m.permissions) keys.add(m.permissions.name);
  return [...keys].map((value) => ({ value, label: moduleName(value) })).sort((a, b) => a.label.localeCompare(b.label));
}

/** A record the filter may be set to, as the picker offers it: its name and what it is. */
export interface AuditRecordChoice {
  id: string;
  title: string;
  /** 'Risk', 'Control'. */
  label: string;
}

/** Suggestions the record picker offers at most. */
export const AUDIT_RECORD_CHOICES = 10;

/**
 * Records whose name holds `q`, for the record filter: the platform's search over the searchable record types, which
 * reads only what the reader may read (their read right and own/all level, in SQL), so a record they may not read is
 * never named here. Blank text offers nothing.
 */
export async function auditRecordChoices(db: DbOrTx, viewer: Actor, q: string): Promise<AuditRecordChoice[]> {
  const text = q.trim().slice(0, 200);
  if (!text) return [];
  const hits = await search(db, viewer, { q: text, limit: AUDIT_RECORD_CHOICES });
  return hits.map((h) => ({ id: h.id, title: h.title, label: findRecordType(h.kind)?.label ?? valueLabel(h.kind) }));
}

/**
 * The record the filter names, as its newest entry names it (the one naming rule of History and the Audit Log: its
 * title where the reader may read it, "(restricted)" where not, "(deleted)" once gone). Read as
 * `record_id = $1 order by seq desc limit 1`, served by audit_log_record_seq_idx. Null when no entry names the id.
 */
export async function chosenAuditRecord(db: DbOrTx, viewer: Actor, recordId: string): Promise<{ title: string; label: string } | null> {
  const [newest] = (await listAuditEntries(db, viewer, { record: recordId }, 1, 1)).rows;
  return newest?.record ? { title: newest.record.title, label: newest.record.label } : null;
}

/** The filtered entries as CSV rows (header first): at most AUDIT_EXPORT_LIMIT, newest first, times in `zone` (UTC by default). */
export async function auditCsvRows(db: DbOrTx, viewer: Actor, filter: AuditFilter, zone = 'UTC'): Promise<string[][]> {
  const rows: string[][] = [['Entry', zonedHeader('At', zone), 'Who', 'Through', 'Module', 'Action', 'Record type', 'Record', 'Record id', 'Changes', 'Details', 'Hash']];
  for (let page = 1; rows.length - 1 < AUDIT_EXPORT_LIMIT; page++) {
    const chunk = await listAuditEntries(db, viewer, filter, page, 500);
    for (const e of chunk.rows) {
      rows.push([
        String(e.seq), zone === 'UTC' ? e.at : zonedTime(e.at, zone, { seconds: true }), e.who, e.door, e.moduleLabel, e.actionLabel, e.record?.label ?? '', e.record?.title ?? '', e.recordId ?? '',
        e.hidden ? 'Not shown: you may not read this record' : e.changes.map((c) => (c.lines ? `${c.label}: ${c.lines.filter((l) => l.kind !== 'same').map((l) => `${l.kind === 'added' ? '+' : '-'} ${l.text}`).join(' / ')}` : `${c.label}: ${c.before.text} → ${c.after.text}`)).join('\n'),
        e.details.map((d) => `${d.label}: ${d.value}`).join('\n'), e.hash,
      ]);
    }
    if (chunk.rows.length < 500) break;
  }
  return rows.slice(0, AUDIT_EXPORT_LIMIT + 1);
}

