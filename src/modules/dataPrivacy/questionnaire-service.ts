import { and, asc, desc, eq, ilike, inArray, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { privacyQuestionnaires, processingActivities, users, type QuestionnaireAnswer } from '../../../db/schema';
import { listHistory, recordChange, type HistoryView } from '../../platform/audit/history';
import { valueLabel } from '../../platform/core/value-labels';
import { AppError, conflict, forbidden, invalid, type FieldProblem } from '../../platform/core/errors';
import { paging, type Page } from '../../platform/http/paging';
import { queueMail } from '../../platform/mail/mail';
import { milestoneReached, type DueDateKind } from '../../platform/notifications/declarations';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { canTouch, levelOf, requireOnRecord, requirePermission, type Actor } from '../../platform/permissions/permissions';
import { recordType, requireTypedRecord } from '../../platform/records/record-types';
import { auditFields, escapeLike, updateRecord } from '../../platform/records/records';
import {
  LEGAL_BASES, QUESTIONNAIRE_FIELDS, type ProcessingActivityCreate, type QuestionnaireAnswers, type QuestionnaireAnswerView, type QuestionnaireCreate,
  type QuestionnaireField, type QuestionnaireListQuery, type QuestionnaireView,
} from './schema';
import { processingActivityKind } from './service';

const MODULE = 'dataPrivacy';
/** What History and the Audit Log call a questionnaire. */
export const QUESTIONNAIRE_TYPE = 'privacyQuestionnaire';
export const QUESTIONNAIRE_PATH = '/data-privacy/questionnaires';
/** The person asked answers on a screen of their own, outside the data privacy screens they may not open. */
export const MY_QUESTIONNAIRES_PATH = '/data-privacy/my-questionnaires';
export const QUESTIONNAIRE_MAIL_KINDS = ['privacy.questionnaire.sent', 'privacy.questionnaire.answered'] as const;

type Row = typeof privacyQuestionnaires.$inferSelect;
type Activity = typeof processingActivities.$inferSelect;

const what = (id: string) => `Questionnaire ${id}`;
const isField = (key: string): key is QuestionnaireField => Object.hasOwn(QUESTIONNAIRE_FIELDS, key);
const isLegalBasis = (value: string): value is (typeof LEGAL_BASES)[number] => (LEGAL_BASES as readonly string[]).includes(value);
export const fieldLabelOf = (field: string) => (isField(field) ? QUESTIONNAIRE_FIELDS[field] : field);

/** A field's value as the processing activity stores it, as text (a legal basis by its key). */
const storedValue = (activity: Activity | undefined, field: string): string => {
  if (!activity || !isField(field)) return '';
  return activity[field];
};
/** A stored value in words: a legal basis by its label, text as it is. */
const inWords = (field: string, value: string | null): string | null => (value !== null && field === 'legalBasis' && value ? valueLabel(value) : value);

/** Who may do what with a questionnaire: the person asked, and readers of data privacy at their level. */
function accessOf(actor: Actor, row: Row) {
  return { addressee: actor.userId !== null && actor.userId === row.recipientId, officer: canTouch(actor, 'dataPrivacy:read', row) };
}

/** A questionnaire neither addressed to the actor nor readable by them is not found (its existence is not disclosed); the reason goes to the Audit Log. */
const hidden = (id: string) => new AppError('NOT_FOUND', `${what(id)} not found`, [], `${what(id)} is not addressed to you and you hold no dataPrivacy:read on it`);

async function loadRow(db: DbOrTx, id: string, forUpdate = false): Promise<Row> {
  const query = db.select().from(privacyQuestionnaires).where(eq(privacyQuestionnaires.id, id));
  const [row] = forUpdate ? await query.for('update') : await query;
  if (!row) throw new AppError('NOT_FOUND', `${what(id)} not found`);
  return row;
}

const fieldsOf = (row: Row): Record<string, unknown> => {
  const { answeredAt, ...rest } = auditFields(row);
  return { ...rest, answeredAt: answeredAt instanceof Date ? answeredAt.toISOString() : answeredAt ?? null };
};

/** Views of stored rows, with the processing activity's name and values and the people by name, in three reads. */
async function viewsOf(db: DbOrTx, rows: Row[]): Promise<QuestionnaireView[]> {
  if (rows.length === 0) return [];
  const activityIds = [...new Set(rows.map((r) => r.processingActivityId))];
  const people = [...new Set(rows.flatMap((r) => [r.recipientId, r.ownerId, ...r.answers.map((a) => a.decidedById)]).filter((id): id is string => id !== null))];
  const [activities, named] = await Promise.all([
    db.select().from(processingActivities).where(inArray(processingActivities.id, activityIds)),
    db.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, people)),
  ]);
  const activityById = new Map(activities.map((a) => [a.id, a]));
  const person = (id: string | null) => (id ? { id, name: named.find((u) => u.id === id)?.name ?? '(unknown)' } : null);
  return rows.map((row) => {
    const activity = activityById.get(row.processingActivityId);
    const answered = new Map(row.answers.map((a) => [a.field, a]));
    const answers = row.fields.map((field): QuestionnaireAnswerView => {
      const answer = answered.get(field);
      return {
        field, fieldLabel: fieldLabelOf(field), current: inWords(field, storedValue(activity, field)) ?? '',
        proposed: inWords(field, answer?.proposed ?? null), proposedValue: answer?.proposed ?? null, comment: answer?.comment ?? '',
        decision: answer?.decision ?? null, decidedBy: person(answer?.decidedById ?? null), decidedAt: answer?.decidedAt ?? null, reason: answer?.reason ?? '',
      };
    });
    return {
      id: row.id, title: row.title, processingActivity: { id: row.processingActivityId, name: activity?.name ?? '(deleted)' },
      recipient: person(row.recipientId) ?? { id: row.recipientId, name: '(unknown)' }, sender: person(row.ownerId), message: row.message,
      fields: row.fields, dueOn: row.dueOn, status: row.status, answers, answeredAt: row.answeredAt?.toISOString() ?? null,
      ownerId: row.ownerId, ownerGroupId: row.ownerGroupId, createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
    };
  });
}

