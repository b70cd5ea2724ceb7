import { Type, type Static } from '@sinclair/typebox';
import { and, asc, eq, inArray, isNull, lt, or } from 'drizzle-orm';
import type { DbOrTx, Tx } from '../../../db/client';
import { groupMembers, groups, outbox, reportSchedules, users } from '../../../db/schema';
import { appendAudit } from '../audit/audit';
import { recordChange } from '../audit/history';
import { AppError, invalid, notFound, type FieldProblem } from '../core/errors';
import { log } from '../core/log';
import { toCsv } from '../csv/write';
import type { AppContext } from '../http/context';
import { schemaProblems } from '../http/form-input';
import { platformService } from '../http/installed';
import { textAttachment } from '../mail/mail';
import { notificationSettings } from './settings';
import { dayAndHourIn, mailLink } from './wording';
import { plural } from '../core/text';
import { levelOf, requirePermission, systemActor, type Actor } from '../permissions/permissions';
import { brandingOf } from '../branding/branding';
import { checkFilters, describeFilters, installedReports, type InstalledReport } from '../reports/declarations';
import type { HistoryDescription } from '../records/history-format';
import { EVENT_LABELS } from './declarations';

/**
 * Scheduled reports: a report of the Report Center with its filters, mailed as a CSV attachment to people and groups of
 * the organisation by the background sweep (docs/reports.md). Each recipient's CSV is the report read with their own
 * actor, so they receive the rows they may read at their level and nothing else; a recipient without the report's right
 * (or deactivated) is skipped and named on the schedule's page.
 */

const Uuid = Type.String({ format: 'uuid' });
export const SCHEDULE_FREQUENCIES = ['daily', 'weekly', 'monthly'] as const;
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'] as const;

/** A scheduled report as the form (and the service) takes it. */
export const ReportScheduleInput = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  reportKey: Type.String({ minLength: 1, maxLength: 100 }),
  filters: Type.Record(Type.String({ maxLength: 100 }), Type.String({ maxLength: 200 })),
  frequency: Type.Union(SCHEDULE_FREQUENCIES.map((f) => Type.Literal(f))),
  weekday: Type.Union([Type.Integer({ minimum: 1, maximum: 7 }), Type.Null()]),
  monthDay: Type.Union([Type.Integer({ minimum: 1, maximum: 31 }), Type.Null()]),
  userIds: Type.Array(Uuid, { maxItems: 200 }),
  groupIds: Type.Array(Uuid, { maxItems: 200 }),
  paused: Type.Boolean(),
}, { additionalProperties: false });
export type ReportScheduleInput = Static<typeof ReportScheduleInput>;

export type ReportSchedule = typeof reportSchedules.$inferSelect;

export const scheduleInput = (s: ReportSchedule): ReportScheduleInput => ({
  name: s.name, reportKey: s.reportKey, filters: s.filters, frequency: s.frequency, weekday: s.weekday, monthDay: s.monthDay,
  userIds: s.userIds, groupIds: s.groupIds, paused: s.paused,
});

/** The report a schedule names, or undefined when no module declares it any more. */
export const reportOf = (key: string): InstalledReport | undefined => installedReports().find((r) => r.key === key);

/** "Every Monday", "Every day", "On the 31st of each month (the last day in shorter months)". */
export function describeSchedule(s: Pick<ReportSchedule, 'frequency' | 'weekday' | 'monthDay'>, hour: number, timeZone: string): string {
  const at = `at ${String(hour).padStart(2, '0')}:00 ${timeZone}`;
  if (s.frequency === 'daily') return `Every day ${at}`;
  if (s.frequency === 'weekly') return `Every ${WEEKDAYS[(s.weekday ?? 1) - 1]} ${at}`;
  const d = s.monthDay ?? 1;
  const suffix = d % 10 === 1 && d !== 11 ? 'st' : d % 10 === 2 && d !== 12 ? 'nd' : d % 10 === 3 && d !== 13 ? 'rd' : 'th';
  return `On the ${d}${suffix} of each month ${at}${d > 28 ? ' (the last day in shorter months)' : ''}`;
}

