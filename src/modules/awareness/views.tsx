import { renderMarkdown, safeHref } from '../../platform/core/markdown';
import { CsrfField, ErrorSummary } from '../../../views/components/form';
import { Flash, FormError } from '../../../views/components/flash';
import { DataTable, Text, When } from '../../../views/components/table';
import { RecordList, type ListColumn, type ListState } from '../../platform/record-screens/record-views';
import { zonedHeader, zonedTime } from '../../platform/csv/zone';
import type { Page } from '../../platform/http/paging';
import { RESULT_STATUSES, type CompletionView, type ResultView, type TrainingView } from './schema';
import { resultStatusLabel, type MyTrainingItem } from './service';

const statusLabel = (status: ResultView['status']) => resultStatusLabel(status);

export const MY_TRAINING_PATH = '/awareness/my';

/**
 * "My training"'s columns: on screen times in the reader's zone by the page's script, in the CSV export in `zone` (the
 * header naming it); statuses as words, a blank score or due date as nothing written.
 */
export const myTrainingColumns = (zone: string): ListColumn<MyTrainingItem>[] => [
  { header: 'Program', value: (r) => r.programTitle, link: true, sort: 'program' },
  { header: 'Status', value: (r) => statusLabel(r.status), sort: 'status' },
  { header: 'Score', value: (r) => (r.score === null ? '' : `${r.score}%`), cell: (r) => <Text value={r.score === null ? '—' : `${r.score}%`} />, sort: 'score' },
  { header: 'Attempts', value: (r) => r.attempts, sort: 'attempts' },
  { header: 'Due', value: (r) => r.endsOn ?? '', cell: (r) => <Text value={r.endsOn ?? '—'} />, sort: 'due' },
  { header: 'Completed', only: 'screen', value: (r) => r.completedAt ?? '', cell: (r) => <When value={r.completedAt} local />, sort: 'completedAt' },
  { header: zonedHeader('Assigned', zone), only: 'export', value: (r) => zonedTime(r.assignedAt, zone) },
  { header: zonedHeader('Completed', zone), only: 'export', value: (r) => zonedTime(r.completedAt, zone) },
];

/** "My training": the programs assigned to the viewer that have started: the one filter bar, sorting headers, paging, Export. */
export function MyTraining({ page, state }: { page: Page<MyTrainingItem>; state: ListState }): JSX.Element {
  return (
    <div>
      <p>The awareness programs assigned to you. Open one to read it and take its test.</p>
      <RecordList<MyTrainingItem> path={MY_TRAINING_PATH} page={page} state={state} plural="Assigned programs" singular="Assigned program"
        columns={myTrainingColumns('UTC').filter((c) => c.only !== 'export')} canCreate={false} searchLabel="Search program titles" zoned
        statuses={RESULT_STATUSES} statusOptions={RESULT_STATUSES.map((s) => ({ value: s, label: statusLabel(s) }))}
        emptyHint="Nothing is assigned to you at the moment." />
    </div>
  );
}

export interface TrainingPageProps {
  training: TrainingView;
  csrfToken: string;
  /** The outcome of the attempt just submitted. */
  outcome?: { status: 'passed' | 'failed'; score: number } | null;
  error?: string;
  /** Per question, the message of a refused submission. */
  errors?: Record<string, string>;
  /** The choices of a refused submission, kept. */
  chosen?: number[][];
}

/** One assigned program as its person takes it: the content, then the test (or a confirmation when there is none). */
export function TrainingPage(p: TrainingPageProps): JSX.Element {
  const { training: tr } = p;
  const link = tr.contentUrl ? safeHref(tr.contentUrl) : null;
  const done = tr.result.status === 'passed';
  return (
    <div>
      <p><a href="/awareness/my">← My training</a></p>
      {p.outcome ? <Flash kind={p.outcome.status === 'passed' ? 'success' : 'error'}
        message={p.outcome.status === 'passed' ? `Passed with ${p.outcome.score}%. Well done.` : `Not passed: ${p.outcome.score}%, the pass mark is ${tr.passMark}%. Read the content again and retry.`} /> : ''}
      <dl class="summary">
        <dt>Status</dt><dd safe>{statusLabel(tr.result.status)}</dd>
        <dt>Pass mark</dt><dd safe>{`${tr.passMark}%`}</dd>
        <dt>Attempts</dt><dd safe>{String(tr.result.attempts)}</dd>
        <dt>Score</dt><dd safe>{tr.result.score === null ? '—' : `${tr.result.score}%`}</dd>
        <dt>Due</dt><dd safe>{tr.endsOn ?? '—'}</dd>
      </dl>
      <h2>Content</h2>
      {tr.content.trim() ? <div class="markdown card">{renderMarkdown(tr.content)}</div> : ''}
      {link ? <p><a href={link} rel="noopener noreferrer" target="_blank" safe>{`Open the training material (${tr.contentUrl})`}</a></p> : ''}
      {done ? <p>You have passed this program.</p> : (
        <form method="post" action={`/awareness/my/${tr.result.id}/submit`} class="stack">
          <CsrfField token={p.csrfToken} />
          <FormError message={p.error} />
          {tr.questions.length ? <h2>Test</h2> : ''}
          {tr.questions.map((q, i) => (
            <fieldset>
              <legend safe>{`${i + 1}. ${q.text}${q.kind === 'multiple' ? ' (choose every right answer)' : ''}`}</legend>
              {p.errors?.[`answers.${i}`] ? <p class="field-error" id={`q${i}-error`} safe>{p.errors[`answers.${i}`]}</p> : ''}
              {q.choices.map((choice, c) => (
                <label class="choice">
                  <input type={q.kind === 'single' ? 'radio' : 'checkbox'} name={`q${i}`} value={String(c)} checked={p.chosen?.[i]?.includes(c) ?? false} />
                  {' '}<span safe>{choice}</span>
                </label>
              ))}
            </fieldset>
          ))}
          <button type="submit">{tr.questions.length ? 'Submit answers' : 'I have read it'}</button>
        </form>
      )}
    </div>
  );
}