/**
 * Sends a questionnaire (dataPrivacy:create): about a processing activity the officer may read (404 like a missing one
 * otherwise), to an active user, owned by the sender. The person asked is told by mail, queued in the same transaction.
 */
export async function sendQuestionnaire(tx: DbOrTx, actor: Actor, input: QuestionnaireCreate, link: (path: string) => string): Promise<{ id: string }> {
  requirePermission(actor, 'dataPrivacy:create');
  const problems: FieldProblem[] = [];
  const title = input.title.trim();
  if (!title) problems.push({ field: 'title', message: 'must not be blank' });
  const [recipient] = await tx.select({ id: users.id, name: users.name, email: users.email }).from(users)
    .where(and(eq(users.id, input.recipientId), eq(users.status, 'active')));
  if (!recipient) problems.push({ field: 'recipientId', message: 'no such active user' });
  if (problems.length) throw invalid(problems);
  const activity = await requireTypedRecord(tx, actor, recordType('processingActivity'), input.processingActivityId, 'processingActivityId');
  const [row] = await tx.insert(privacyQuestionnaires).values({
    title, processingActivityId: input.processingActivityId, recipientId: recipient.id, message: (input.message ?? '').trim(),
    fields: [...input.fields], dueOn: input.dueOn ?? null, ownerId: actor.userId,
  }).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: QUESTIONNAIRE_TYPE, recordId: row.id, action: 'create', before: null, after: fieldsOf(row) });
  const [sender] = actor.userId ? await tx.select({ name: users.name }).from(users).where(eq(users.id, actor.userId)) : [];
  await queueMail(tx, {
    kind: 'privacy.questionnaire.sent', recipients: [recipient.email], subject: `Privacy questionnaire: ${title}`,
    body: [
      `Hello ${recipient.name},`, '',
      `${sender?.name ?? 'The privacy team'} asks you about the processing activity "${activity.row.title}" in the record of processing:`,
      ...input.fields.map((field) => `- ${fieldLabelOf(field)}`), '',
      ...(row.message ? [row.message, ''] : []),
      ...(row.dueOn ? [`Please answer by ${row.dueOn}.`] : []),
      `Answer here: ${link(`${MY_QUESTIONNAIRES_PATH}/${row.id}`)}`,
    ].join('\n'),
  });
  return { id: row.id };
}

/** One questionnaire, to the person asked or a reader of data privacy at their level; 404 to anyone else. */
export async function getQuestionnaire(db: DbOrTx, actor: Actor, id: string, as: 'either' | 'officer' = 'either'): Promise<QuestionnaireView> {
  const row = await loadRow(db, id);
  const access = accessOf(actor, row);
  if (!access.officer && !(as === 'either' && access.addressee)) throw hidden(id);
  const [view] = await viewsOf(db, [row]);
  return view;
}

