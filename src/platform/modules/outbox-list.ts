/**
 * Settings › Outbox as a list: searched, filtered, sorted and paged in SQL (the outbox grows with every mail), and the
 * same rows as CSV (kinds and states in words, times in the reader's zone; never a body: mails carry reset links).
 */
import { and, asc, count, desc, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { outbox } from '../../../db/schema';
import { escapeLike } from '../records/records';
import { everyRow, LIST_PAGE_SIZE, listState, type ListPage, type ListState } from '../http/list-query';
import type { CsvColumn } from '../csv/list-download';
import { zonedHeader, zonedTime } from '../csv/zone';
import { MAX_ATTEMPTS } from '../mail/mail';

type Query = Record<string, string | undefined>;

/** What each kind of mail is, in words (a kind not listed reads as its key with its separators as spaces). */
const KIND_LABELS: Readonly<Record<string, string>> = {
  digest: 'Daily reminder digest', rule: 'Notification rule', scheduledReport: 'Scheduled report', 'password.reset': 'Password reset',
  'security-alert': 'Security alert', 'assessment.invitation': 'Assessment invitation', 'assessment.reminder': 'Assessment reminder',
  'assessment.returned': 'Assessment returned', 'assessment.submitted': 'Assessment submitted',
  'privacy.questionnaire.sent': 'Privacy questionnaire sent', 'privacy.questionnaire.answered': 'Privacy questionnaire answered',
};

export const mailKindLabel = (kind: string): string => {
  const words = kind.replace(/[._-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  return KIND_LABELS[kind] ?? words.charAt(0).toUpperCase() + words.slice(1);
};

type OutboxState = 'queued' | 'sent' | 'refused' | 'failed';
export const OUTBOX_STATE_LABELS: Readonly<Record<OutboxState, string>> = {
  queued: 'Queued', sent: 'Sent', refused: 'Sent, refused for some recipients', failed: 'Failed',
};
const isOutboxState = (value: string): value is OutboxState => Object.hasOwn(OUTBOX_STATE_LABELS, value);

export const OUTBOX_SORTS = ['createdAt', 'kind', 'subject'] as const;

const refusedSome = sql`coalesce(cardinality(${outbox.rejected}), 0) > 0`;
const STATE_CONDITIONS: Record<OutboxState, SQL> = {
  queued: sql`${outbox.sentAt} is null and ${outbox.attempts} < ${MAX_ATTEMPTS}`,
  sent: sql`${outbox.sentAt} is not null and not ${refusedSome}`,
  refused: sql`${outbox.sentAt} is not null and ${refusedSome}`,
  failed: sql`${outbox.sentAt} is null and ${outbox.attempts} >= ${MAX_ATTEMPTS}`,
};

export type OutboxRow = typeof outbox.$inferSelect;

/** The state of a mail (OUTBOX_STATE_LABELS). */
export function outboxState(m: Pick<OutboxRow, 'sentAt' | 'rejected' | 'attempts'>): OutboxState {
  if (m.sentAt) return m.rejected?.length ? 'refused' : 'sent';
  return m.attempts >= MAX_ATTEMPTS ? 'failed' : 'queued';
}

/** The kinds of mail the outbox holds, for the kind filter: key and words, by the words. */
export async function outboxKinds(db: DbOrTx): Promise<{ value: string; label: string }[]> {
  const rows = await db.selectDistinct({ kind: outbox.kind }).from(outbox);
  return rows.map((r) => ({ value: r.kind, label: mailKindLabel(r.kind) })).sort((a, b) => a.label.localeCompare(b.label));
}

/** The outbox list's state from its address; the kind filter takes the kinds the outbox holds. */
export const outboxListState = (query: Query, kinds: readonly string[]): ListState =>
  listState(query, { state: Object.keys(OUTBOX_STATE_LABELS), kind: kinds }, OUTBOX_SORTS);

function condition(s: ListState): SQL | undefined {
  const like = s.q ? `%${escapeLike(s.q)}%` : null;
  const state = s.filters.state ?? '';
  return and(
    like ? or(ilike(outbox.subject, like), sql`array_to_string(${outbox.recipients}, ' ') ilike ${like}`) : undefined,
    isOutboxState(state) ? STATE_CONDITIONS[state] : undefined,
    s.filters.kind ? sql`${outbox.kind} = ${s.filters.kind}` : undefined,
  );
}

function order(sort: string): SQL[] {
  const key = sort.replace(/^-/, '') || 'createdAt';
  const way = sort === '' || sort.startsWith('-') ? desc : asc;
  const column = key === 'kind' ? outbox.kind : key === 'subject' ? outbox.subject : outbox.createdAt;
  return [way(column), desc(outbox.id)];
}

/** A page of mails matching the state, newest first unless asked otherwise, with the total. */
export async function listOutboxPage(db: DbOrTx, s: ListState, page = s.page, pageSize = LIST_PAGE_SIZE): Promise<ListPage<OutboxRow>> {
  const where = condition(s);
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(outbox).where(where).orderBy(...order(s.sort)).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(outbox).where(where),
  ]);
  return { rows, total, page, pageSize };
}

/** Every mail of the state up to the export limit, in the list's order. */
export const outboxRows = (db: DbOrTx, s: ListState): Promise<OutboxRow[]> => everyRow((page, size) => listOutboxPage(db, s, page, size), 500);

export const outboxCsvColumns = (zone: string): CsvColumn<OutboxRow>[] => [
  { header: zonedHeader('Queued', zone), cell: (m) => zonedTime(m.createdAt, zone) },
  { header: 'Kind', cell: (m) => mailKindLabel(m.kind) },
  { header: 'To', cell: (m) => m.recipients.join('; ') },
  { header: 'Subject', cell: (m) => m.subject },
  { header: 'Status', cell: (m) => OUTBOX_STATE_LABELS[outboxState(m)] },
  { header: zonedHeader('Sent', zone), cell: (m) => zonedTime(m.sentAt, zone) },
  { header: 'Refused for', cell: (m) => (m.rejected ?? []).join('; ') },
  { header: 'Attempts', cell: (m) => m.attempts },
  { header: 'Last error', cell: (m) => m.lastError ?? '' },
  { header: 'Attachments', cell: (m) => (m.attachments ?? []).map((a) => a.filename).join('; ') },
];
