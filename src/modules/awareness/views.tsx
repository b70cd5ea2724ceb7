import { renderMarkdown, safeHref } from '../../platform/core/markdown';
import { CsrfField } from '../../../views/components/form';
import { Flash, FormError } from '../../../views/components/flash';
import { DataTable, Text, When } from '../../../views/components/table';
import { readable } from '../../platform/record-screens/record-views';
import type { CompletionView, ResultView, TrainingView } from './schema';

type MyItem = ResultView & { endsOn: string | null; hasTest: boolean };

const statusLabel = (status: string) => (status === 'assigned' ? 'Not started' : readable(status));

/** "My training": the programs assigned to the viewer that have started. */
export function MyTraining({ items }: { items: readonly MyItem[] }): JSX.Element {
  return (
    <div>
      <p>The awareness programs assigned to you. Open one to read it and take its test.</p>
      <DataTable caption="Assigned to you" empty="Nothing is assigned to you at the moment." rows={items} columns={[
        { header: 'Program', cell: (r) => <a href={`/awareness/my/${r.id}`} safe>{r.programTitle}</a> },
        { header: 'Status', cell: (r) => <Text value={statusLabel(r.status)} /> },
        { header: 'Score', cell: (r) => <Text value={r.score === null ? '—' : `${r.score}%`} /> },
        { header: 'Attempts', cell: (r) => <Text value={r.attempts} /> },
        { header: 'Due', cell: (r) => <Text value={r.endsOn ?? '—'} /> },
        { header: 'Completed', cell: (r) => <When value={r.completedAt} local /> },
      ]} />
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
