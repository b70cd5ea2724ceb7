import { and, asc, count, desc, eq, ilike, sql, type SQL } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import {
  assessmentFiles, assessmentRequests, assessmentTemplates, assessmentTemplateVersions, riskClassifications, riskImpactLevels, riskLikelihoodLevels, thirdParties, users,
  type StoredAnswer, type StoredReview, type StoredSection,
} from '../../../db/schema';
import { listHistory, recordChange, recordChanges, type HistoryView } from '../../platform/audit/history';
import { PipelinedWrites } from '../../platform/core/pipelined-writes';
import { canonicalJson, sha256Hex } from '../../platform/core/canonical-json';
import { isRealDate, todayIso } from '../../platform/core/dates';
import { AppError, conflict, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { paging, type Page } from '../../platform/http/paging';
import { queueMail } from '../../platform/mail/mail';
import { ownershipCondition } from '../../platform/permissions/ownership';
import { levelOf, ownsRecord, requireOnRecord, requirePermission, systemActor, type Actor } from '../../platform/permissions/permissions';
import { createRecord, escapeLike } from '../../platform/records/records';
import { findingKind } from '../audits/service';
import { createRisk } from '../risks/service';
import { readableChoices, recordType, requireTypedRecord } from '../../platform/records/record-types';
import type {
  FindingFromAnswer, RequestCreate, RequestDetail, RequestListQuery, RequestView, ReturnInput, ReviewInput, RiskFromAnswer,
  TemplateCreate, TemplateListQuery, TemplateUpdate, TemplateView,
} from './schema';
import { answerText, checkAnswers, isShown, normalised, questionsOf, responseScore, sectionProblems, templateScore } from './scoring';

const MODULE = 'assessments';
/** One address: no list, no display name. */
const isEmail = (value: string) => value.length <= 320 && /^[^\s@,;<>]+@[^\s@.,;<>]+(\.[^\s@.,;<>]+)+$/.test(value);
export const TEMPLATE_TYPE = 'assessmentTemplate';
export const REQUEST_TYPE = 'assessmentRequest';
/** How long a link stays open after its due date. */
export const LINK_GRACE_DAYS = 14;
/** Mail kinds of the outbox: the only mails the service sends outside the organisation's domains. */
export const ASSESSMENT_MAIL_KINDS = ['assessment.invitation', 'assessment.reminder', 'assessment.returned', 'assessment.submitted'] as const;

type TemplateRow = typeof assessmentTemplates.$inferSelect;
type RequestRow = typeof assessmentRequests.$inferSelect;

// ---------------------------------------------------------------- templates

/** Templates the actor may read: shipped ones and, by level, all or those they or their groups own. */
function readableTemplates(actor: Actor): SQL | undefined {
  const own = ownershipCondition(actor, 'assessments:read', assessmentTemplates.ownerId, assessmentTemplates.ownerGroupId);
  return own === undefined ? undefined : sql`(${assessmentTemplates.shippedKey} is not null or ${own})`;
}

async function templateView(db: DbOrTx, row: TemplateRow): Promise<TemplateView> {
  const [version] = await db.select().from(assessmentTemplateVersions)
    .where(and(eq(assessmentTemplateVersions.templateId, row.id), eq(assessmentTemplateVersions.version, row.version)));
  return {
    id: row.id, title: row.title, description: row.description, shippedKey: row.shippedKey, version: row.version, versionId: version.id,
    sections: version.sections as TemplateView['sections'], ownerId: row.ownerId, ownerGroupId: row.ownerGroupId,
    createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString(),
  };
}

export async function listTemplates(db: DbOrTx, actor: Actor, query: TemplateListQuery): Promise<Page<TemplateView>> {
  const { page, pageSize, offset } = paging(query);
  const words = query.q?.trim();
  const where = and(
    readableTemplates(actor),
    query.ownerId ? eq(assessmentTemplates.ownerId, query.ownerId) : undefined,
    words ? ilike(assessmentTemplates.title, `%${escapeLike(words)}%`) : undefined,
  );
  const sorts = { title: assessmentTemplates.title, createdAt: assessmentTemplates.createdAt, updatedAt: assessmentTemplates.updatedAt };
  const key = (query.sort?.replace(/^-/, '') ?? 'title') as keyof typeof sorts;
  const column = sorts[key] ?? assessmentTemplates.title;
  const [rows, [{ total }]] = await Promise.all([
    db.select().from(assessmentTemplates).where(where).orderBy(query.sort?.startsWith('-') ? desc(column) : asc(column), asc(assessmentTemplates.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(assessmentTemplates).where(where),
  ]);
  return { rows: await Promise.all(rows.map((r) => templateView(db, r))), total, page, pageSize };
}

async function loadTemplate(db: DbOrTx, actor: Actor, id: string, right: 'read' | 'update'): Promise<TemplateRow> {
  // A change locks the template: two editors publishing at once make two versions one after the other, never one twice.
  const query = db.select().from(assessmentTemplates).where(eq(assessmentTemplates.id, id));
  const [row] = right === 'update' ? await query.for('update') : await query;
  if (!row) throw notFound(`Assessment template ${id}`);
  // Shipped templates are read by everyone with the read right; changing them needs the all level.
  if (row.shippedKey && right === 'read') requirePermission(actor, 'assessments:read');
  else if (row.shippedKey && requirePermission(actor, 'assessments:update') !== 'all') {
    // Everyone with the read right reads a shipped template, so a refused change is a 403 that says why, not a 404.
    throw new AppError('FORBIDDEN', 'A template shipped with the service is changed only with assessments:update at the all level; start a new template from a copy of it instead.', [], `assessments:update is at level own and Assessment template ${id} is shipped with the service (no owner)`);
  } else requireOnRecord(actor, `assessments:${right}`, row, `Assessment template ${id}`);
  return row;
}

export const getTemplate = async (db: DbOrTx, actor: Actor, id: string) => templateView(db, await loadTemplate(db, actor, id, 'read'));
/** A template for its edit screen: refused (403, or 404 at the own level) to someone who may not change it. */
export const templateForChange = async (db: DbOrTx, actor: Actor, id: string) => templateView(db, await loadTemplate(db, actor, id, 'update'));

function ownerOf(actor: Actor, level: 'own' | 'all', input: { ownerId?: string | null; ownerGroupId?: string | null }) {
  const owner = { ownerId: input.ownerId === undefined ? actor.userId : input.ownerId, ownerGroupId: input.ownerGroupId ?? null };
  if (level === 'own' && !ownsRecord(actor, owner)) {
    throw new AppError('FORBIDDEN', 'forbidden', [], 'assessments:create is at level own and the new record would not be owned');
  }
  return owner;
}

const templateFields = (t: TemplateRow) => ({ title: t.title, description: t.description, version: t.version, ownerId: t.ownerId, ownerGroupId: t.ownerGroupId });

export async function createTemplate(tx: DbOrTx, actor: Actor, input: TemplateCreate): Promise<{ id: string }> {
  const level = requirePermission(actor, 'assessments:create');
  const problems = [...(input.title.trim() ? [] : [{ field: 'title', message: 'must not be blank' }]), ...sectionProblems(input.sections)];
  if (problems.length) throw invalid(problems);
  const [row] = await tx.insert(assessmentTemplates).values({ title: input.title.trim(), description: input.description ?? '', ...ownerOf(actor, level, input) }).returning();
  await tx.insert(assessmentTemplateVersions).values({ templateId: row.id, version: 1, title: row.title, sections: input.sections });
  await recordChange(tx, actor, { module: MODULE, recordType: TEMPLATE_TYPE, recordId: row.id, action: 'create', before: null, after: { ...templateFields(row), questions: questionsOf(input.sections).length } });
  return { id: row.id };
}

/** Changes a template; a change of its sections makes a new version (requests already sent keep theirs). */
export async function updateTemplate(tx: DbOrTx, actor: Actor, id: string, patch: TemplateUpdate): Promise<void> {
  const before = await loadTemplate(tx, actor, id, 'update');
  const current = await templateView(tx, before);
  if (patch.expectedVersion !== undefined && patch.expectedVersion !== before.version) {
    throw conflict(`This template was changed since version ${patch.expectedVersion} was opened: version ${before.version} is current now. Nothing was saved; open it again and repeat your change.`);
  }
  const problems: FieldProblem[] = [];
  if (patch.title !== undefined && !patch.title.trim()) problems.push({ field: 'title', message: 'must not be blank' });
  if (patch.sections) problems.push(...sectionProblems(patch.sections));
  if (problems.length) throw invalid(problems);
  // Compared as canonical JSON: the stored sections come back from jsonb with their keys in another order.
  const newVersion = patch.sections && canonicalJson(patch.sections) !== canonicalJson(current.sections);
  const [after] = await tx.update(assessmentTemplates).set({
    title: patch.title?.trim() ?? before.title, description: patch.description ?? before.description,
    ownerId: patch.ownerId === undefined ? before.ownerId : patch.ownerId, ownerGroupId: patch.ownerGroupId === undefined ? before.ownerGroupId : patch.ownerGroupId,
    version: newVersion ? before.version + 1 : before.version, updatedAt: new Date(),
  }).where(eq(assessmentTemplates.id, id)).returning();
  if (newVersion) await tx.insert(assessmentTemplateVersions).values({ templateId: id, version: after.version, title: after.title, sections: patch.sections! });
  await recordChange(tx, actor, {
    module: MODULE, recordType: TEMPLATE_TYPE, recordId: id, action: 'update',
    before: { ...templateFields(before), questions: questionsOf(current.sections).length },
    after: { ...templateFields(after), questions: questionsOf(patch.sections ?? current.sections).length },
  });
}

export async function templateHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  await loadTemplate(db, actor, id, 'read');
  return listHistory(db, TEMPLATE_TYPE, id);
}

// ---------------------------------------------------------------- requests (the organisation's side)

const newSecret = () => Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString('base64url');
const linkOf = (base: string, secret: string) => `${base}/assess/${secret}`;
const expiryOf = (dueOn: string) => new Date(Date.parse(`${dueOn}T23:59:59Z`) + LINK_GRACE_DAYS * 86_400_000);

const requestFields = (r: RequestRow) => ({
  title: r.title, thirdPartyId: r.thirdPartyId, respondentEmail: r.respondentEmail, dueOn: r.dueOn, status: r.status, score: r.score,
  expiresAt: r.expiresAt.toISOString(), ownerId: r.ownerId, ownerGroupId: r.ownerGroupId,
});

function mailBody(r: Pick<RequestRow, 'respondentName' | 'title' | 'dueOn'>, lines: string[]): string {
  return [`Hello${r.respondentName ? ` ${r.respondentName}` : ''},`, '', ...lines, '', `Questionnaire: ${r.title}`, `Due on: ${r.dueOn}`, '',
    'The link is personal: anyone who has it can answer. It needs no account.'].join('\n');
}

/** Sends a questionnaire: stores the link's SHA-256 only and queues the invitation (one outside address). */
export async function sendRequest(tx: DbOrTx, actor: Actor, input: RequestCreate, base: string): Promise<{ id: string; url: string; expiresAt: string }> {
  const level = requirePermission(actor, 'assessments:create');
  const template = await loadTemplate(tx, actor, input.templateId, 'read');
  const problems: FieldProblem[] = [];
  const email = input.respondentEmail.trim().toLowerCase();
  if (!isEmail(email)) problems.push({ field: 'respondentEmail', message: 'must be one e-mail address, such as security@vendor.example' });
  if (!isRealDate(input.dueOn)) problems.push({ field: 'dueOn', message: 'must be a real date written YYYY-MM-DD' });
  else if (input.dueOn < todayIso()) problems.push({ field: 'dueOn', message: 'must not be in the past' });
  if (problems.length) throw invalid(problems);
  // The third party through its declared record type: one the actor may not read answers like a missing one (404).
  const thirdParty = input.thirdPartyId ? { name: (await requireTypedRecord(tx, actor, recordType('thirdParty'), input.thirdPartyId, 'thirdPartyId')).title } : null;
  const [version] = await tx.select().from(assessmentTemplateVersions)
    .where(and(eq(assessmentTemplateVersions.templateId, template.id), eq(assessmentTemplateVersions.version, template.version)));
  const secret = newSecret();
  const [row] = await tx.insert(assessmentRequests).values({
    title: input.title?.trim() || (thirdParty ? `${template.title}: ${thirdParty.name}` : template.title),
    templateId: template.id, templateVersionId: version.id, thirdPartyId: input.thirdPartyId ?? null,
    respondentName: input.respondentName?.trim() ?? '', respondentEmail: email, dueOn: input.dueOn,
    secretHash: sha256Hex(secret), expiresAt: expiryOf(input.dueOn), ...ownerOf(actor, level, input),
  }).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: REQUEST_TYPE, recordId: row.id, action: 'create', before: null, after: { ...requestFields(row), templateVersion: template.version } });
  const url = linkOf(base, secret);
  await queueMail(tx, {
    kind: 'assessment.invitation', recipients: [email], subject: `Questionnaire: ${row.title}`,
    body: mailBody(row, ['You are asked to answer a questionnaire. Open this link to answer it; you can save a draft and come back:', url]),
  });
  return { id: row.id, url, expiresAt: row.expiresAt.toISOString() };
}

