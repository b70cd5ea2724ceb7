import { t } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { attempt, formList, formText } from '../../platform/http/form-input';
import { platformService } from '../../platform/http/installed';
import { renderScreen } from '../../platform/http/screen';
import { canTouch, type Actor } from '../../platform/permissions/permissions';
import { listStateOf, OWNER_FIELDS, ownerColumn, recordPages } from '../../platform/record-screens/record-pages';
import { columnsCsv, readable, type ListState } from '../../platform/record-screens/record-views';
import { readerZone } from '../../platform/csv/zone';
import { csvFile } from '../../platform/csv/list-download';
import { getRecord, loadForAction, updateRecord } from '../../platform/records/records';
import { fieldErrors } from '../../../views/components/form';
import { PROGRAM_STATUSES, ProgramCreate, ProgramUpdate, RESULT_STATUSES } from './schema';
import { resultProgram, completion, lockedTestReason, nextRound, programResultsCsv, listMyTraining, listResults, MY_TRAINING_SORTS, programKind, publishProgram, startTraining, submitAttempt, training, type MyTrainingQuery } from './service';
import { CompletionPage, MY_TRAINING_PATH, MyTraining, myTrainingColumns, ProgramActions, QuestionEditor, TrainingPage, type QuestionEditorProps, type TrainingPageProps } from './views';
import { parseQuestionText, questionText } from './question-text';

const shell = (title: string, viewer: Actor, csrfToken: string, active = 'awareness') => ({ title, viewer, csrfToken, active });
const ResultParam = t.Object({ id: t.String({ format: 'uuid' }) });

/** "My training"'s filters, sort and page as the address holds them (anything not offered reads as not set). */
const myTrainingState = (query: Record<string, string | undefined>) =>
  listStateOf(query, { statuses: RESULT_STATUSES, sortable: (sort) => (MY_TRAINING_SORTS as readonly string[]).includes(sort.replace(/^-/, '')) });
const isResultStatus = (value: string): value is (typeof RESULT_STATUSES)[number] => (RESULT_STATUSES as readonly string[]).includes(value);
const myTrainingQuery = (state: ListState, page: number, pageSize: number): MyTrainingQuery => ({
  page, pageSize, ...(state.q ? { q: state.q } : {}), ...(isResultStatus(state.status) ? { status: state.status } : {}), ...(state.sort ? { sort: state.sort } : {}),
});