/** Questionnaires a reader of data privacy may read (own level: those they or their groups sent), newest first. */
/** The sortable columns of the list (QUESTIONNAIRE_SORTS). */
const SORT_COLUMNS: Record<string, SQL> = {
  title: sql`lower(${privacyQuestionnaires.title})`, dueOn: sql`${privacyQuestionnaires.dueOn}`, // In the order a questionnaire goes through: waiting, answered, closed.
  status: sql`case ${privacyQuestionnaires.status} when 'sent' then 0 when 'answered' then 1 else 2 end`,
  createdAt: sql`${privacyQuestionnaires.createdAt}`,
};

export async function listQuestionnaires(db: DbOrTx, actor: Actor, query: QuestionnaireListQuery): Promise<Page<QuestionnaireView>> {
  return questionnairePage(db, and(
    ownershipCondition(actor, 'dataPrivacy:read', privacyQuestionnaires.ownerId, privacyQuestionnaires.ownerGroupId),
    query.processingActivityId ? eq(privacyQuestionnaires.processingActivityId, query.processingActivityId) : undefined,
    query.ownerId ? eq(privacyQuestionnaires.ownerId, query.ownerId) : undefined,
  ), query, [desc(privacyQuestionnaires.createdAt), desc(privacyQuestionnaires.id)]);
}

/** A page of questionnaires within `scope`, narrowed by the query's words and status, in its sort (else `byDefault`), with the total. */
async function questionnairePage(db: DbOrTx, scope: SQL | undefined, query: Pick<QuestionnaireListQuery, 'q' | 'status' | 'sort' | 'page' | 'pageSize'>, byDefault: SQL[]): Promise<Page<QuestionnaireView>> {
  const { page, pageSize, offset } = paging(query);
  const where = and(
    scope,
    query.status ? eq(privacyQuestionnaires.status, query.status) : undefined,
    query.q?.trim() ? ilike(privacyQuestionnaires.title, `%${escapeLike(query.q.trim())}%`) : undefined,
  );
  const descending = query.sort?.startsWith('-') ?? false;
  const column = query.sort ? SORT_COLUMNS[descending ? query.sort.slice(1) : query.sort] : undefined;
  const order = column
    ? [descending ? sql`${column} desc nulls last` : sql`${column} asc nulls last`, desc(privacyQuestionnaires.createdAt), desc(privacyQuestionnaires.id)]
    : byDefault;
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(privacyQuestionnaires).where(where).orderBy(...order).limit(pageSize).offset(offset),
    db.select({ total: sql<number>`count(*)::int` }).from(privacyQuestionnaires).where(where),
  ]);
  return { rows: await viewsOf(db, rows), total, page, pageSize };
}

/** Waiting first (by due date), then the answered ones, newest first. */
const waitingFirst: SQL[] = [
  sql`(${privacyQuestionnaires.status} = 'sent') desc`, sql`${privacyQuestionnaires.dueOn} asc nulls last`, desc(privacyQuestionnaires.createdAt), desc(privacyQuestionnaires.id),
];

/**
 * "My privacy questionnaires": those addressed to the actor, narrowed and sorted as the officer's list is (waiting
 * ones first by default), a page at a time. Needs no data privacy right, only being the person asked.
 */
export async function listMyQuestionnaires(db: DbOrTx, actor: Actor, query: Pick<QuestionnaireListQuery, 'q' | 'status' | 'sort' | 'page' | 'pageSize'>): Promise<Page<QuestionnaireView>> {
  if (!actor.userId) return { rows: [], total: 0, ...paging(query) };
  return questionnairePage(db, eq(privacyQuestionnaires.recipientId, actor.userId), query, waitingFirst);
}

/** The questionnaires addressed to the actor (at most 500, waiting ones first): the API's whole list. */
export async function myQuestionnaires(db: DbOrTx, actor: Actor): Promise<QuestionnaireView[]> {
  if (!actor.userId) return [];
  const rows = await db.select().from(privacyQuestionnaires).where(eq(privacyQuestionnaires.recipientId, actor.userId)).orderBy(...waitingFirst).limit(500);
  return viewsOf(db, rows);
}

/**
 * The person asked answers (once): one answer per field asked, each a proposed value or a confirmation of the current
 * one. A proposal waits for the officer's decision; with none the questionnaire is closed at once. Anyone else is
 * refused: a reader of data privacy with 403 (they may read it but do not answer it), others with 404.
 */
