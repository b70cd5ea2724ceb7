import type { DbOrTx } from '../../../db/client';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { listBreaches, type BreachEntry } from '../incidents/service';
import { BREACH_CLOCK_STATES, type BreachEntryView, type BreachListQuery } from './schema';

const HOUR = 3_600_000;
/** Art. 33(1): the supervisory authority is notified without undue delay and, where feasible, within 72 hours of awareness. */
export const NOTIFICATION_HOURS = 72;

/**
 * The 72-hour clock of one breach. Incidents hold the day of awareness, not its hour, so the clock starts at 00:00 UTC
 * of that day (the earliest moment it may have begun) and a notification counts from the start of its day: notified
 * in time when that day begins before the deadline, late otherwise. Unnotified: hours left, or hours overdue.
 */
export function breachClock(entry: BreachEntry, now: Date): BreachEntryView {
  const base = {
    incidentId: entry.incidentId, title: entry.title, status: entry.status, categories: entry.categories, approximateSubjects: entry.approximateSubjects,
    awareOn: entry.detectedAt, authorityNotifiedOn: entry.authorityNotifiedOn, subjectsNotifiedOn: entry.subjectsNotifiedOn, owner: entry.owner,
  };
  if (!entry.detectedAt) return { ...base, deadline: null, clock: 'no_awareness_date', hoursLeft: null, hoursOverdue: null };
  const deadline = Date.parse(`${entry.detectedAt}T00:00:00Z`) + NOTIFICATION_HOURS * HOUR;
  const shown = { ...base, deadline: new Date(deadline).toISOString() };
  if (entry.authorityNotifiedOn) {
    const notified = Date.parse(`${entry.authorityNotifiedOn}T00:00:00Z`);
    return { ...shown, clock: notified < deadline ? 'notified_in_time' : 'notified_late', hoursLeft: null, hoursOverdue: null };
  }
  const left = deadline - now.getTime();
  return left > 0
    ? { ...shown, clock: 'running', hoursLeft: Math.floor(left / HOUR), hoursOverdue: null }
    : { ...shown, clock: 'overdue', hoursLeft: null, hoursOverdue: Math.floor(-left / HOUR) };
}

/** The clock states by urgency: what is overdue first, what has no awareness date last. */
const CLOCK_RANK: Record<(typeof BREACH_CLOCK_STATES)[number], number> = { overdue: 0, running: 1, notified_late: 2, notified_in_time: 3, no_awareness_date: 4 };

type Sortable = Exclude<BreachListQuery['sort'], undefined>;
/** Each sortable column's value; blanks sort last whichever the direction. */
const SORT_VALUES: Record<string, (b: BreachEntryView) => string | number | null> = {
  title: (b) => b.title.toLowerCase(),
  awareOn: (b) => b.awareOn,
  authorityNotifiedOn: (b) => b.authorityNotifiedOn,
  // By urgency, then the nearest deadline (fewest hours left, most overdue) first.
  clock: (b) => CLOCK_RANK[b.clock] * 1e9 + (b.clock === 'overdue' ? -(b.hoursOverdue ?? 0) : b.hoursLeft ?? 0),
  approximateSubjects: (b) => b.approximateSubjects,
  status: (b) => b.status,
  owner: (b) => b.owner?.toLowerCase() ?? null,
};

/** The breaches in the order asked for (the title, then the incident, break ties); without one, newest awareness first as read. */
export function sortBreaches(rows: BreachEntryView[], sort: Sortable | undefined): BreachEntryView[] {
  if (!sort) return rows;
  const descending = sort.startsWith('-');
  const value = SORT_VALUES[descending ? sort.slice(1) : sort];
  if (!value) return rows;
  return [...rows].sort((a, b) => {
    const x = value(a);
    const y = value(b);
    if (x === null || y === null) return x === y ? 0 : x === null ? 1 : -1;
    const order = x < y ? -1 : x > y ? 1 : 0;
    return (descending ? -order : order) || a.title.localeCompare(b.title) || a.incidentId.localeCompare(b.incidentId);
  });
}

/**
 * The breaches the reader may see, narrowed and ordered as asked: incidents:read at its level decides which (none
 * without it), each with its clock. Status, owner and words are narrowed by the database; the clock depends on the
 * moment of reading, so its filter applies to the clocks computed now.
 */
export async function breachesAsSeen(db: DbOrTx, actor: Actor, query: BreachListQuery = {}, now = new Date()): Promise<BreachEntryView[]> {
  const entries = await listBreaches(db, actor, { status: query.status, ownerId: query.ownerId, q: query.q });
  const views = entries.map((entry) => breachClock(entry, now)).filter((b) => !query.clock || b.clock === query.clock);
  return sortBreaches(views, query.sort);
}

/** Whether the reader may see any breach: they are incidents, so incidents:read at some level. */
export const mayReadBreaches = (actor: Actor) => levelOf(actor, 'incidents:read') !== null;

/** The clock in words: "31 hours left", "Overdue by 5 hours", "Notified in time". */
export function clockText(view: BreachEntryView): string {
  switch (view.clock) {
    case 'running': return `${view.hoursLeft} ${view.hoursLeft === 1 ? 'hour' : 'hours'} left`;
    case 'overdue': return `Overdue by ${view.hoursOverdue} ${view.hoursOverdue === 1 ? 'hour' : 'hours'}: not notified`;
    case 'notified_in_time': return 'Notified in time';
    case 'notified_late': return 'Notified late';
    default: return 'No awareness date recorded';
  }
}