function requireScheduleManager(actor: Actor): void {
  if (requirePermission(actor, 'settings:update') !== 'all') {
    throw Object.assign(new AppError('FORBIDDEN', 'forbidden', [], 'settings:update at level all needed for scheduled reports'), { actor });
  }
}

async function scheduleProblems(ctx: AppContext, db: DbOrTx, actor: Actor, input: ReportScheduleInput): Promise<{ problems: FieldProblem[]; filters: Record<string, string> }> {
  const problems = schemaProblems(ReportScheduleInput, input);
  if (problems.length) return { problems, filters: {} };
  const report = reportOf(input.reportKey);
  if (!report) return { problems: [{ field: 'reportKey', message: `there is no report "${input.reportKey}"` }], filters: {} };
  let filters: Record<string, string> = {};
  try {
    filters = await checkFilters({ ...ctx, db }, actor, report, input.filters);
  } catch (error) {
    // Named as the form's inputs (filter.<name>), so the problem shows beside its select.
    if (error instanceof AppError) problems.push(...error.problems.map((p) => ({ field: `filter.${p.field}`, message: p.message })));
    else throw error;
  }
  if (input.frequency === 'weekly' && input.weekday === null) problems.push({ field: 'weekday', message: 'choose the day of the week' });
  if (input.frequency === 'monthly' && input.monthDay === null) problems.push({ field: 'monthDay', message: 'choose the day of the month (1 to 31)' });
  const [knownUsers, knownGroups] = await Promise.all([
    input.userIds.length ? db.select({ id: users.id }).from(users).where(inArray(users.id, input.userIds)) : [],
    input.groupIds.length ? db.select({ id: groups.id }).from(groups).where(inArray(groups.id, input.groupIds)) : [],
  ]);
  if (knownUsers.length !== new Set(input.userIds).size) problems.push({ field: 'userIds', message: 'names a user that does not exist' });
  if (knownGroups.length !== new Set(input.groupIds).size) problems.push({ field: 'groupIds', message: 'names a group that does not exist' });
  if (!input.userIds.length && !input.groupIds.length) problems.push({ field: 'recipients', message: 'choose at least one person or group to send the report to' });
  return { problems, filters };
}

function normalised(input: ReportScheduleInput, filters: Record<string, string>): ReportScheduleInput {
  return {
    ...input, name: input.name.trim(), filters,
    weekday: input.frequency === 'weekly' ? input.weekday : null,
    monthDay: input.frequency === 'monthly' ? input.monthDay : null,
    userIds: [...new Set(input.userIds)], groupIds: [...new Set(input.groupIds)],
  };
}

export async function listSchedules(db: DbOrTx, actor: Actor): Promise<ReportSchedule[]> {
  requirePermission(actor, 'settings:read');
  return db.select().from(reportSchedules).orderBy(asc(reportSchedules.name), asc(reportSchedules.id));
}

export async function getSchedule(db: DbOrTx, actor: Actor, id: string): Promise<ReportSchedule> {
  requirePermission(actor, 'settings:read');
  const [found] = /^[0-9a-f-]{36}$/i.test(id) ? await db.select().from(reportSchedules).where(eq(reportSchedules.id, id)) : [];
  if (!found) throw notFound(`Scheduled report ${id}`);
  return found;
}

/** Creating, changing, pausing and deleting needs settings:update at level all; each is in the Audit Log and History. */
export async function createSchedule(ctx: AppContext, tx: DbOrTx, actor: Actor, input: ReportScheduleInput): Promise<{ id: string }> {
  requireScheduleManager(actor);
  const { problems, filters } = await scheduleProblems(ctx, tx, actor, input);
  if (problems.length) throw invalid(problems);
  const values = normalised(input, filters);
  const [row] = await tx.insert(reportSchedules).values({ ...values, createdBy: actor.userId }).returning({ id: reportSchedules.id });
  await recordChange(tx, actor, { module: 'settings', recordType: 'reportSchedule', recordId: row.id, action: 'create', before: null, after: { ...values } });
  return row;
}