export interface CompletionPageProps {
  programId: string;
  completion: CompletionView;
  results: readonly ResultView[];
  truncated: boolean;
}

const percent = (part: number, whole: number) => (whole ? `${Math.round((part * 100) / whole)}%` : '—');

/** A program's completion for its managers: counts by status and per group, and the people by name. */
export function CompletionPage({ programId, completion: c, results, truncated }: CompletionPageProps): JSX.Element {
  const statuses = ['assigned', 'started', 'passed', 'failed'] as const;
  return (
    <div>
      <p><a href={`/awareness/programs/${programId}`}>← Program</a></p>
      <h2>By status</h2>
      <DataTable caption="Results by status" rows={[...statuses.map((s) => ({ label: statusLabel(s), n: c.byStatus[s] })), { label: 'Total', n: c.total }]} columns={[
        { header: 'Status', cell: (r) => <Text value={r.label} /> },
        { header: 'People', cell: (r) => <Text value={r.n} /> },
        { header: 'Share', cell: (r) => <Text value={percent(r.n, c.total)} /> },
      ]} />
      <p safe>{`Completion rate: ${percent(c.byStatus.passed, c.total)} passed.`}</p>
      <h2>By group</h2>
      <DataTable caption="Results by audience group" empty="The audience names no group." rows={c.byGroup} columns={[
        { header: 'Group', cell: (g) => <Text value={g.groupName} /> },
        { header: 'Assigned', cell: (g) => <Text value={g.total} /> },
        { header: 'Passed', cell: (g) => <Text value={g.passed} /> },
        { header: 'Completion', cell: (g) => <Text value={percent(g.passed, g.total)} /> },
      ]} />
      <h2>People</h2>
      <p><a href={`/awareness/programs/${programId}/results.csv`} download="">Download every result (CSV)</a></p>
      <DataTable caption="Results by person" empty="Nobody is assigned yet: publish the program." rows={results} columns={[
        { header: 'Person', cell: (r) => <Text value={r.person.name} /> },
        { header: 'Status', cell: (r) => <Text value={statusLabel(r.status)} /> },
        { header: 'Score', cell: (r) => <Text value={r.score === null ? '—' : `${r.score}%`} /> },
        { header: 'Attempts', cell: (r) => <Text value={r.attempts} /> },
        { header: 'Completed', cell: (r) => <When value={r.completedAt} local /> },
      ]} />
      {truncated ? <p class="muted">The first 200 people are listed; the counts above cover everyone.</p> : ''}
    </div>
  );
}

/** The Publish button and the completion link beside Edit on a program's page. */
export const ProgramActions = ({ id, status, csrfToken }: { id: string; status: string; csrfToken: string }) => (
  <span class="actions">
    <a href={`/awareness/programs/${id}/completion`}>Completion</a>
    <form method="post" action={`/awareness/programs/${id}/publish`} class="inline">
      <CsrfField token={csrfToken} />
      <button type="submit">{status === 'published' ? 'Assign newcomers to the audience' : 'Publish and assign'}</button>
    </form>
  </span>
);

export interface QuestionEditorProps {
  programId: string;
  programTitle: string;
  text: string;
  csrfToken: string;
  /** Everything wrong with a refused text, by line. */
  problems?: readonly string[];
  /** Why the test cannot change at all (someone has taken it). */
  locked?: string | null;
}

/** The program's test written as text (question-text.ts): no JavaScript needed, every problem listed with its line. */
export function QuestionEditor(p: QuestionEditorProps): JSX.Element {
  return (
    <div>
      <p><a href={`/awareness/programs/${p.programId}`}>← Program</a></p>
      {p.locked ? <Flash kind="info" message={p.locked} /> : ''}
      <form method="post" action={`/awareness/programs/${p.programId}/questions`} class="stack">
        <CsrfField token={p.csrfToken} />
        <ErrorSummary id="questions-error" title="The test was not saved" problems={(p.problems ?? []).map((message) => ({ message, href: '#questions' }))} />
        <label for="questions">Questions</label>
        <p class="hint" id="questions-hint">
          One question per paragraph, then its choices, one per line. Write <code>- ( )</code> for a choice and
          <code> - (x)</code> for the right one when one answer is right; <code>- [ ]</code> and <code>- [x]</code> when
          several may be right (the person must choose all of them). Leave the box empty for a program without a test.
        </p>
        <textarea id="questions" name="questions" rows="20" maxlength="200000" aria-describedby={p.problems?.length ? 'questions-hint questions-error' : 'questions-hint'}
          aria-invalid={p.problems?.length ? 'true' : undefined} safe>{p.text}</textarea>
        <pre class="hint" aria-label="Example">{'Which of these is a sign of phishing?\n- ( ) A message from a colleague you know\n- (x) A link asking for your password\n\nWhat do you report? (all that apply)\n- [x] A lost badge\n- [ ] A new coffee machine\n- [x] A stranger following you through a door'}</pre>
        <button type="submit" disabled={Boolean(p.locked)}>Save the test</button>
      </form>
    </div>
  );
}