export async function answerQuestionnaire(tx: DbOrTx, actor: Actor, id: string, input: QuestionnaireAnswers, link: (path: string) => string): Promise<void> {
  const before = await loadRow(tx, id, true);
  const access = accessOf(actor, before);
  if (!access.addressee) {
    if (access.officer) throw forbidden(`${what(id)} is addressed to someone else; only the person asked answers it`);
    throw hidden(id);
  }
  if (before.status !== 'sent') throw conflict(`${what(id)} was answered already; answers are final`);
  const [activity] = await tx.select().from(processingActivities).where(eq(processingActivities.id, before.processingActivityId));
  const problems: FieldProblem[] = [];
  const given = new Map<string, QuestionnaireAnswers['answers'][number]>();
  for (const answer of input.answers) {
    if (!before.fields.includes(answer.field)) problems.push({ field: `answers.${answer.field}`, message: `${fieldLabelOf(answer.field)} is not asked in this questionnaire` });
    else if (given.has(answer.field)) problems.push({ field: `answers.${answer.field}`, message: `${fieldLabelOf(answer.field)} is answered twice` });
    given.set(answer.field, answer);
  }
  for (const field of before.fields) if (!given.has(field)) problems.push({ field: `answers.${field}`, message: `${fieldLabelOf(field)} needs an answer` });
  const answers = before.fields.map((field): QuestionnaireAnswer => {
    const answer = given.get(field);
    const current = storedValue(activity, field);
    const typed = answer?.proposed === null || answer?.proposed === undefined ? null : answer.proposed.trim();
    if (field === 'legalBasis' && typed !== null && !isLegalBasis(typed)) {
      problems.push({ field: `answers.${field}`, message: `must be one of the lawful bases of Art. 6(1): ${LEGAL_BASES.map(valueLabel).join(', ')}` });
    }
    const proposed = typed === null || typed === current.trim() ? null : typed;
    return { field, current, proposed, comment: (answer?.comment ?? '').trim(), decision: proposed === null ? null : 'pending', decidedById: null, decidedAt: null, reason: '' };
  });
  if (problems.length) throw invalid(problems);
  const pending = answers.some((a) => a.decision === 'pending');
  const [after] = await tx.update(privacyQuestionnaires)
    .set({ answers, status: pending ? 'answered' : 'closed', answeredAt: new Date(), updatedAt: new Date() })
    .where(eq(privacyQuestionnaires.id, id)).returning();
  await recordChange(tx, actor, {
    module: MODULE, recordType: QUESTIONNAIRE_TYPE, recordId: id, action: 'answered', before: fieldsOf(before), after: fieldsOf(after),
    details: { proposals: answers.filter((a) => a.proposed !== null).map((a) => fieldLabelOf(a.field)) },
  });
  // The sender learns there is something to decide; a questionnaire confirming every value needs nothing of them.
  const [sender] = before.ownerId ? await tx.select({ email: users.email, status: users.status }).from(users).where(eq(users.id, before.ownerId)) : [];
  if (pending && sender?.status === 'active') {
    await queueMail(tx, {
      kind: 'privacy.questionnaire.answered', recipients: [sender.email], subject: `Answers to decide: ${before.title}`,
      body: `The questionnaire "${before.title}" was answered with proposed changes to "${activity?.name ?? ''}". Accept or reject each: ${link(`${QUESTIONNAIRE_PATH}/${id}`)}`,
    });
  }
}

/** The processing activity's change a proposal stands for, typed field by field. */
function patchOf(field: QuestionnaireField, value: string): Partial<ProcessingActivityCreate> {
  if (field === 'legalBasis') {
    if (!isLegalBasis(value)) throw invalid([{ field: 'legalBasis', message: 'the proposed value is not a lawful basis of Art. 6(1)' }]);
    return { legalBasis: value };
  }
  return { [field]: value };
}

/**
 * The officer accepts or rejects one proposal (dataPrivacy:update on the questionnaire). Accepting writes the processing
 * activity through its register (dataPrivacy:update on it, its rules, its History and Audit Log), in the same
 * transaction: a refused change leaves the proposal pending. The person asked is refused with 403 (they propose, an
 * officer decides); anyone else who may not read it with 404.
 */
