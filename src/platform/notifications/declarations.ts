import { getTableColumns, inArray, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { DbOrTx } from '../../../db/client';
import { readable } from '../record-screens/record-views';
import type { NamedLink } from '../records/links';
import type { Module, Owned } from '../permissions/permissions';

/**
 * What modules declare in their manifests for notifications: the record types whose changes rules can mail about
 * (`events`), and the dates the daily reminder sweep reminds owners of (`dueDates`). The platform derives the rule form,
 * the rule mails, the digests and their preview from these alone; a new module adds its own and touches nothing here.
 */

export const RULE_EVENTS = ['created', 'changed', 'field_changed', 'status_changed', 'assigned', 'recorded', 'deleted'] as const;
export type RuleEvent = (typeof RULE_EVENTS)[number];

export const EVENT_LABELS: Record<RuleEvent, string> = {
  created: 'Created',
  changed: 'Changed (any change)',
  field_changed: 'A field changed',
  status_changed: 'Status changed to a value',
  assigned: 'Assigned to someone',
  recorded: 'A comment, review or decision recorded',
  deleted: 'Deleted',
};

/** A record as a mail needs it: its title and who owns it (the first pair is its own owner and owner group). */
export interface StoredRecord {
  title: string;
  /** Owner pairs that let an own-level reader read it: its own, and for some types its parent's (an exception's risk). */
  owners: Owned[];
  /** Its screen, when the record type's href cannot tell it from the id alone (a treatment is shown on its risk). */
  href?: string;
}

/**
 * Something recorded about a record beyond a change of its fields (spec: "a comment, review or decision recorded"):
 * another record type written with the parent's id in `parentField` (a risk review), or actions on the record itself
 * (an exception's approve and reject).
 */
export interface Activity {
  key: string;
  /** 'Review recorded'. */
  label: string;
  recordType?: string;
  parentField?: string;
  actions?: readonly string[];
}

export interface RecordEvents {
  /** As History stores it: 'risk', 'riskTreatment'. */
  recordType: string;
  /** 'Risk'. */
  label: string;
  /** The module whose read right lets a person read these records (and whose label groups them in the rule form). */
  module: Module;
  /** The record's screen; none for records without one. */
  href?(id: string): string;
  /** Fields a rule may name, by the key History uses, with their labels. */
  fields: Readonly<Record<string, string>>;
  /** The field holding the title, for records already deleted (their title is in History). */
  titleField: string;
  /** Status values and their labels, when the record has a status. */
  statuses?: Readonly<Record<string, string>>;
  statusField?: string;
  /** Other fields holding keys of a fixed list, with their values' labels (an exception's parent type: "Risk"). */
  values?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Fields holding user ids and group ids: shown by name. */
  people?: readonly string[];
  groups?: readonly string[];
  /** Fields holding the id of a record of another type (its record-type kind): shown by name, or "(restricted)" to a reader who may not read it. */
  links?: Readonly<Record<string, string>>;
  /** Names History keeps beside linked ids (a third party's linked risk's title). */
  historyLinks?: readonly NamedLink[];
  activities?: readonly Activity[];
  /** Titles and owners of records by id, as stored now. */
  load(db: DbOrTx, ids: string[]): Promise<Map<string, StoredRecord>>;
}

/** The window of one daily sweep, as SQL values a due-date query compares with. */
export interface ReminderWindow {
  /** The sweep's day (a date) in the configured time zone. */
  today: SQL;
  /** The previous sweep's day, or null before the first sweep. */
  since: SQL;
  /** When the previous sweep started, or null. */
  sinceAt: SQL;
}

/**
 * A kind of fixed reminder. `query` is ONE select over the module's tables with the columns
 * `record_id` (text), `title` (text), `due_on` (date), `owner_id`, `owner_group_id` (uuid) and `note` (text or null):
 * every record due, overdue or reaching a milestone for the window. The platform adds the recipients (the owner, else
 * the owner group's members), the read right, opt-outs, and groups the result per person; never a loop over records.
 */
export interface DueDateKind {
  /** Stable key: 'riskReviews'. */
  key: string;
  /** Heading in the digest: 'Risk reviews due'. */
  label: string;
  /** Reading the listed records needs `<module>:read` (the recipient owns them, so any level). */
  module: Module;
  /** How the date reads in a digest: 'due' (overdue after it) or 'expires'. */
  dateWord: 'due' | 'expires';
  /**
   * The items are the recipient's own assignments (a person's training): reminded to the person in `owner_id` without
   * the module's read right, which people taking their training do not hold.
   */
  personal?: boolean;
  href(id: string): string;
  query(window: ReminderWindow): SQL;
}

/**
 * A due date as a manifest declares it: of a declared record type (`recordType`: the kind's, as its History names it),
 * whose permission area and screen come from the type's declaration when the modules are installed; or in full.
 */
export type DueDateDeclaration = DueDateKind | (Omit<DueDateKind, 'module' | 'href'> & { recordType: string });

const BOOKKEEPING = new Set(['id', 'createdAt', 'updatedAt', 'createdBy', 'searchVector']);

/** The label a field key reads as when the module gives none: 'reviewFrequencyMonths' → 'Review frequency months'. */
export const fieldLabel = (key: string) => readable(key.replace(/Id$/, ''));

interface OwnedTableEvents {
  recordType: string;
  label: string;
  module: Module;
  table: PgTable & { id: PgColumn; ownerId: PgColumn; ownerGroupId: PgColumn };
  titleColumn: PgColumn;
  statusColumn?: PgColumn;
  href?(id: string): string;
  /** Labels where the field's key does not read well on its own. */
  labels?: Readonly<Record<string, string>>;
  people?: readonly string[];
  links?: Readonly<Record<string, string>>;
  historyLinks?: readonly NamedLink[];
  activities?: readonly Activity[];
}

const keyOf = (table: PgTable, column: PgColumn): string =>
  Object.entries(getTableColumns(table)).find(([, c]) => c === column)?.[0] ?? column.name;

/**
 * Events of an owned register (a table with owner_id and owner_group_id): fields from the table's columns, statuses from
 * the status column's values, titles and owners read from the table.
 */
export function ownedRecordEvents(o: OwnedTableEvents): RecordEvents {
  const columns = getTableColumns(o.table);
  const fields = Object.fromEntries(Object.keys(columns).filter((key) => !BOOKKEEPING.has(key))
    .map((key) => [key, o.labels?.[key] ?? (key === 'ownerGroupId' ? 'Owner group' : fieldLabel(key))]));
  const values = (o.statusColumn as (PgColumn & { enumValues?: string[] }) | undefined)?.enumValues;
  return {
    recordType: o.recordType, label: o.label, module: o.module, href: o.href, fields, titleField: keyOf(o.table, o.titleColumn),
    ...(o.statusColumn && values ? { statusField: keyOf(o.table, o.statusColumn), statuses: Object.fromEntries(values.map((v) => [v, readable(v)])) } : {}),
    people: ['ownerId', ...(o.people ?? [])], groups: ['ownerGroupId'], links: o.links, historyLinks: o.historyLinks, activities: o.activities,
    async load(db, ids) {
      if (ids.length === 0) return new Map();
      const rows = await db.select({ id: o.table.id, title: o.titleColumn, ownerId: o.table.ownerId, ownerGroupId: o.table.ownerGroupId })
        .from(o.table as PgTable).where(inArray(o.table.id, ids)) as { id: string; title: string; ownerId: string | null; ownerGroupId: string | null }[];
      return new Map(rows.map((r) => [r.id, { title: r.title, owners: [{ ownerId: r.ownerId, ownerGroupId: r.ownerGroupId }] }]));
    },
  };
}

/**
 * The register kit's kinds carry most of what ownedRecordEvents needs; the link to a record's screen comes from its
 * record type's declaration (installModules) unless `href` names another.
 */
export function kindEvents(
  kind: { module: Module; recordType: string; label: string; table: OwnedTableEvents['table']; titleColumn: PgColumn; statusColumn?: PgColumn; historyLinks?: readonly NamedLink[] },
  more: Omit<OwnedTableEvents, 'recordType' | 'label' | 'module' | 'table' | 'titleColumn' | 'statusColumn'> = {},
): RecordEvents {
  return ownedRecordEvents({
    recordType: kind.recordType, label: kind.label, module: kind.module, table: kind.table, titleColumn: kind.titleColumn,
    statusColumn: kind.statusColumn, historyLinks: kind.historyLinks, ...more,
  });
}

/** `date` plus `months` whole months as a date (the last day of a shorter month, as addMonths in src/platform/core/dates.ts). */
export const monthsAfter = (date: SQL | PgColumn, months: SQL | PgColumn): SQL =>
  sql`(${date} + make_interval(months => ${months}))::date`;

/**
 * For dates reminded at milestones before them (an exception 30 and 7 days before it expires, and on the day): true
 * when the latest milestone reached by the window's day was not reached at the previous sweep (so a day missed while
 * paused or down is caught up), or the record changed since the previous sweep started (a record loaded or given a new
 * date is reminded of the milestone it is at). Before the first sweep every reached milestone counts.
 */
export function milestoneReached(window: ReminderWindow, date: SQL | PgColumn, changedAt: SQL | PgColumn, daysBefore: readonly number[] = [30, 7, 0]): SQL {
  const sorted = [...daysBefore].sort((a, b) => a - b);
  // Whole days as literals: a parameter there would be taken for a date, and date - date is a number of days.
  const latest = sql.join([sql`case`, ...sorted.map((days) => sql` when ${date} - ${sql.raw(String(Math.trunc(days)))} <= ${window.today} then ${date} - ${sql.raw(String(Math.trunc(days)))}`), sql` end`], sql``);
  return sql`((${latest}) is not null and (${window.since} is null or (${latest}) > ${window.since} or ${changedAt} >= ${window.sinceAt}))`;
}

let declaredEvents: readonly RecordEvents[] = [];
let declaredDueDates: readonly DueDateKind[] = [];

/** Called by installModules with every module's declarations (the notifications layer reads them here, not from the manifests). */
export function installNotifications(events: readonly RecordEvents[], dueDates: readonly DueDateKind[]): void {
  declaredEvents = events;
  declaredDueDates = dueDates;
}

/** Every installed module's record types that notification rules can name. */
export const recordEvents = (): RecordEvents[] => [...declaredEvents];

/** Every installed module's kinds of fixed reminder. */
export const dueDateKinds = (): DueDateKind[] => [...declaredDueDates];
