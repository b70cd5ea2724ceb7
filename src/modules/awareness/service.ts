import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lte, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { awarenessPrograms, awarenessResults, groupMembers, groups, users, type StoredQuestion } from '../../../db/schema';
import { conflict, forbidden, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { listHistory, recordChange, recordChanges, type HistoryView } from '../../platform/audit/history';
import { paging, type Page } from '../../platform/http/paging';
import { levelOf, systemActor, type Actor } from '../../platform/permissions/permissions';
import { escapeLike, getRecord, loadForAction, referencedBy, type RecordKind } from '../../platform/records/records';
import { isUuid } from '../../platform/core/uuid';
import { addMonths, isRealDate, todayIso } from '../../platform/core/dates';
import { toCsv } from '../../platform/csv/write';
import type { CompletionView, ProgramCreate, ResultListQuery, ResultView, Submission, TrainingView } from './schema';
import { inDefinedOrder, ownerNameSort } from '../../platform/records/sort-keys';
import { PROGRAM_STATUSES } from './schema';

const MODULE = 'awareness';
/** Stored in the Audit Log and History for a person's result. */
export const RESULT_RECORD_TYPE = 'awarenessResult';

function questionProblems(questions: readonly StoredQuestion[]): FieldProblem[] {
  return questions.flatMap((q, i) => {
    const field = `questions.${i}`;
    const problems: FieldProblem[] = [];
    if (!q.text.trim()) problems.push({ field, message: 'the question must not be blank' });
    if (q.correct.some((c) => c >= q.choices.length)) problems.push({ field, message: `a right answer points past the ${q.choices.length} choices` });
    if (q.kind === 'single' && q.correct.length !== 1) problems.push({ field, message: 'a single-choice question has exactly one right choice' });
    return problems;
  });
}

/** The day a recurring program's next round starts. */
export const nextRound = (startsOn: string, months: number) => addMonths(startsOn, months);

/** A recurring program needs a period, and the period must end before the next round starts. */
function recurrenceProblems(candidate: Pick<ProgramCreate, 'recurrenceMonths' | 'startsOn' | 'endsOn'>): FieldProblem[] {
  const months = candidate.recurrenceMonths;
  if (!months) return [];
  if (!candidate.startsOn || !candidate.endsOn) return [{ field: 'recurrenceMonths', message: 'a recurring program needs a start and an end date (each round runs for that period)' }];
  if (!isRealDate(candidate.startsOn) || !isRealDate(candidate.endsOn)) return [];
  const next = nextRound(candidate.startsOn, months);
  return candidate.endsOn >= next ? [{ field: 'endsOn', message: `must be before the next round starts on ${next} (${months} month${months === 1 ? '' : 's'} after the start)` }] : [];
}

export const programKind: RecordKind<typeof awarenessPrograms, ProgramCreate> = {
  module: MODULE,
  recordType: 'awarenessProgram',
  label: 'Awareness program',
  table: awarenessPrograms,
  titleColumn: awarenessPrograms.title,
  statusColumn: awarenessPrograms.status,
  sortable: {
    title: awarenessPrograms.title, status: inDefinedOrder(awarenessPrograms.status, PROGRAM_STATUSES), startsOn: awarenessPrograms.startsOn, endsOn: awarenessPrograms.endsOn,
    owner: ownerNameSort,
    createdAt: awarenessPrograms.createdAt, updatedAt: awarenessPrograms.updatedAt,
  },
  defaults: { content: '', contentUrl: null, audienceGroupIds: [], audienceUserIds: [], startsOn: null, endsOn: null, passMark: 80, questions: [], recurrenceMonths: null },
  references: [referencedBy({ one: 'result', many: 'results' }, awarenessResults, awarenessResults.programId)],
  toColumns: (c) => ({ ...c, title: c.title.trim(), contentUrl: c.contentUrl?.trim() || null }),
  async check(db, candidate, before) {
    const problems: FieldProblem[] = [];
    if (!candidate.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
    if (candidate.contentUrl?.trim() && !/^https?:\/\/\S+$/i.test(candidate.contentUrl.trim())) problems.push({ field: 'contentUrl', message: 'must be a link starting with https:// or http://' });
    for (const field of ['startsOn', 'endsOn'] as const) {
      const value = candidate[field];
      if (value && !isRealDate(value)) problems.push({ field, message: 'must be a real date written YYYY-MM-DD' });
    }
    if (candidate.startsOn && candidate.endsOn && candidate.endsOn < candidate.startsOn) problems.push({ field: 'endsOn', message: 'must not be before the start' });
    problems.push(...questionProblems(candidate.questions ?? []));
    problems.push(...recurrenceProblems(candidate));
    const groupIds = candidate.audienceGroupIds ?? [];
    if (groupIds.length) {
      const found = new Set((await db.select({ id: groups.id }).from(groups).where(inArray(groups.id, groupIds))).map((g) => g.id));
      if (groupIds.some((id) => !found.has(id))) problems.push({ field: 'audienceGroupIds', message: 'names a group that does not exist' });
    }
    const userIds = candidate.audienceUserIds ?? [];
    if (userIds.length) {
      const found = new Set((await db.select({ id: users.id }).from(users).where(and(inArray(users.id, userIds), eq(users.status, 'active')))).map((u) => u.id));
      if (userIds.some((id) => !found.has(id))) problems.push({ field: 'audienceUserIds', message: 'names someone who is not an active user' });
    }
    if (before && JSON.stringify(before.questions) !== JSON.stringify(candidate.questions ?? [])) {
      const locked = await lockedTestReason(db, before.id);
      if (locked) problems.push({ field: 'questions', message: locked });
    }
    return problems;
  },
};

/** Why a program's questions may no longer change, as a field problem reads, (someone has taken its test, so every score refers to the same test), or null. */
export async function lockedTestReason(db: DbOrTx, programId: string): Promise<string | null> {
  const [{ n }] = await db.select({ n: count() }).from(awarenessResults).where(and(eq(awarenessResults.programId, programId), sql`${awarenessResults.attempts} > 0`));
  return n > 0 ? `cannot change once someone has taken the test (${n} ${n === 1 ? 'person has' : 'people have'})` : null;
}

type Program = typeof awarenessPrograms.$inferSelect;
type Result = typeof awarenessResults.$inferSelect;

/** Everyone in a program's audience: its people and the members of its groups, active accounts only. */
async function audienceOf(db: DbOrTx, program: Program): Promise<string[]> {
  const fromGroups = program.audienceGroupIds.length
    ? (await db.selectDistinct({ id: groupMembers.userId }).from(groupMembers).innerJoin(users, eq(users.id, groupMembers.userId))
      .where(and(inArray(groupMembers.groupId, program.audienceGroupIds), eq(users.status, 'active')))).map((r) => r.id)
    : [];
  const direct = program.audienceUserIds.length
    ? (await db.select({ id: users.id }).from(users).where(and(inArray(users.id, program.audienceUserIds), eq(users.status, 'active')))).map((r) => r.id)
    : [];
  return [...new Set([...direct, ...fromGroups])];
}

const resultFields = (r: Result) => ({ programId: r.programId, personId: r.personId, status: r.status, score: r.score, attempts: r.attempts, completedAt: r.completedAt?.toISOString() ?? null });

/**
 * Publishes a program and assigns it to everyone in its audience who is not assigned yet (a result "assigned" each).
 * Publishing again after the audience grew assigns the newcomers; nobody is unassigned.
 */
export async function publishProgram(tx: DbOrTx, actor: Actor, id: string): Promise<{ assigned: number }> {
  const before = await loadForAction(tx, programKind, actor, id, 'update');
  const audience = await audienceOf(tx, before);
  if (!audience.length) throw invalid([{ field: 'audience', message: 'name at least one group with members or one active person before publishing' }]);
  if (before.status !== 'published') {
    await tx.update(awarenessPrograms).set({ status: 'published', updatedAt: new Date() }).where(eq(awarenessPrograms.id, id));
    await recordChange(tx, actor, { module: MODULE, recordType: programKind.recordType, recordId: id, action: 'update', before: { status: before.status }, after: { status: 'published' } });
  }
  return { assigned: await assign(tx, actor, id, audience) };
}

/** Assigns the people not assigned yet (a result "assigned" each, with its History); answers how many. */
async function assign(tx: DbOrTx, actor: Actor, programId: string, people: readonly string[]): Promise<number> {
  if (!people.length) return 0;
  const created = await tx.insert(awarenessResults).values(people.map((personId) => ({ programId, personId })))
    .onConflictDoNothing().returning();
  await recordChanges(tx, actor, created.map((r) => ({ module: MODULE, recordType: RESULT_RECORD_TYPE, recordId: r.id, action: 'create' as const, before: null, after: resultFields(r) })));
  return created.length;
}

/**
 * Starts the rounds of recurring programs that are due (called by the background sweep, under its lock): a published
 * program whose next round has begun (its start plus the recurrence is today or earlier) moves its period on by whole
 * recurrences until the round holding today, sets every result back to "assigned" (the round before stays in each
 * result's History) and assigns newcomers to the audience. Answers the programs moved on.
 */
export async function startDueRounds(tx: DbOrTx, today = todayIso()): Promise<number> {
  const due = await tx.select({
    program: awarenessPrograms,
    startsOn: sql<string>`(${awarenessPrograms.startsOn} + make_interval(months => r.k * ${awarenessPrograms.recurrenceMonths}))::date::text`,
    endsOn: sql<string>`(${awarenessPrograms.endsOn} + make_interval(months => r.k * ${awarenessPrograms.recurrenceMonths}))::date::text`,
  }).from(awarenessPrograms)
    .innerJoinLateral(sql`(select floor((extract(year from age(${today}::date, ${awarenessPrograms.startsOn})) * 12
        + extract(month from age(${today}::date, ${awarenessPrograms.startsOn}))) / ${awarenessPrograms.recurrenceMonths})::int as k) r`, sql`true`)
    .where(and(eq(awarenessPrograms.status, 'published'), isNotNull(awarenessPrograms.recurrenceMonths), isNotNull(awarenessPrograms.startsOn),
      isNotNull(awarenessPrograms.endsOn), sql`r.k > 0`))
    .for('update', { of: awarenessPrograms });
  const actor: Actor = { ...systemActor(), source: 'the next round of a recurring program' };
  for (const { program, startsOn, endsOn } of due) {
    await tx.update(awarenessPrograms).set({ startsOn, endsOn, updatedAt: new Date() }).where(eq(awarenessPrograms.id, program.id));
    await recordChange(tx, actor, {
      module: MODULE, recordType: programKind.recordType, recordId: program.id, action: 'update',
      before: { startsOn: program.startsOn, endsOn: program.endsOn }, after: { startsOn, endsOn },
    });
    const before = await tx.select().from(awarenessResults).where(eq(awarenessResults.programId, program.id)).for('update');
    const reset = await tx.update(awarenessResults).set({
      status: 'assigned', score: null, attempts: 0, answers: null, startedAt: null, completedAt: null, assignedAt: new Date(), updatedAt: new Date(),
    }).where(eq(awarenessResults.programId, program.id)).returning();
    const previous = new Map(before.map((r) => [r.id, r]));
    await recordChanges(tx, actor, reset.map((r) => ({
      module: MODULE, recordType: RESULT_RECORD_TYPE, recordId: r.id, action: 'update' as const, before: resultFields(previous.get(r.id)!), after: resultFields(r),
    })));
    await assign(tx, actor, program.id, await audienceOf(tx, program));
  }
  return due.length;
}

/** Programs the actor may read, as SQL: all, or those they or their groups own (the own level). */
function readableProgram(actor: Actor): SQL | undefined | false {
  const level = levelOf(actor, 'awareness:read');
  if (level === 'all') return undefined;
  if (level !== 'own') return false;
  const mine = [actor.userId ? eq(awarenessPrograms.ownerId, actor.userId) : undefined, actor.groupIds.length ? inArray(awarenessPrograms.ownerGroupId, [...actor.groupIds]) : undefined].filter(Boolean) as SQL[];
  return mine.length ? or(...mine) : sql`false`;
}

/** Results the actor may read: their own, and those of programs they may read. */
function readableResult(actor: Actor): SQL | undefined {
  const programs = readableProgram(actor);
  const own = actor.userId ? eq(awarenessResults.personId, actor.userId) : sql`false`;
  if (programs === undefined) return undefined;
  return programs === false ? own : or(own, programs);
}

const resultColumns = {
  id: awarenessResults.id, programId: awarenessResults.programId, programTitle: awarenessPrograms.title, personId: users.id, personName: users.name,
  status: awarenessResults.status, score: awarenessResults.score, attempts: awarenessResults.attempts,
  assignedAt: awarenessResults.assignedAt, startedAt: awarenessResults.startedAt, completedAt: awarenessResults.completedAt,
};
type ResultRow = { [K in keyof typeof resultColumns]: unknown };
const toResultView = (r: ResultRow): ResultView => ({
  id: r.id as string, programId: r.programId as string, programTitle: r.programTitle as string, person: { id: r.personId as string, name: r.personName as string },
  status: r.status as ResultView['status'], score: r.score as number | null, attempts: r.attempts as number,
  assignedAt: (r.assignedAt as Date).toISOString(), startedAt: (r.startedAt as Date | null)?.toISOString() ?? null, completedAt: (r.completedAt as Date | null)?.toISOString() ?? null,
});

const RESULT_SORTS: Record<string, AnyColumn> = {
  assignedAt: awarenessResults.assignedAt, completedAt: awarenessResults.completedAt, status: awarenessResults.status,
};

/** The page and total statements of a results list (exported so the benchmark times the very SQL the screen runs). */
export function resultListQueries(db: DbOrTx, actor: Actor, query: ResultListQuery) {
  const { pageSize, offset } = paging(query);
  const where = and(
    readableResult(actor),
    query.programId ? eq(awarenessResults.programId, query.programId) : undefined,
    query.personId ? eq(awarenessResults.personId, query.personId) : undefined,
    query.status ? eq(awarenessResults.status, query.status) : undefined,
    query.q ? sql`${users.name} ilike ${`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : undefined,
  );
  const sort = query.sort?.replace(/^-/, '') ?? 'assignedAt';
  const column = RESULT_SORTS[sort] ?? awarenessResults.assignedAt;
  const order = query.sort?.startsWith('-') ? desc(column) : asc(column);
  return {
    page: db.select(resultColumns).from(awarenessResults)
      .innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).innerJoin(users, eq(users.id, awarenessResults.personId))
      .where(where).orderBy(order, asc(users.name), asc(awarenessResults.id)).limit(pageSize).offset(offset),
    total: db.select({ total: count() }).from(awarenessResults).innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId))
      .innerJoin(users, eq(users.id, awarenessResults.personId)).where(where),
  };
}