const requestColumns = { request: assessmentRequests, thirdPartyName: thirdParties.name, templateVersion: assessmentTemplateVersions.version };
type JoinedRequest = { request: RequestRow; thirdPartyName: string | null; templateVersion: number };

const toRequestView = ({ request: r, thirdPartyName, templateVersion }: JoinedRequest): RequestView => ({
  id: r.id, title: r.title, templateId: r.templateId, templateVersion, thirdParty: r.thirdPartyId ? { id: r.thirdPartyId, name: thirdPartyName ?? '' } : null,
  respondentName: r.respondentName, respondentEmail: r.respondentEmail, dueOn: r.dueOn, status: r.status, expiresAt: r.expiresAt.toISOString(),
  score: r.score, submittedAt: r.submittedAt?.toISOString() ?? null, reviewedAt: r.reviewedAt?.toISOString() ?? null,
  ownerId: r.ownerId, ownerGroupId: r.ownerGroupId, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString(),
});

const joinedRequests = (db: DbOrTx) => db.select(requestColumns).from(assessmentRequests)
  .leftJoin(thirdParties, eq(thirdParties.id, assessmentRequests.thirdPartyId))
  .innerJoin(assessmentTemplateVersions, eq(assessmentTemplateVersions.id, assessmentRequests.templateVersionId));

