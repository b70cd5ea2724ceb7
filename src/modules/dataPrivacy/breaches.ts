import type { DbOrTx } from '../../../db/client';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { listBreaches, type BreachEntry } from '../incidents/service';
import type { BreachEntryView } from './schema';

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
    awareOn: entry.detectedAt, authorityNotifiedOn: entry.authorityNotifiedOn, subjectsNotifiedOn: entry.subjectsNotifiedOn,
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

/** The breaches the reader may see: incidents:read at its level decides which (none without it), each with its clock. */
export async function breachesAsSeen(db: DbOrTx, actor: Actor, now = new Date()): Promise<BreachEntryView[]> {
  return (await listBreaches(db, actor)).map((entry) => breachClock(entry, now));
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