export async function listResults(db: DbOrTx, actor: Actor, query: ResultListQuery): Promise<Page<ResultView>> {
  const { page, pageSize } = paging(query);
  const statements = resultListQueries(db, actor, query);
  const [rows, [{ total }]] = await Promise.all([statements.page, statements.total]);
  return { rows: rows.map(toResultView), total, page, pageSize };
}

const RESULT_STATUS_LABELS: Record<ResultView['status'], string> = { assigned: 'Not started', started: 'Started', passed: 'Passed', failed: 'Failed' };
export const resultStatusLabel = (status: ResultView['status']) => RESULT_STATUS_LABELS[status];

/**
 * Every result of one program the actor may read, as a CSV file (the platform's writer: BOM, formulas neutralised):
 * one query, people by name; the program itself must be readable (404 otherwise, as for its page).
 */
export async function programResultsCsv(db: DbOrTx, actor: Actor, programId: string): Promise<string> {
  await getRecord(db, programKind, actor, programId);
  const rows = await db.select(resultColumns).from(awarenessResults)
    .innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).innerJoin(users, eq(users.id, awarenessResults.personId))
    .where(and(eq(awarenessResults.programId, programId), readableResult(actor))).orderBy(asc(users.name), asc(awarenessResults.id));
  const header = ['Program', 'Person', 'Status', 'Score (%)', 'Attempts', 'Assigned at', 'Started at', 'Completed at'];
  const lines = rows.map(toResultView).map((r) => [
    r.programTitle, r.person.name, resultStatusLabel(r.status), r.score, r.attempts, r.assignedAt, r.startedAt, r.completedAt,
  ]);
  return toCsv([header, ...lines]);
}