export async function updateSchedule(ctx: AppContext, tx: DbOrTx, actor: Actor, id: string, input: ReportScheduleInput): Promise<void> {
  requireScheduleManager(actor);
  const before = await getSchedule(tx, actor, id);
  const { problems, filters } = await scheduleProblems(ctx, tx, actor, input);
  if (problems.length) throw invalid(problems);
  const values = normalised(input, filters);
  await tx.update(reportSchedules).set({ ...values, updatedAt: new Date() }).where(eq(reportSchedules.id, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'reportSchedule', recordId: id, action: 'update', before: { ...scheduleInput(before) }, after: { ...values } });
}

/** Pausing stops the mails until resumed; recorded as a change of `paused` with its own Audit Log action. */
export async function setSchedulePaused(tx: DbOrTx, actor: Actor, id: string, paused: boolean): Promise<void> {
  requireScheduleManager(actor);
  const before = await getSchedule(tx, actor, id);
  if (before.paused === paused) return;
  await tx.update(reportSchedules).set({ paused, updatedAt: new Date() }).where(eq(reportSchedules.id, id));
  await recordChange(tx, actor, {
    module: 'settings', recordType: 'reportSchedule', recordId: id, action: paused ? 'pause' : 'resume',
    before: { paused: before.paused }, after: { paused },
  });
}

export async function deleteSchedule(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  requireScheduleManager(actor);
  const before = await getSchedule(tx, actor, id);
  await tx.delete(reportSchedules).where(eq(reportSchedules.id, id));
  await recordChange(tx, actor, { module: 'settings', recordType: 'reportSchedule', recordId: id, action: 'delete', before: { ...scheduleInput(before) }, after: null });
}

/* ---------- Recipients ---------- */

export interface Recipient {
  userId: string;
  name: string;
  email: string;
  /** The person's actor, or null when skipped. */
  actor: Actor | null;
  /** Why the person is skipped, in words. */
  skipped: string | null;
}

/** The named people and the members of the named groups, each with their actor or why they are skipped. */
export async function recipientsOf(db: DbOrTx, schedule: Pick<ReportSchedule, 'userIds' | 'groupIds' | 'reportKey'>): Promise<Recipient[]> {
  const members = schedule.groupIds.length
    ? await db.select({ userId: groupMembers.userId }).from(groupMembers).where(inArray(groupMembers.groupId, schedule.groupIds))
    : [];
  const ids = [...new Set([...schedule.userIds, ...members.map((m) => m.userId)])];
  if (!ids.length) return [];
  const people = await db.select({ id: users.id, name: users.name, email: users.email, status: users.status }).from(users)
    .where(inArray(users.id, ids)).orderBy(asc(users.name));
  const report = reportOf(schedule.reportKey);
  const out: Recipient[] = [];
  for (const person of people) {
    const base = { userId: person.id, name: person.name, email: person.email };
    if (person.status !== 'active') { out.push({ ...base, actor: null, skipped: 'deactivated' }); continue; }
    const actor = await platformService('screenActor')(db, person.id);
    if (!actor) { out.push({ ...base, actor: null, skipped: 'cannot sign in' }); continue; }
    if (!report) { out.push({ ...base, actor: null, skipped: 'the report is no longer installed' }); continue; }
    if (levelOf(actor, report.needs) === null) { out.push({ ...base, actor: null, skipped: `no longer holds ${report.needs} (the report's right)` }); continue; }
    out.push({ ...base, actor, skipped: null });
  }
  return out;
}

/* ---------- Periods ---------- */