export async function listRequests(db: DbOrTx, actor: Actor, query: RequestListQuery): Promise<Page<RequestView>> {
  const { page, pageSize, offset } = paging(query);
  const where = and(
    ownershipCondition(actor, 'assessments:read', assessmentRequests.ownerId, assessmentRequests.ownerGroupId),
    query.status ? eq(assessmentRequests.status, query.status) : undefined,
    query.thirdPartyId ? eq(assessmentRequests.thirdPartyId, query.thirdPartyId) : undefined,
    query.templateId ? eq(assessmentRequests.templateId, query.templateId) : undefined,
    query.ownerId ? eq(assessmentRequests.ownerId, query.ownerId) : undefined,
    query.q ? sql`${assessmentRequests.title} ilike ${`%${query.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`}` : undefined,
  );
  const sorts = { createdAt: assessmentRequests.createdAt, title: assessmentRequests.title, dueOn: assessmentRequests.dueOn, status: assessmentRequests.status, score: assessmentRequests.score };
  const column = sorts[(query.sort?.replace(/^-/, '') ?? 'createdAt') as keyof typeof sorts] ?? assessmentRequests.createdAt;
  const order = query.sort ? (query.sort.startsWith('-') ? desc(column) : asc(column)) : desc(assessmentRequests.createdAt);
  const [rows, [{ total }]] = await Promise.all([
    joinedRequests(db).where(where).orderBy(order, asc(assessmentRequests.id)).limit(pageSize).offset(offset),
    db.select({ total: count() }).from(assessmentRequests).where(where),
  ]);
  return { rows: rows.map(toRequestView), total, page, pageSize };
}

async function loadRequest(db: DbOrTx, actor: Actor, id: string, right: 'read' | 'update' | 'delete', forUpdate = false): Promise<JoinedRequest & { sections: StoredSection[] }> {
  const query = db.select({ ...requestColumns, sections: assessmentTemplateVersions.sections }).from(assessmentRequests)
    .leftJoin(thirdParties, eq(thirdParties.id, assessmentRequests.thirdPartyId))
    .innerJoin(assessmentTemplateVersions, eq(assessmentTemplateVersions.id, assessmentRequests.templateVersionId))
    .where(eq(assessmentRequests.id, id));
  const [row] = forUpdate ? await query.for('update', { of: assessmentRequests }) : await query;
  if (!row) throw notFound(`Assessment request ${id}`);
  requireOnRecord(actor, `assessments:${right}`, row.request, `Assessment request ${id}`);
  return row;
}

async function fileNamesOf(db: DbOrTx, requestId: string): Promise<Map<string, string>> {
  const files = await db.select({ id: assessmentFiles.id, name: assessmentFiles.name }).from(assessmentFiles).where(eq(assessmentFiles.requestId, requestId));
  return new Map(files.map((f) => [f.id, f.name]));
}

/** The answers of a request as the reviewer reads them: each question, its answer in words, its weight and scores. */
export function reviewedAnswers(sections: readonly StoredSection[], answers: Record<string, StoredAnswer>, review: Record<string, StoredReview>, fileNames: ReadonlyMap<string, string>): RequestDetail['answers'] {
  const byKey = new Map(questionsOf(sections).map((q) => [q.key, q]));
  return sections.flatMap((s) => s.questions.map((q) => ({
    key: q.key, section: s.title, text: q.text, kind: q.kind, weight: q.weight, shown: isShown(q, answers, byKey),
    answer: answers[q.key] ?? null, answerText: answerText(q, answers[q.key], fileNames), templateScore: templateScore(q, answers[q.key]),
    reviewScore: review[q.key]?.score ?? null, comment: review[q.key]?.comment ?? '',
  })));
}

export async function getRequest(db: DbOrTx, actor: Actor, id: string): Promise<RequestDetail> {
  const row = await loadRequest(db, actor, id, 'read');
  return { ...toRequestView(row), answers: reviewedAnswers(row.sections, row.request.answers, row.request.review, await fileNamesOf(db, id)) };
}

export async function requestHistory(db: DbOrTx, actor: Actor, id: string): Promise<HistoryView[]> {
  await loadRequest(db, actor, id, 'read');
  return listHistory(db, REQUEST_TYPE, id);
}

async function changeRequest(tx: DbOrTx, actor: Actor, before: RequestRow, set: Partial<RequestRow>, action = 'update', details?: Record<string, unknown>): Promise<RequestRow> {
  const [after] = await tx.update(assessmentRequests).set({ ...set, updatedAt: new Date() }).where(eq(assessmentRequests.id, before.id)).returning();
  await recordChange(tx, actor, { module: MODULE, recordType: REQUEST_TYPE, recordId: before.id, action, before: requestFields(before), after: requestFields(after), details });
  return after;
}

const OPEN_FOR_ANSWERS = new Set(['sent', 'in_progress', 'returned']);

/** A reminder with a new link (only the hash of a link is kept, so a new mail needs a new one; the old link stops). */
export async function remindRequest(tx: DbOrTx, actor: Actor, id: string, base: string): Promise<{ url: string; expiresAt: string }> {
  const { request } = await loadRequest(tx, actor, id, 'update', true);
  if (!OPEN_FOR_ANSWERS.has(request.status)) throw conflict(`A reminder goes only to a questionnaire waiting for answers; this one is ${request.status.replace('_', ' ')}`);
  const secret = newSecret();
  const expiresAt = new Date(Math.max(expiryOf(request.dueOn).getTime(), Date.now() + 7 * 86_400_000));
  const after = await changeRequest(tx, actor, request, { secretHash: sha256Hex(secret), expiresAt }, 'reminder', { linkReplaced: true });
  await queueMail(tx, {
    kind: 'assessment.reminder', recipients: [after.respondentEmail], subject: `Reminder: ${after.title}`,
    body: mailBody(after, ['A reminder: the questionnaire is waiting for your answers. Your draft is kept. This link replaces the earlier one:', linkOf(base, secret)]),
  });
  return { url: linkOf(base, secret), expiresAt: expiresAt.toISOString() };
}

export async function revokeRequest(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const { request } = await loadRequest(tx, actor, id, 'update', true);
  if (request.status === 'accepted' || request.status === 'revoked') throw conflict(`This questionnaire is already ${request.status}`);
  await changeRequest(tx, actor, request, { status: 'revoked' }, 'revoke');
}

function requireSubmitted(request: RequestRow, doing: string) {
  if (request.status !== 'submitted') throw conflict(`Only a submitted questionnaire can be ${doing}; this one is ${request.status.replace('_', ' ')}`);
}

/** The reviewer's scores (0–100 % of each answer's weight) and comments; the score is worked out again. */
export async function reviewRequest(tx: DbOrTx, actor: Actor, id: string, input: ReviewInput): Promise<void> {
  const { request, sections } = await loadRequest(tx, actor, id, 'update', true);
  requireSubmitted(request, 'reviewed');
  const keys = new Set(questionsOf(sections).map((q) => q.key));
  const unknown = input.answers.filter((a) => !keys.has(a.key));
  if (unknown.length) throw invalid(unknown.map((a) => ({ field: a.key, message: 'there is no such question' })));
  const review = { ...request.review };
  for (const a of input.answers) {
    review[a.key] = { score: a.score === undefined ? review[a.key]?.score ?? null : a.score, comment: a.comment === undefined ? review[a.key]?.comment ?? '' : a.comment.trim() };
  }
  await changeRequest(tx, actor, request, { review, score: responseScore(sections, request.answers, review), reviewerId: actor.userId }, 'review', {
    reviewed: input.answers.map((a) => ({ question: a.key, score: a.score ?? null, comment: a.comment ?? null })),
  });
}

export async function acceptRequest(tx: DbOrTx, actor: Actor, id: string): Promise<void> {
  const { request } = await loadRequest(tx, actor, id, 'update', true);
  requireSubmitted(request, 'accepted');
  await changeRequest(tx, actor, request, { status: 'accepted', reviewedAt: new Date(), reviewerId: actor.userId }, 'accept');
}

/** Returns a response for changes: the link opens again (a new one, mailed with the reviewer's message). */
export async function returnRequest(tx: DbOrTx, actor: Actor, id: string, input: ReturnInput, base: string): Promise<{ url: string; expiresAt: string }> {
  const { request } = await loadRequest(tx, actor, id, 'update', true);
  requireSubmitted(request, 'returned');
  const secret = newSecret();
  const expiresAt = new Date(Math.max(expiryOf(request.dueOn).getTime(), Date.now() + 14 * 86_400_000));
  const after = await changeRequest(tx, actor, request, { status: 'returned', secretHash: sha256Hex(secret), expiresAt, reviewedAt: new Date(), reviewerId: actor.userId }, 'return', { message: input.message.trim() });
  await queueMail(tx, {
    kind: 'assessment.returned', recipients: [after.respondentEmail], subject: `Changes asked: ${after.title}`,
    body: mailBody(after, ['Your answers were returned for changes:', '', input.message.trim(), '', 'Open this link to change and submit them again:', linkOf(base, secret)]),
  });
  return { url: linkOf(base, secret), expiresAt: expiresAt.toISOString() };
}

function answerFor(sections: readonly StoredSection[], request: RequestRow, key: string, fileNames: ReadonlyMap<string, string>) {
  const q = questionsOf(sections).find((x) => x.key === key);
  if (!q) throw invalid([{ field: 'key', message: 'there is no such question' }]);
  return `${request.title}, question "${q.text}": ${answerText(q, request.answers[key], fileNames) || '(no answer)'}`;
}

/**
 * An audit finding from an answer, written through the audits register (its rules, History and Audit Log) in the same
 * transaction as the request's History entry. Needs assessments:update on the request and audits:create (403, audited).
 */
export async function createFindingFromAnswer(tx: DbOrTx, actor: Actor, id: string, input: FindingFromAnswer): Promise<{ id: string }> {
  const { request, sections } = await loadRequest(tx, actor, id, 'update', true);
  requirePermission(actor, 'audits:create');
  const source = answerFor(sections, request, input.key, await fileNamesOf(tx, id));
  const finding = await createRecord(tx, findingKind, actor, {
    auditPlanId: input.auditPlanId, title: input.title, description: [input.description?.trim(), `From the assessment ${source}`].filter(Boolean).join('\n\n'),
  });
  await recordChange(tx, actor, { module: MODULE, recordType: REQUEST_TYPE, recordId: id, action: 'finding.create', before: null, after: null, details: { question: input.key, findingId: finding.id } });
  return finding;
}

/** A risk from an answer, written through the risks service. Needs assessments:update on the request and risks:create (403, audited). */
export async function createRiskFromAnswer(tx: DbOrTx, actor: Actor, id: string, input: RiskFromAnswer): Promise<{ id: string }> {
  const { request, sections } = await loadRequest(tx, actor, id, 'update', true);
  requirePermission(actor, 'risks:create');
  const source = answerFor(sections, request, input.key, await fileNamesOf(tx, id));
  const risk = await createRisk(tx, actor, {
    title: input.title, description: [input.description?.trim(), `From the assessment ${source}`].filter(Boolean).join('\n\n'),
    classificationId: input.classificationId, inherentLikelihood: input.likelihood, inherentImpact: input.impact,
  });
  await recordChange(tx, actor, { module: MODULE, recordType: REQUEST_TYPE, recordId: id, action: 'risk.create', before: null, after: null, details: { question: input.key, riskId: risk.id } });
  return risk;
}

/** A third party's questionnaires, oldest first (their scores over time), for readers of assessments. */
/** Questionnaires a third party's page lists at most (all of them: the Questionnaires list filtered to it). */
export const THIRD_PARTY_ASSESSMENTS_SHOWN = 200;

export async function assessmentsOfThirdParty(db: DbOrTx, actor: Actor, thirdPartyId: string): Promise<RequestView[] | null> {
  if (levelOf(actor, 'assessments:read') === null) return null;
  return (await joinedRequests(db).where(and(eq(assessmentRequests.thirdPartyId, thirdPartyId), ownershipCondition(actor, 'assessments:read', assessmentRequests.ownerId, assessmentRequests.ownerGroupId)))
    .orderBy(asc(assessmentRequests.createdAt)).limit(THIRD_PARTY_ASSESSMENTS_SHOWN)).map(toRequestView);
}

// ---------------------------------------------------------------- the respondent's side (/assess/<token>)

const SECRET = /^[A-Za-z0-9_-]{43}$/;

/**
 * Every link that cannot be used answers the same 404 ("not found"), whatever the reason: the reason goes to the Audit
 * Log only (and counts against the address's refusal limit). The secret is hashed and looked up even when malformed,
 * so no case answers faster than another.
 */
const badLink = (reason: string) => new AppError('NOT_FOUND', 'not found', [], `assessment link ${reason}`);

export interface OpenLink {
  request: RequestRow;
  sections: StoredSection[];
  thirdPartyName: string | null;
  fileNames: Map<string, string>;
}

export async function openLink(db: DbOrTx, secret: string, forUpdate = false): Promise<OpenLink> {
  const hash = sha256Hex(secret);
  const query = db.select({ request: assessmentRequests, sections: assessmentTemplateVersions.sections, thirdPartyName: thirdParties.name }).from(assessmentRequests)
    .innerJoin(assessmentTemplateVersions, eq(assessmentTemplateVersions.id, assessmentRequests.templateVersionId))
    .leftJoin(thirdParties, eq(thirdParties.id, assessmentRequests.thirdPartyId))
    .where(eq(assessmentRequests.secretHash, hash));
  const [row] = forUpdate ? await query.for('update', { of: assessmentRequests }) : await query;
  if (!SECRET.test(secret)) throw badLink('malformed');
  if (!row) throw badLink('unknown (guessed, or replaced by a newer link)');
  if (row.request.status === 'revoked') throw badLink('revoked');
  if (row.request.status === 'accepted') throw badLink('closed: its answers were accepted');
  if (row.request.expiresAt <= new Date()) throw badLink('expired');
  // A write (forUpdate) needs no file names: one round trip less on every save.
  return { ...row, fileNames: forUpdate ? new Map() : await fileNamesOf(db, row.request.id) };
}

/** The respondent, as the Audit Log and History name them: no account, the address the link was sent to. */
// Through the system door, so History and the Audit Log tell the link (its source) where a person's screen would say "In the app".
export const respondentActor = (request: RequestRow): Actor => ({ ...systemActor(), source: `assessment link sent to ${request.respondentEmail}` });

export class AlreadySubmitted extends AppError {
  constructor() {
    super('CONFLICT', 'These answers were already submitted (perhaps from another window or tab); nothing more was saved. They are shown below as they were submitted.');
  }
}

export interface FileToRecord {
  key: string;
  name: string;
  storageKey: string;
  size: number;
  sha256: string;
  contentType: string;
}

/**
 * Saves the respondent's answers as a draft, or submits them (once): in one transaction with the request locked, so
 * of two tabs submitting at once one wins and the other is told. A draft may be incomplete; a submission needs every
 * shown required question. Stored files of this write are recorded with it, sealed by their SHA-256 and linked to the
 * request's third party; a refusal records nothing (the caller removes the stored bytes).
 */
export async function saveResponse(tx: DbOrTx, secret: string, given: Record<string, StoredAnswer>, revision: number, submit: boolean, files: readonly FileToRecord[] = []): Promise<RequestRow> {
  const link = await openLink(tx, secret, true);
  const { request, sections } = link;
  if (request.status === 'submitted') throw new AlreadySubmitted();
  if (revision !== request.revision) {
    throw conflict('These answers were changed in another window or tab since this page was opened; nothing was saved. The page now shows the saved answers.');
  }
  const actor = respondentActor(request);
  const withFiles: Record<string, StoredAnswer> = { ...given };
  const recorded = files.length
    ? await tx.insert(assessmentFiles).values(files.map((f) => ({ requestId: request.id, questionKey: f.key, thirdPartyId: request.thirdPartyId, name: f.name, storageKey: f.storageKey, size: f.size, sha256: f.sha256, contentType: f.contentType }))).returning()
    : [];
  for (const f of recorded) withFiles[f.questionKey] = f.id;
  const { answers, problems } = checkAnswers(sections, withFiles, submit);
  if (problems.length) throw invalid(problems);
  const stored = normalised(sections, answers);
  const now = new Date();
  const set = {
    answers: stored, revision: request.revision + 1, status: submit ? 'submitted' as const : 'in_progress' as const, submittedAt: submit ? now : request.submittedAt,
    score: submit ? responseScore(sections, stored, request.review) : request.score, updatedAt: now,
  };
  const after: RequestRow = { ...request, ...set };
  // The update, the Audit Log and History entries (and a submission's owner look-up) are sent without waiting for each
  // other: one connection runs them in order, so a save waits for the database about half as many times.
  const writes = new PipelinedWrites();
  writes.send(tx.update(assessmentRequests).set(set).where(eq(assessmentRequests.id, request.id)));
  const owner = submit && request.ownerId ? tx.select({ email: users.email }).from(users).where(eq(users.id, request.ownerId)).then((rows) => rows[0]) : undefined;
  // Its failure is the transaction's, rethrown below where it is awaited (or by drain); never an unhandled rejection meanwhile.
  owner?.catch(() => undefined);
  await recordChanges(tx, actor, [{
    module: MODULE, recordType: REQUEST_TYPE, recordId: request.id, action: submit ? 'submit' : 'draft', before: { status: request.status, answered: Object.keys(request.answers).length },
    after: { status: after.status, answered: Object.keys(stored).length, score: after.score },
    details: recorded.length ? { files: recorded.map((f) => ({ question: f.questionKey, name: f.name, sha256: f.sha256, size: f.size })) } : undefined,
  }], writes);
  if (submit) {
    await queueMail(tx, {
      kind: 'assessment.submitted', recipients: [request.respondentEmail], subject: `Submitted: ${request.title}`,
      body: mailBody(request, ['Thank you: your answers were submitted. The link now shows them read-only until they are reviewed.']),
    });
    const ownerEmail = (await owner)?.email;
    if (ownerEmail) {
      await queueMail(tx, {
        kind: 'assessment.submitted', recipients: [ownerEmail], subject: `Answers submitted: ${request.title}`,
        body: `${request.respondentEmail} submitted the answers of "${request.title}". Review them at /assessments/requests/${request.id}.`,
      });
    }
  }
  await writes.drain();
  return after;
}

/** The request rows the third party's file answers are linked to, for the file download of a reader. */
export async function requestFile(db: DbOrTx, actor: Actor, requestId: string, fileId: string) {
  await loadRequest(db, actor, requestId, 'read');
  const [file] = await db.select().from(assessmentFiles).where(and(eq(assessmentFiles.id, fileId), eq(assessmentFiles.requestId, requestId)));
  if (!file) throw notFound(`File ${fileId}`);
  return file;
}

export const templateChoices = async (db: DbOrTx, actor: Actor) =>
  (await db.select({ value: assessmentTemplates.id, label: assessmentTemplates.title }).from(assessmentTemplates).where(readableTemplates(actor)).orderBy(asc(assessmentTemplates.title)));

export const thirdPartyChoices = (db: DbOrTx, actor: Actor) => readableChoices(db, actor, recordType('thirdParty'));


/** The choices of the "from an answer" forms: audit plans the viewer may read, risk classifications and the scale's levels. */
export async function fromAnswerChoices(db: DbOrTx, actor: Actor) {
  const [plans, classifications, likelihoods, impacts] = await Promise.all([
    levelOf(actor, 'audits:create') ? readableChoices(db, actor, recordType('auditPlan')) : [],
    db.select({ value: riskClassifications.id, label: riskClassifications.name }).from(riskClassifications).orderBy(asc(riskClassifications.name)),
    db.select({ value: riskLikelihoodLevels.value, name: riskLikelihoodLevels.name }).from(riskLikelihoodLevels).orderBy(asc(riskLikelihoodLevels.value)),
    db.select({ value: riskImpactLevels.value, name: riskImpactLevels.name }).from(riskImpactLevels).orderBy(asc(riskImpactLevels.value)),
  ]);
  const levels = (rows: { value: number; name: string }[]) => rows.map((r) => ({ value: String(r.value), label: `${r.value} ${r.name}` }));
  return { plans, classifications, likelihoods: levels(likelihoods), impacts: levels(impacts) };
}
export type FromAnswerChoices = Awaited<ReturnType<typeof fromAnswerChoices>>;