export async function getResult(db: DbOrTx, actor: Actor, id: string): Promise<ResultView> {
  const [row] = await db.select(resultColumns).from(awarenessResults)
    .innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).innerJoin(users, eq(users.id, awarenessResults.personId))
    .where(and(eq(awarenessResults.id, id), readableResult(actor)));
  if (!row) throw notFound(`Result ${id}`);
  return toResultView(row);
}

/** The person's own result, refusing anyone else's: taking a test and reading answers are the person's alone. */
async function ownResult(db: DbOrTx, actor: Actor, id: string, forUpdate = false): Promise<{ result: Result; program: Program }> {
  const query = db.select({ result: awarenessResults, program: awarenessPrograms }).from(awarenessResults)
    .innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).where(eq(awarenessResults.id, id));
  const [row] = forUpdate ? await query.for('update', { of: awarenessResults }) : await query;
  if (!row) throw notFound(`Result ${id}`);
  if (row.result.personId !== actor.userId) throw forbidden(`result ${id} belongs to someone else; only the person assigned takes their training and reads their answers`);
  return row;
}

const started = (program: Program) => program.status === 'published' && (!program.startsOn || program.startsOn <= todayIso());

/** A program assigned to the actor, as "My training" lists it. */
export type MyTrainingItem = ResultView & { endsOn: string | null; hasTest: boolean };