const addDays = (day: string, days: number) => new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const isoWeekday = (day: string) => ((new Date(`${day}T00:00:00Z`).getUTCDay() + 6) % 7) + 1;
const lastDayOf = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * The day of the latest period a schedule is due for, up to `today` (a date in the notifications time zone whose
 * hour has come): today for daily; the last chosen weekday for weekly; the chosen day of this month (or the month's
 * last day), else of last month, for monthly. A period is sent once: when `last_period` is older.
 */
export function dueOn(s: Pick<ReportSchedule, 'frequency' | 'weekday' | 'monthDay'>, today: string): string {
  if (s.frequency === 'daily') return today;
  if (s.frequency === 'weekly') return addDays(today, -((isoWeekday(today) - (s.weekday ?? 1) + 7) % 7));
  const [y, m, d] = today.split('-').map(Number);
  const thisMonth = Math.min(s.monthDay ?? 1, lastDayOf(y, m));
  if (d >= thisMonth) return `${y}-${String(m).padStart(2, '0')}-${String(thisMonth).padStart(2, '0')}`;
  const [py, pm] = m === 1 ? [y - 1, 12] : [y, m - 1];
  return `${py}-${String(pm).padStart(2, '0')}-${String(Math.min(s.monthDay ?? 1, lastDayOf(py, pm))).padStart(2, '0')}`;
}

/** The day whose reports are due now: today in the notifications zone once its hour has come, else yesterday. */
export async function reportDay(db: DbOrTx, now = new Date()): Promise<{ day: string; timeZone: string; hour: number }> {
  const settings = await notificationSettings(db);
  const { day, hour } = dayAndHourIn(now, settings.timeZone);
  return { day: hour >= settings.reminderHour ? day : addDays(day, -1), timeZone: settings.timeZone, hour: settings.reminderHour };
}

/* ---------- Sending (the sweep, under its advisory lock) ---------- */

/**
 * Sends every schedule due, inside the sweep's locked transaction. Each schedule is claimed by moving its `last_period`
 * with a conditional UPDATE (the row lock and the re-checked condition make a period sent once even outside the lock),
 * and its mails are queued in the outbox in the same savepoint: a failure rolls both back and the period is tried again
 * at the next sweep, its outcome saying why.
 */
export async function sendDueReports(ctx: AppContext, tx: Tx, now = new Date()): Promise<number> {
  const { day } = await reportDay(tx, now);
  const candidates = await tx.select().from(reportSchedules).where(and(eq(reportSchedules.paused, false),
    or(isNull(reportSchedules.lastPeriod), lt(reportSchedules.lastPeriod, day)))).orderBy(asc(reportSchedules.id));
  const { timeZone } = await notificationSettings(tx);
  let sent = 0;
  for (const schedule of candidates) {
    const period = dueOn(schedule, day);
    const created = dayAndHourIn(schedule.createdAt, timeZone).day;
    if (period < created || (schedule.lastPeriod !== null && schedule.lastPeriod >= period)) continue;
    try {
      sent += await tx.transaction((sp) => sendOne(ctx, sp, schedule, period));
    } catch (error) {
      log.error('scheduled report failed', { scheduleId: schedule.id, error: String(error) });
      await tx.update(reportSchedules).set({ lastRunAt: new Date(), lastOutcome: `Failed: ${String(error instanceof Error ? error.message : error).slice(0, 300)}; tried again at the next sweep` })
        .where(eq(reportSchedules.id, schedule.id));
    }
  }
  return sent;
}