/** Program screens (the register kit), the completion page, and "My training" where a person takes their programs. */
export function awarenessPages(ctx: AppContext) {
  const groupOptions = async () => (await platformService('listGroups')(ctx.db)).map((g) => ({ value: g.id, label: g.name }));
  const userOptions = async () => (await platformService('listUsers')(ctx.db)).filter((u) => u.status === 'active').map((u) => ({ value: u.id, label: u.name }));

  const trainingScreen = async (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, id: string, extra: Omit<TrainingPageProps, 'training' | 'csrfToken'> = {}) => {
    const tr = await training(ctx.db, viewer, id);
    return renderScreen(headers, shell(tr.title, viewer, csrfToken, 'awarenessMine'), <TrainingPage training={tr} csrfToken={csrfToken} {...extra} />);
  };

  const lockedReason = async (programId: string) => {
    const reason = await lockedTestReason(ctx.db, programId);
    return reason ? `The questions ${reason}.` : null;
  };
  const questionScreen = (headers: Record<string, string | undefined>, viewer: Actor, csrfToken: string, props: Omit<QuestionEditorProps, 'csrfToken'>) =>
    renderScreen(headers, shell(`Test of ${props.programTitle}`, viewer, csrfToken), <QuestionEditor {...props} csrfToken={csrfToken} />);

  return recordPages(ctx, programKind, {
    path: '/awareness/programs',
    title: 'Awareness programs',
    singular: 'Awareness program',
    navKey: 'awareness',
    Create: ProgramCreate,
    Update: ProgramUpdate,
    statuses: PROGRAM_STATUSES,
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true },
      { name: 'content', label: 'Content (Markdown)', kind: 'textarea' },
      { name: 'contentUrl', label: 'Link to the content', kind: 'url', hint: 'Instead of, or beside, the Markdown' },
      { name: 'audienceGroupIds', label: 'Audience groups', kind: 'checkboxes', options: groupOptions },
      { name: 'audienceUserIds', label: 'Audience people', kind: 'checkboxes', options: userOptions },
      { name: 'startsOn', label: 'Starts on', kind: 'date' },
      { name: 'endsOn', label: 'Ends on', kind: 'date' },
      { name: 'passMark', label: 'Pass mark (%)', kind: 'number', hint: 'Blank gives 80' },
      { name: 'recurrenceMonths', label: 'Repeats every (months)', kind: 'number', hint: 'Blank: runs once. A recurring program needs a start and an end date; each round everyone takes it again' },
      ...OWNER_FIELDS,
    ],
    columns: [
      { header: 'Title', value: (p) => p.title, link: true, sort: 'title' },
      { header: 'Status', value: (p) => readable(p.status), sort: 'status' },
      { header: 'Starts on', value: (p) => p.startsOn ?? '', sort: 'startsOn' },
      { header: 'Ends on', value: (p) => p.endsOn ?? '', sort: 'endsOn' },
      ownerColumn(),
    ],
    sections: async (view, viewer, csrfToken) => {
      const program = view;
      return (
        <section>
          <h2>Test and assignment</h2>
          <p safe>{program.questions.length
            ? `${program.questions.length} question${program.questions.length === 1 ? '' : 's'}, pass mark ${program.passMark}%.`
            : 'No test: a person passes by confirming they have read the content.'}</p>
          {program.recurrenceMonths && program.startsOn ? <p safe>{`Repeats every ${program.recurrenceMonths} month${program.recurrenceMonths === 1 ? '' : 's'}: the next round starts on ${nextRound(program.startsOn, program.recurrenceMonths)}, when everyone in the audience takes it again.`}</p> : ''}
          {canTouch(viewer, 'awareness:update', program) ? <>
            <p><a href={`/awareness/programs/${program.id}/questions`}>{program.questions.length ? 'Edit the test' : 'Write a test'}</a></p>
            <ProgramActions id={program.id} status={program.status} csrfToken={csrfToken} />
          </>
            : <p><a href={`/awareness/programs/${program.id}/completion`}>Completion</a></p>}
        </section>
      );
    },
  })
    .post('/awareness/programs/:id/publish', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => publishProgram(tx, viewer, params.id));
      return redirect(`/awareness/programs/${params.id}?done=updated`, 303);
    }, { page: 'awareness:update', params: ResultParam })
    .get('/awareness/programs/:id/questions', async ({ viewer, csrfToken, headers, params }) => {
      const program = await loadForAction(ctx.db, programKind, viewer, params.id, 'update');
      return questionScreen(headers, viewer, csrfToken, {
        programId: program.id, programTitle: program.title, text: questionText(program.questions), locked: await lockedReason(program.id),
      });
    }, { page: 'awareness:update', params: ResultParam })
    .post('/awareness/programs/:id/questions', async ({ viewer, csrfToken, headers, params, body, set, redirect }) => {
      const program = await loadForAction(ctx.db, programKind, viewer, params.id, 'update');
      const text = formText(body, 'questions');
      const parsed = parseQuestionText(text);
      const saved = parsed.problems.length ? null
        : await attempt(() => runWrite(ctx, (tx) => updateRecord(tx, programKind, viewer, params.id, { questions: parsed.questions })));
      if (saved?.ok) return redirect(`/awareness/programs/${params.id}?done=updated`, 303);
      set.status = saved ? saved.error.status : 400;
      const problems = saved
        ? (saved.error.problems.length ? saved.error.problems.map((p) => ({ message: `The questions ${p.message}.` })) : [{ message: saved.error.message }])
        : parsed.problems;
      return questionScreen(headers, viewer, csrfToken, {
        programId: program.id, programTitle: program.title, text, problems: problems.map((p) => p.message), locked: await lockedReason(program.id),
      });
    }, { page: 'awareness:update', params: ResultParam })
    // A result's address (History and the Audit Log link results there): its program's completion page.
    .get('/awareness/results/:resultId', async ({ viewer, params, redirect }) => redirect(`/awareness/programs/${await resultProgram(ctx.db, viewer, params.resultId)}/completion`, 303),
      { page: 'awareness:read' })
    .get('/awareness/programs/:id/completion', async ({ viewer, csrfToken, headers, params }) => {
      const program = await getRecord(ctx.db, programKind, viewer, params.id);
      const [c, people] = await Promise.all([completion(ctx.db, viewer, params.id), listResults(ctx.db, viewer, { programId: params.id, pageSize: 200, sort: 'status' })]);
      return renderScreen(headers, shell(`Completion of ${program.title}`, viewer, csrfToken),
        <CompletionPage programId={params.id} completion={c} results={people.rows} truncated={people.total > people.rows.length} />);
    }, { page: 'awareness:read', params: ResultParam })
    .get('/awareness/programs/:id/results.csv', async ({ viewer, params, set }) => {
      const csv = await programResultsCsv(ctx.db, viewer, params.id);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="awareness-results-${new Date().toISOString().slice(0, 10)}.csv"`;
      return csv;
    }, { page: 'awareness:read', params: ResultParam })
    .get(MY_TRAINING_PATH, async ({ viewer, csrfToken, headers, query }) => {
      const state = myTrainingState(query);
      return renderScreen(headers, shell('My training', viewer, csrfToken, 'awarenessMine'),
        <MyTraining page={await listMyTraining(ctx.db, viewer, myTrainingQuery(state, state.page, state.pageSize))} state={state} />);
    }, { page: true })
    // The list as filtered and sorted on screen, as CSV in its words (times in the reader's zone when the link carries it).
    .get(`${MY_TRAINING_PATH}/export.csv`, async ({ viewer, query, set }) => {
      const { rows } = await listMyTraining(ctx.db, viewer, myTrainingQuery(myTrainingState(query), 1, 5_000));
      return csvFile(set, 'my-training', columnsCsv(myTrainingColumns(readerZone(query.tz)), rows));
    }, { page: true })
    .get('/awareness/my/:id', async ({ viewer, csrfToken, headers, params }) => {
      // Opening the content starts the training (once).
      await runWrite(ctx, (tx) => startTraining(tx, viewer, params.id));
      return trainingScreen(headers, viewer, csrfToken, params.id);
    }, { page: true, params: ResultParam })
    .post('/awareness/my/:id/submit', async ({ viewer, csrfToken, headers, params, body, set }) => {
      const tr = await training(ctx.db, viewer, params.id);
      const chosen = tr.questions.map((_, i) => formList(body, `q${i}`).filter((v) => /^\d$/.test(v)).map(Number));
      const result = await attempt(() => runWrite(ctx, (tx) => submitAttempt(tx, viewer, params.id, { answers: chosen })));
      if (result.ok) return trainingScreen(headers, viewer, csrfToken, params.id, { outcome: result.value });
      set.status = result.error.status;
      return trainingScreen(headers, viewer, csrfToken, params.id, {
        errors: fieldErrors(result.error.problems), error: result.error.problems.length ? 'Please answer every question marked below.' : result.error.message, chosen,
      });
    }, { page: true, params: ResultParam });
}