/** The columns "My training" sorts by (its headers; `-` first for descending). */
export const MY_TRAINING_SORTS = ['program', 'status', 'score', 'attempts', 'due', 'completedAt'] as const;
const MY_TRAINING_ORDER: Record<(typeof MY_TRAINING_SORTS)[number], SQL> = {
  program: sql`lower(${awarenessPrograms.title})`,
  // In the order a person goes through: not started, started, failed (to retry), passed.
  status: sql`case ${awarenessResults.status} when 'assigned' then 0 when 'started' then 1 when 'failed' then 2 else 3 end`,
  score: sql`${awarenessResults.score}`, attempts: sql`${awarenessResults.attempts}`, due: sql`${awarenessPrograms.endsOn}`, completedAt: sql`${awarenessResults.completedAt}`,
};
const isMyTrainingSort = (key: string): key is (typeof MY_TRAINING_SORTS)[number] => Object.hasOwn(MY_TRAINING_ORDER, key);

/** "My training"'s narrowing: words of the program's title, a result status, the sort, the page. */
export interface MyTrainingQuery { q?: string; status?: ResultView['status']; sort?: string; page?: number; pageSize?: number }

/**
 * Programs assigned to the actor that have started, with their results: newest first unless another sort is asked
 * (blanks last either way), narrowed by words of the title and a status, a page at a time with the total.
 */
