import { Elysia, t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { attempt, formList, formText, schemaProblems } from '../../platform/http/form-input';
import { platformService } from '../../platform/http/installed';
import { renderScreen } from '../../platform/http/screen';
import { screenAuth } from '../../platform/http/screen-auth';
import { invalid } from '../../platform/core/errors';
import { valueLabel } from '../../platform/core/value-labels';
import { mailLink } from '../../platform/notifications/wording';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import { describeHistory, historyWithParts } from '../../platform/records/history-format';
import { readableChoices, recordType } from '../../platform/records/record-types';
import { fieldErrors } from '../../../views/components/form';
import {
  answerQuestionnaire, decideProposal, fieldLabelOf, getQuestionnaire, listMyQuestionnaires, listQuestionnaires, MY_QUESTIONNAIRES_PATH,
  QUESTIONNAIRE_PATH, QUESTIONNAIRE_TYPE, sendQuestionnaire,
} from './questionnaire-service';
import {
  AnswerPage, MyQuestionnaires, myQuestionnaireColumns, QUESTIONNAIRE_CSV_COLUMNS, QuestionnaireList, QuestionnairePage, SendForm, STATUS_WORDS, type AnswerFormState, type QuestionnaireFilters,
  type SendFormState,
} from './questionnaire-views';
import { toCsv } from '../../platform/csv/write';
import { csvFile } from '../../platform/csv/list-download';
import { readerZone } from '../../platform/csv/zone';
import { listStateOf } from '../../platform/record-screens/record-pages';
import { columnsCsv, type ListState } from '../../platform/record-screens/record-views';
import { isUuid } from '../../platform/core/uuid';
import { QUESTIONNAIRE_SORTS, QUESTIONNAIRE_STATUSES, QuestionnaireAnswers, type QuestionnaireListQuery, QuestionnaireCreate, type QuestionnaireAnswers as Answers, type QuestionnaireCreate as Create, type QuestionnaireView } from './schema';

const IdParam = t.Object({ id: t.String({ format: 'uuid' }) });
const ProposalParam = t.Object({ id: t.String({ format: 'uuid' }), field: t.String({ maxLength: 100 }), decision: t.Union([t.Literal('accept'), t.Literal('reject')]) });
const isStatus = (value: string): value is (typeof QUESTIONNAIRE_STATUSES)[number] => (QUESTIONNAIRE_STATUSES as readonly string[]).includes(value);
const SORT_KEYS: readonly string[] = QUESTIONNAIRE_SORTS.flatMap((s) => [s, `-${s}`]);

/** The list's filters and sort as the address holds them; anything not recognised reads as not set, as on every list. */
function listFilters(query: Record<string, string | undefined>): QuestionnaireFilters {
  const status = query.status ?? '';
  return {
    q: (query.q ?? '').trim().slice(0, 200), status: isStatus(status) ? status : '', ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
    processingActivityId: isUuid(query.processingActivityId ?? '') ? query.processingActivityId! : '',
    sort: SORT_KEYS.includes(query.sort ?? '') ? query.sort! : '',
  };
}

/** The filters as the service reads them (blanks left out). */
const listQuery = (f: QuestionnaireFilters): Omit<QuestionnaireListQuery, 'page' | 'pageSize'> => ({
  ...(f.q ? { q: f.q } : {}), ...(isStatus(f.status) ? { status: f.status } : {}), ...(f.ownerId ? { ownerId: f.ownerId } : {}),
  ...(f.processingActivityId ? { processingActivityId: f.processingActivityId } : {}), ...(f.sort ? { sort: f.sort } : {}),
});

/** "My privacy questionnaires"' filters, sort and page as the address holds them (anything not offered reads as not set). */
const myListState = (query: Record<string, string | undefined>) => listStateOf(query, { statuses: QUESTIONNAIRE_STATUSES, sortable: (sort) => SORT_KEYS.includes(sort) });
const myListQuery = (state: ListState, page: number, pageSize: number) => ({ page, pageSize, ...listQuery({ q: state.q, status: state.status, ownerId: '', processingActivityId: '', sort: state.sort }) });

/** The labels History gives a questionnaire's own fields. */
const HISTORY_LABELS: Record<string, string> = {
  title: 'Title', processingActivityId: 'Processing activity', recipientId: 'Person asked', message: 'Message', fields: 'Fields asked about',
  dueOn: 'Answers due on', status: 'Status', answers: 'Answers', answeredAt: 'Answered at', ownerId: 'Sent by',
};
const DONE: Record<string, string> = {
  sent: 'Questionnaire sent. The person asked was told by mail.', accepted: 'Proposal accepted: the processing activity is changed.',
  rejected: 'Proposal rejected.', answered: 'Thank you: your answers were sent to the privacy team.',
};

/** A stored answers value (History keeps the whole list) in words: "Retention: proposed “7 years” (accepted)". */
function answersInWords(value: unknown): string | undefined {
  if (!Array.isArray(value)) return undefined;
  const text = (o: unknown, key: string): string | null => {
    const v: unknown = o !== null && typeof o === 'object' ? Reflect.get(o, key) : null;
    return typeof v === 'string' ? v : null;
  };
  if (value.length === 0) return '—';
  return value.map((a) => {
    const field = text(a, 'field') ?? '';
    const proposed = text(a, 'proposed');
    const decision = text(a, 'decision');
    const shown = proposed === null ? 'confirmed' : `proposed “${field === 'legalBasis' ? valueLabel(proposed) : proposed}”${decision ? ` (${decision === 'pending' ? 'to decide' : decision})` : ''}`;
    return `${fieldLabelOf(field)}: ${shown}`;
  }).join('; ');
}

/**
 * Data Liaison questionnaires on screen: the privacy officer's list, form and page (dataPrivacy rights), and "My privacy
 * questionnaires" where the person asked answers (signed in is enough; the service admits only the person asked).
 */
export const questionnairePages = (app: AppContext) => {
  const link = (path: string) => mailLink(app.config, path);
  const shell = (title: string, viewer: Actor, csrfToken: string, active = 'privacy-questionnaires', actions?: JSX.Element) => ({ title, viewer, csrfToken, active, actions });

  const sendChoices = async (viewer: Actor) => {
    const [activities, people] = await Promise.all([
      readableChoices(app.db, viewer, recordType('processingActivity')),
      platformService('listUsers')(app.db),
    ]);
    return { activities, people: people.filter((u) => u.status === 'active').map((u) => ({ value: u.id, label: u.name })) };
  };

  const history = async (viewer: Actor, id: string) => describeHistory(app.db, viewer, await historyWithParts(app.db, QUESTIONNAIRE_TYPE, id), {
    own: { recordType: QUESTIONNAIRE_TYPE, recordId: id },
    label: (type, field) => (type === QUESTIONNAIRE_TYPE ? HISTORY_LABELS[field] : undefined),
    name: (type, field, value) => {
      if (type !== QUESTIONNAIRE_TYPE) return undefined;
      if (field === 'answers') return answersInWords(value);
      if (field === 'fields' && Array.isArray(value)) return value.map((f) => fieldLabelOf(String(f))).join(', ');
      if (field === 'status' && typeof value === 'string' && isStatus(value)) return STATUS_WORDS[value];
      return undefined;
    },
  });

  const officerPage = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, id: string, messages: { done?: string | null; refusal?: string | null } = {}) => {
    const q = await getQuestionnaire(app.db, viewer, id, 'officer');
    return renderScreen(headers, shell(q.title, viewer, csrfToken),
      <QuestionnairePage q={q} csrfToken={csrfToken} canDecide={canTouch(viewer, 'dataPrivacy:update', q)} history={await history(viewer, id)} {...messages} />);
  };

  /** Accept or reject from the questionnaire's page; a change the processing activity's rules refuse is told there. */
  const decide = async (decision: 'accepted' | 'rejected', viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, id: string, field: string, reason: string) => {
    const result = await attempt(() => runWrite(app, (tx) => decideProposal(tx, viewer, id, field, decision, reason)));
    if (result.ok) return null;
    const why = result.error.problems.length
      ? `Not ${decision}: ${result.error.problems.map((p) => `${fieldLabelOf(p.field)} ${p.message}`).join('; ')}`
      : `Not ${decision}: ${result.error.message}`;
    return { status: result.error.status, screen: await officerPage(headers, viewer, csrfToken, id, { refusal: why }) };
  };

  const answerPage = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, q: QuestionnaireView, state?: AnswerFormState, done?: string | null) =>
    renderScreen(headers, shell(q.title, viewer, csrfToken, 'my-privacy-questionnaires'), <AnswerPage q={q} csrfToken={csrfToken} state={state} done={done} />);

  return new Elysia({ name: 'pages:data-privacy:questionnaires' })
    .use(screenAuth(app))
    .get(QUESTIONNAIRE_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const filters = listFilters(query);
      const pageNumber = Math.max(1, Number.parseInt(typeof query.page === 'string' ? query.page : '1', 10) || 1);
      const [page, users, activities] = await Promise.all([
        listQuestionnaires(app.db, viewer, { ...listQuery(filters), page: pageNumber, pageSize: 25 }), platformService('listUsers')(app.db),
        readableChoices(app.db, viewer, recordType('processingActivity')),
      ]);
      const actions = levelOf(viewer, 'dataPrivacy:create') !== null ? <a class="button" href={`${QUESTIONNAIRE_PATH}/new`}>New questionnaire</a> : undefined;
      return renderScreen(headers, shell('Data Liaison questionnaires', viewer, csrfToken, 'privacy-questionnaires', actions),
        <QuestionnaireList page={page} filters={filters} owners={users.map((u) => ({ value: u.id, label: u.name }))} activities={activities} />);
    }, { page: 'dataPrivacy:read' })
    // The list as filtered and sorted on screen, as CSV in its columns and words, at most 5,000 questionnaires.
    .get(`${QUESTIONNAIRE_PATH}.csv`, async ({ viewer, query, set }) => {
      const rows: QuestionnaireView[] = [];
      for (let n = 1; rows.length < 5_000; n++) {
        const chunk = await listQuestionnaires(app.db, viewer, { ...listQuery(listFilters(query)), page: n, pageSize: 200 });
        rows.push(...chunk.rows);
        if (n * 200 >= chunk.total) break;
      }
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="liaison-questionnaires-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv([QUESTIONNAIRE_CSV_COLUMNS.map((c) => c.header), ...rows.slice(0, 5_000).map((q) => QUESTIONNAIRE_CSV_COLUMNS.map((c) => c.text(q)))]);
    }, { page: 'dataPrivacy:read' })
    .get(`${QUESTIONNAIRE_PATH}/new`, async ({ viewer, csrfToken, headers, query }) => {
      const choices = await sendChoices(viewer);
      const activity = typeof query.processingActivityId === 'string' ? query.processingActivityId : '';
      return renderScreen(headers, shell('New questionnaire', viewer, csrfToken),
        <SendForm csrfToken={csrfToken} {...choices} state={{ values: { processingActivityId: activity } }} />);
    }, { page: 'dataPrivacy:create' })
    .post(QUESTIONNAIRE_PATH, async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const names = ['title', 'processingActivityId', 'recipientId', 'dueOn', 'message'] as const;
      const values = Object.fromEntries(names.map((n) => [n, formText(body, n).trim()]));
      const fields = formList(body, 'fields');
      const input: Record<string, unknown> = {
        title: values.title, processingActivityId: values.processingActivityId, recipientId: values.recipientId, fields,
        message: values.message, dueOn: values.dueOn || null,
      };
      const result = await attempt(() => {
        const problems = schemaProblems(QuestionnaireCreate, input, (f) => f.replace(/\..*$/, ''));
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => sendQuestionnaire(tx, viewer, { ...input, fields } as Create, link));
      });
      if (result.ok) return redirect(`${QUESTIONNAIRE_PATH}/${result.value.id}?done=sent`, 303);
      set.status = result.error.status;
      const state: SendFormState = { values, fields, errors: fieldErrors(result.error.problems), error: result.error.message };
      return renderScreen(headers, shell('New questionnaire', viewer, csrfToken), <SendForm csrfToken={csrfToken} {...await sendChoices(viewer)} state={state} />);
    }, { page: 'dataPrivacy:create' })
    .get(`${QUESTIONNAIRE_PATH}/:id`, async ({ viewer, csrfToken, headers, params, query }) =>
      officerPage(headers, viewer, csrfToken, params.id, { done: typeof query.done === 'string' ? DONE[query.done] ?? null : null }), { page: 'dataPrivacy:read', params: IdParam })
    .post(`${QUESTIONNAIRE_PATH}/:id/proposals/:field/:decision`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const decision = params.decision === 'accept' ? 'accepted' : 'rejected';
      const refused = await decide(decision, viewer, csrfToken, headers, params.id, params.field, formText(body, 'reason'));
      if (!refused) return redirect(`${QUESTIONNAIRE_PATH}/${params.id}?done=${decision}`, 303);
      set.status = refused.status;
      return refused.screen;
    }, { page: 'dataPrivacy:update', params: ProposalParam })
    .get(MY_QUESTIONNAIRES_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const state = myListState(query);
      return renderScreen(headers, shell('My privacy questionnaires', viewer, csrfToken, 'my-privacy-questionnaires'),
        <MyQuestionnaires page={await listMyQuestionnaires(app.db, viewer, myListQuery(state, state.page, state.pageSize))} state={state} />);
    }, { page: true })
    // The list as filtered and sorted on screen, as CSV in its words (times in the reader's zone when the link carries it).
    .get(`${MY_QUESTIONNAIRES_PATH}/export.csv`, async ({ viewer, query, set }) => {
      const { rows } = await listMyQuestionnaires(app.db, viewer, myListQuery(myListState(query), 1, 5_000));
      return csvFile(set, 'my-privacy-questionnaires', columnsCsv(myQuestionnaireColumns(readerZone(query.tz)), rows));
    }, { page: true })
    .get(`${MY_QUESTIONNAIRES_PATH}/:id`, async ({ viewer, csrfToken, headers, params, query, redirect }) => {
      const q = await getQuestionnaire(app.db, viewer, params.id);
      // An officer opening the person's screen is sent to their own: only the person asked answers here.
      if (q.recipient.id !== viewer.userId) return redirect(`${QUESTIONNAIRE_PATH}/${q.id}`, 303);
      return answerPage(headers, viewer, csrfToken, q, undefined, typeof query.done === 'string' ? DONE[query.done] ?? null : null);
    }, { page: true, params: IdParam })
    .post(`${MY_QUESTIONNAIRES_PATH}/:id`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const q = await getQuestionnaire(app.db, viewer, params.id);
      const proposed = Object.fromEntries(q.fields.map((f) => [f, formText(body, `proposed-${f}`)]));
      const comments = Object.fromEntries(q.fields.map((f) => [f, formText(body, `comment-${f}`)]));
      const input = { answers: q.fields.map((field) => ({ field, proposed: proposed[field], comment: comments[field] })) };
      const result = await attempt(() => {
        // A problem of the n-th answer is the n-th field's: shown beside that field.
        const problems = schemaProblems(QuestionnaireAnswers, input, (f) => {
          const n = /^answers\.(\d+)/.exec(f)?.[1];
          return n === undefined ? f : `answers.${q.fields[Number(n)]}`;
        });
        if (problems.length) throw invalid(problems);
        return runWrite(app, (tx) => answerQuestionnaire(tx, viewer, params.id, input as Answers, link));
      });
      if (result.ok) return redirect(`${MY_QUESTIONNAIRES_PATH}/${params.id}?done=answered`, 303);
      set.status = result.error.status;
      return answerPage(headers, viewer, csrfToken, q, { proposed, comments, errors: fieldErrors(result.error.problems), error: result.error.message });
    }, { page: true, params: IdParam });
};