export async function decideProposal(tx: DbOrTx, actor: Actor, id: string, field: string, decision: 'accepted' | 'rejected', reason = ''): Promise<void> {
  const before = await loadRow(tx, id, true);
  const access = accessOf(actor, before);
  if (!access.officer) {
    if (access.addressee) throw forbidden(`right dataPrivacy:update missing on ${what(id)}: the person asked proposes changes, a privacy officer decides them`);
    throw hidden(id);
  }
  requireOnRecord(actor, 'dataPrivacy:update', before, what(id));
  const answer = before.answers.find((a) => a.field === field);
  if (!answer || !isField(field)) throw new AppError('NOT_FOUND', `${what(id)} has no answer about ${fieldLabelOf(field)}`);
  if (answer.decision !== 'pending' || answer.proposed === null) {
    throw conflict(answer.proposed === null
      ? `${fieldLabelOf(field)} was confirmed as it is; there is no proposal to decide`
      : `The proposal for ${fieldLabelOf(field)} was ${answer.decision} already`);
  }
  if (decision === 'accepted') await updateRecord(tx, processingActivityKind, actor, before.processingActivityId, patchOf(field, answer.proposed));
  const decidedAt = new Date().toISOString();
  const answers = before.answers.map((a) => (a.field === field ? { ...a, decision, decidedById: actor.userId, decidedAt, reason: decision === 'rejected' ? reason.trim() : '' } : a));
  const open = answers.some((a) => a.decision === 'pending');
  const [after] = await tx.update(privacyQuestionnaires).set({ answers, status: open ? 'answered' : 'closed', updatedAt: new Date() })
    .where(eq(privacyQuestionnaires.id, id)).returning();
  await recordChange(tx, actor, {
    module: MODULE, recordType: QUESTIONNAIRE_TYPE, recordId: id, action: decision === 'accepted' ? 'proposal.accepted' : 'proposal.rejected',
    before: fieldsOf(before), after: fieldsOf(after), details: { field: fieldLabelOf(field) },
  });
}

/** A questionnaire's History (sent, answered, each decision), to readers of data privacy at their level. */
export async function questionnaireHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  const row = await loadRow(db, id);
  requireOnRecord(actor, 'dataPrivacy:read', row, what(id));
  return listHistory(db, QUESTIONNAIRE_TYPE, id);
}

/**
 * What waits on the actor (the assistant's my_open_items, for readers of data privacy): questionnaires addressed to
 * them still to answer, and those they sent with proposals to decide.
 */
export async function questionnairesWaitingOn(db: DbOrTx, actor: Actor): Promise<object[]> {
  if (!actor.userId || levelOf(actor, 'dataPrivacy:read') === null) return [];
  const rows = await db.select({ id: privacyQuestionnaires.id, title: privacyQuestionnaires.title, status: privacyQuestionnaires.status, dueOn: privacyQuestionnaires.dueOn, recipientId: privacyQuestionnaires.recipientId })
    .from(privacyQuestionnaires)
    .where(sql`(${privacyQuestionnaires.recipientId} = ${actor.userId} and ${privacyQuestionnaires.status} = 'sent')
      or (${privacyQuestionnaires.ownerId} = ${actor.userId} and ${privacyQuestionnaires.status} = 'answered')`)
    .orderBy(asc(privacyQuestionnaires.dueOn), asc(privacyQuestionnaires.title)).limit(200);
  return rows.map((r) => r.recipientId === actor.userId && r.status === 'sent'
    ? { id: r.id, title: r.title, dueOn: r.dueOn, waitingFor: 'your answers', href: `${MY_QUESTIONNAIRES_PATH}/${r.id}` }
    : { id: r.id, title: r.title, dueOn: r.dueOn, waitingFor: 'your decision on the proposed changes', href: `${QUESTIONNAIRE_PATH}/${r.id}` });
}

/**
 * Overdue questionnaires in the daily digest of the person asked (a personal reminder: they hold no data privacy right),
 * three days before the due date, on the day, and every day once overdue, until answered.
 */
export const questionnaireDueDates: DueDateKind[] = [{
  key: 'privacyQuestionnaires', label: 'Privacy questionnaires to answer', module: 'dataPrivacy', dateWord: 'due', personal: true,
  href: (id) => `${MY_QUESTIONNAIRES_PATH}/${id}`,
  query: (w) => sql`select ${privacyQuestionnaires.id}::text as record_id, ${privacyQuestionnaires.title} as title, ${privacyQuestionnaires.dueOn} as due_on,
      ${privacyQuestionnaires.recipientId} as owner_id, null::uuid as owner_group_id, 'not answered yet' as note
    from ${privacyQuestionnaires}
    where ${privacyQuestionnaires.status} = 'sent' and ${privacyQuestionnaires.dueOn} is not null
      and (${privacyQuestionnaires.dueOn} < ${w.today} or ${milestoneReached(w, privacyQuestionnaires.dueOn, privacyQuestionnaires.updatedAt, [3, 0])})`,
}];