export async function listMyTraining(db: DbOrTx, actor: Actor, query: MyTrainingQuery = {}): Promise<Page<MyTrainingItem>> {
  const page = query.page ?? 1;
  const pageSize = query.pageSize ?? 25;
  if (!actor.userId) return { rows: [], total: 0, page, pageSize };
  const where = and(eq(awarenessResults.personId, actor.userId), eq(awarenessPrograms.status, 'published'),
    or(isNull(awarenessPrograms.startsOn), lte(awarenessPrograms.startsOn, todayIso())),
    query.q ? sql`${awarenessPrograms.title} ilike ${`%${escapeLike(query.q)}%`}` : undefined,
    query.status ? eq(awarenessResults.status, query.status) : undefined);
  const key = query.sort?.replace(/^-/, '') ?? '';
  const column = isMyTrainingSort(key) ? MY_TRAINING_ORDER[key] : undefined;
  const order = column
    ? [query.sort?.startsWith('-') ? sql`${column} desc nulls last` : sql`${column} asc nulls last`, asc(awarenessPrograms.title), asc(awarenessResults.id)]
    : [desc(awarenessResults.assignedAt), asc(awarenessPrograms.title), asc(awarenessResults.id)];
  const [rows, [{ total }]] = await Promise.all([
    db.select({ ...resultColumns, endsOn: awarenessPrograms.endsOn, questions: awarenessPrograms.questions }).from(awarenessResults)
      .innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).innerJoin(users, eq(users.id, awarenessResults.personId))
      .where(where).orderBy(...order).limit(pageSize).offset((page - 1) * pageSize),
    db.select({ total: count() }).from(awarenessResults).innerJoin(awarenessPrograms, eq(awarenessPrograms.id, awarenessResults.programId)).where(where),
  ]);
  return { rows: rows.map((r) => ({ ...toResultView(r), endsOn: r.endsOn, hasTest: r.questions.length > 0 })), total, page, pageSize };
}