async function sendOne(ctx: AppContext, tx: Tx, schedule: ReportSchedule, period: string): Promise<number> {
  const claimed = await tx.update(reportSchedules).set({ lastPeriod: period, lastRunAt: new Date() })
    .where(and(eq(reportSchedules.id, schedule.id), eq(reportSchedules.paused, false), or(isNull(reportSchedules.lastPeriod), lt(reportSchedules.lastPeriod, period))))
    .returning({ id: reportSchedules.id });
  if (claimed.length === 0) return 0;
  const report = reportOf(schedule.reportKey);
  const recipients = await recipientsOf(tx, schedule);
  const skipped = recipients.filter((r) => r.skipped).map((r) => ({ name: r.name, reason: r.skipped! }));
  const readers = recipients.filter((r) => r.actor);
  const brand = await brandingOf(tx);
  const local: AppContext = { ...ctx, db: tx };
  const mails = [];
  for (const reader of report ? readers : []) {
    // The mail carries at most the printable page's rows (PRINTABLE_LIMIT): a file kept in the outbox, not streamed.
    const { cells, total } = await report!.table(local, reader.actor!, schedule.filters);
    const truncated = total > cells.length;
    const filters = await describeFilters(local, reader.actor!, report!, schedule.filters);
    const body = [
      `Hello ${reader.name},`, '',
      `${report!.title}: ${report!.description}`,
      filters ? `Filtered by ${filters}.` : 'Not filtered.',
      truncated
        ? `${plural(total, 'row')} you may read, as of ${period}; the attached CSV holds the first ${cells.length.toLocaleString('en')} (the report's CSV on screen holds them all).`
        : `${plural(cells.length, 'row')} you may read, as of ${period}, in the attached CSV.`,
      `On screen: ${mailLink(ctx.config, `/reports/${report!.key}`)}`, '',
      `You receive this because the scheduled report "${schedule.name}" names you or one of your groups.`,
      `— ${brand.name}`,
    ].join('\n');
    mails.push({
      kind: 'scheduledReport', recipients: [reader.email], subject: `${brand.name}: ${schedule.name} (${period})`, body,
      attachments: [textAttachment(`${report!.key}-${period}.csv`, 'text/csv; charset=utf-8', toCsv([[...report!.headers], ...cells]))],
    });
  }
  if (mails.length) await tx.insert(outbox).values(mails);
  const outcome = !report ? 'Not sent: the report is no longer installed'
    : mails.length ? `Sent to ${plural(mails.length, 'person', 'people')}${skipped.length ? `; ${skipped.length} skipped` : ''}`
      : 'Not sent: every recipient was skipped';
  await tx.update(reportSchedules).set({ lastOutcome: outcome, skipped }).where(eq(reportSchedules.id, schedule.id));
  await appendAudit(tx, systemActor(), [{
    module: 'settings', action: 'reportSchedule.sent', recordType: 'reportSchedule', recordId: schedule.id,
    details: { period, sentTo: mails.length, skipped: skipped.map((s) => s.name) },
  }]);
  return mails.length;
}

/** For tests and the page: whether a schedule's row changed under us (reads the stored schedule). */
export const storedSchedule = (db: DbOrTx, id: string) => db.select().from(reportSchedules).where(eq(reportSchedules.id, id)).then((r) => r[0]);

/**
 * How History and the Audit Log word the platform's own settings records: a notification rule's event and a report
 * schedule's frequency and report by their labels (the forms' words), each record named by its name.
 */
export const settingsHistoryDescriptions = (): HistoryDescription[] => [
  { recordType: 'notificationRule', label: 'Notification rule', module: 'settings', fields: {}, titleField: 'name', values: { event: EVENT_LABELS } },
  {
    recordType: 'reportSchedule', label: 'Report schedule', module: 'settings', fields: { reportKey: 'Report' }, titleField: 'name',
    values: {
      frequency: { daily: 'Daily', weekly: 'Weekly', monthly: 'Monthly' },
      weekday: Object.fromEntries(WEEKDAYS.map((day, i) => [String(i + 1), day])),
      // The installed reports' titles, read when an entry is worded (the reports are installed after the descriptions).
      get reportKey() { return Object.fromEntries(installedReports().map((r) => [r.key, r.title])); },
    },
  },
];