/** Programs assigned to the actor that have started, newest first, with their results (the API's whole list). */
export async function myTraining(db: DbOrTx, actor: Actor): Promise<MyTrainingItem[]> {
  return (await listMyTraining(db, actor, { pageSize: 5_000 })).rows;
}

/** One assigned program as its person takes it: the content and the questions, never the right answers. */
export async function training(db: DbOrTx, actor: Actor, resultId: string): Promise<TrainingView> {
  const { program } = await ownResult(db, actor, resultId);
  if (!started(program)) throw notFound(`Result ${resultId}`);
  return {
    result: await getResult(db, actor, resultId), title: program.title, content: program.content, contentUrl: program.contentUrl,
    startsOn: program.startsOn, endsOn: program.endsOn, passMark: program.passMark,
    questions: program.questions.map((q) => ({ text: q.text, kind: q.kind, choices: q.choices })),
  };
}

/** The person has opened the content: assigned becomes started (once). */
export async function startTraining(tx: DbOrTx, actor: Actor, resultId: string): Promise<void> {
  const { result, program } = await ownResult(tx, actor, resultId, true);
  if (!started(program)) throw notFound(`Result ${resultId}`);
  if (result.status !== 'assigned') return;
  const [after] = await tx.update(awarenessResults).set({ status: 'started', startedAt: new Date(), updatedAt: new Date() }).where(eq(awarenessResults.id, resultId)).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: RESULT_RECORD_TYPE, recordId: resultId, action: 'update', before: resultFields(result), after: resultFields(after) });
}

/** Percent of questions answered exactly right (every right choice and no other); 100 for a program without a test. */
export function scoreOf(questions: readonly StoredQuestion[], answers: readonly (readonly number[])[]): number {
  if (!questions.length) return 100;
  const right = questions.filter((q, i) => {
    const chosen = [...new Set(answers[i] ?? [])].sort((a, b) => a - b);
    const correct = [...q.correct].sort((a, b) => a - b);
    return chosen.length === correct.length && chosen.every((c, j) => c === correct[j]);
  }).length;
  return Math.round((right * 100) / questions.length);
}

/**
 * Scores a submitted attempt on the server (any score the client sends is not read), counts the attempt and records
 * the result: passed at or above the pass mark, else failed (another attempt may follow). A passed result is final.
 */
export async function submitAttempt(tx: DbOrTx, actor: Actor, resultId: string, submission: Submission): Promise<{ status: 'passed' | 'failed'; score: number; attempts: number; passMark: number }> {
  const { result, program } = await ownResult(tx, actor, resultId, true);
  if (!started(program)) throw notFound(`Result ${resultId}`);
  if (result.status === 'passed') throw conflict(`You have already passed ${program.title}`);
  const problems: FieldProblem[] = [];
  if (submission.answers.length !== program.questions.length) problems.push({ field: 'answers', message: `answer each of the ${program.questions.length} questions` });
  program.questions.forEach((q, i) => {
    const chosen = submission.answers[i];
    if (!chosen) return;
    if (chosen.length === 0) problems.push({ field: `answers.${i}`, message: 'choose an answer' });
    else if (q.kind === 'single' && chosen.length > 1) problems.push({ field: `answers.${i}`, message: 'choose one answer' });
    if (chosen.some((c) => c >= q.choices.length)) problems.push({ field: `answers.${i}`, message: `there are ${q.choices.length} choices` });
  });
  if (problems.length) throw invalid(problems);
  const score = scoreOf(program.questions, submission.answers);
  const status = score >= program.passMark ? 'passed' : 'failed';
  const now = new Date();
  const [after] = await tx.update(awarenessResults).set({
    status, score, attempts: result.attempts + 1, answers: submission.answers.map((a) => [...a]), startedAt: result.startedAt ?? now, completedAt: now, updatedAt: now,
  }).where(eq(awarenessResults.id, resultId)).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: RESULT_RECORD_TYPE, recordId: resultId, action: 'update', before: resultFields(result), after: resultFields(after) });
  return { status, score, attempts: after.attempts, passMark: program.passMark };
}

/** The person's own answers of their last attempt; anyone else is refused. */
export async function myAnswers(db: DbOrTx, actor: Actor, resultId: string): Promise<{ answers: number[][] | null }> {
  const { result } = await ownResult(db, actor, resultId);
  return { answers: result.answers ?? null };
}

/** A program's completion: counts by status, and per audience group its members assigned and passed. */
/** The statements of a program's completion: counts by status, and per audience group (exported for the benchmark). */
export function completionQueries(db: DbOrTx, programId: string, audienceGroupIds: readonly string[]) {
  return {
    byStatus: db.select({ status: awarenessResults.status, n: count() }).from(awarenessResults)
      .where(eq(awarenessResults.programId, programId)).groupBy(awarenessResults.status),
    byGroup: audienceGroupIds.length
      ? db.select({
        groupId: groups.id, groupName: groups.name, total: count(awarenessResults.id),
        passed: sql<number>`count(*) filter (where ${awarenessResults.status} = 'passed')`.mapWith(Number),
      }).from(groups).innerJoin(groupMembers, eq(groupMembers.groupId, groups.id))
        .innerJoin(awarenessResults, and(eq(awarenessResults.personId, groupMembers.userId), eq(awarenessResults.programId, programId)))
        .where(inArray(groups.id, [...audienceGroupIds])).groupBy(groups.id, groups.name).orderBy(asc(groups.name))
      : null,
  };
}

export async function completion(db: DbOrTx, actor: Actor, programId: string): Promise<CompletionView> {
  const program = await getRecord(db, programKind, actor, programId);
  const statements = completionQueries(db, programId, program.audienceGroupIds);
  const [statusRows, byGroup] = await Promise.all([statements.byStatus, statements.byGroup ?? []]);
  const byStatus = { assigned: 0, started: 0, passed: 0, failed: 0 };
  for (const r of statusRows) byStatus[r.status] = r.n;
  return { programId, total: Object.values(byStatus).reduce((a, b) => a + b, 0), byStatus, byGroup };
}

/** A result's History, for whoever may read the result. */
export async function resultHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  await getResult(db, actor, id);
  return listHistory(db, RESULT_RECORD_TYPE, id);
}

/** The program a result belongs to, for the result's address in History and the Audit Log; 404 unless the program may be read. */
export async function resultProgram(db: DbOrTx, actor: Actor, resultId: string): Promise<string> {
  const [result] = isUuid(resultId) ? await db.select({ programId: awarenessResults.programId }).from(awarenessResults).where(eq(awarenessResults.id, resultId)) : [];
  if (!result) throw notFound(`Awareness result ${resultId}`);
  await getRecord(db, programKind, actor, result.programId);
  return result.programId;
}
