import { CsrfField, Field, Select, type Option } from '../../../views/components/form';
import { Flash } from '../../../views/components/flash';
import { DataTable, Text, When } from '../../../views/components/table';
import { THIRD_PARTY_ASSESSMENTS_SHOWN, type FromAnswerChoices } from './service';
import { HistoryTable } from '../../platform/record-screens/record-views';
import type { ShownEntry } from '../../platform/records/history-format';
import { REQUEST_STATUSES, STATUS_LABELS, type RequestDetail, type RequestView } from './schema';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import { Pager } from '../../../views/components/pager';
import type { Page } from '../../platform/http/paging';

const statusTag = (status: RequestView['status']) => <span class={`tag status-${status}`} safe>{STATUS_LABELS[status]}</span>;
const scoreText = (score: number | null) => (score === null ? '—' : `${score}%`);

export const REQUESTS_PATH = '/assessments/requests';

/** The list's filters and sort as the address holds them (blank: not set). */
export interface RequestFilters {
  q: string;
  status: string;
  ownerId: string;
  /** Those sent about one third party (its page links here). */
  thirdPartyId: string;
  sort: string;
}

const isFiltered = (f: RequestFilters) => Boolean(f.q || f.status || f.ownerId || f.thirdPartyId);

/** The list's address (or its CSV's) with the filters and sort, a page when past the first; blanks left out. */
export function requestListHref(f: RequestFilters, change: { sort?: string; page?: number } = {}, path = REQUESTS_PATH): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...f, sort: change.sort ?? f.sort })) if (value) params.set(name, value);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The list's columns as its CSV export writes them: the screen's, in its words. */
export const REQUEST_CSV_COLUMNS: { header: string; text: (r: RequestView) => string }[] = [
  { header: 'Questionnaire', text: (r) => r.title },
  { header: 'Third party', text: (r) => r.thirdParty?.name ?? 'Internal' },
  { header: 'Sent to', text: (r) => r.respondentEmail },
  { header: 'Due', text: (r) => r.dueOn },
  { header: 'Status', text: (r) => STATUS_LABELS[r.status] },
  { header: 'Score', text: (r) => scoreText(r.score) },
];

/** Questionnaires sent: the one filter bar (words, status, Owner), headers that sort, paging with the total, Export. */
export function RequestList({ page, filters, owners, thirdParties }: { page: Page<RequestView>; filters: RequestFilters; owners: Option[]; thirdParties: Option[] }): JSX.Element {
  const filtered = isFiltered(filters);
  const count = `${page.total.toLocaleString('en')} questionnaire${page.total === 1 ? '' : 's'}`;
  return (
    <div>
      <p>Questionnaires sent to third parties and other respondents, answered at a link that needs no account.</p>
      <FilterBar action={REQUESTS_PATH} label="Filter questionnaires" target="#request-results" filtered={filtered} id="request-filters"
        search={{ value: filters.q, label: 'Search titles' }}
        filters={[
          { name: 'status', label: 'Status', selected: filters.status, options: REQUEST_STATUSES.map((value) => ({ value, label: STATUS_LABELS[value] })) },
          { name: 'thirdPartyId', label: 'Third party', selected: filters.thirdPartyId, options: thirdParties },
          { name: 'ownerId', label: 'Owner', selected: filters.ownerId, options: owners, any: 'Anyone' },
        ]} />
      <section id="request-results" aria-live="polite" aria-label="Questionnaires">
        <p class="results-bar">
          <span class="muted" safe>{filtered ? matchingCount(count, page.total) : count}</span>
          {page.total > 0 && <a class="button secondary small" href={requestListHref(filters, {}, `${REQUESTS_PATH}.csv`)} download="">Export CSV</a>}
        </p>
        <DataTable empty={filtered ? 'No questionnaires match these filters.' : 'No questionnaires sent yet. Send one with Send a questionnaire.'} rows={page.rows}
          sort={{ current: filters.sort, href: (sort) => requestListHref(filters, { sort }), target: '#request-results', form: 'request-filters' }}
          columns={[
            { header: 'Questionnaire', sort: 'title', cell: (r) => <a href={`/assessments/requests/${r.id}`} safe>{r.title}</a> },
            { header: 'Third party', cell: (r) => r.thirdParty ? <a href={`/third-parties/${r.thirdParty.id}`} safe>{r.thirdParty.name}</a> : <span class="muted">Internal</span> },
            { header: 'Sent to', cell: (r) => <Text value={r.respondentEmail} /> },
            { header: 'Due', sort: 'dueOn', cell: (r) => <Text value={r.dueOn} /> },
            { header: 'Status', sort: 'status', cell: (r) => statusTag(r.status) },
            { header: 'Score', sort: 'score', class: 'num', cell: (r) => <Text value={scoreText(r.score)} /> },
          ]} />
        <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(n) => requestListHref(filters, { page: n })} target="#request-results" />
      </section>
    </div>
  );
}

export interface NewRequestProps {
  csrfToken: string;
  templates: Option[];
  thirdParties: Option[];
  values?: Record<string, string>;
  errors?: Record<string, string>;
  error?: string;
}

export function NewRequestForm(p: NewRequestProps): JSX.Element {
  const v = p.values ?? {};
  const e = p.errors ?? {};
  return (
    <form class="form card" method="post" action="/assessments/requests">
      <CsrfField token={p.csrfToken} />
      {p.error ? <Flash kind="error" message={p.error} /> : ''}
      <p>The invitation goes to one address with a personal link; it is the only kind of mail this service sends outside the organisation.</p>
      <Field label="Template" name="templateId" error={e.templateId} required><Select name="templateId" options={p.templates} selected={v.templateId} required /></Field>
      <Field label="Third party" name="thirdPartyId" hint="Leave at Internal for a respondent inside the organisation" error={e.thirdPartyId}>
        <Select name="thirdPartyId" options={[{ value: '', label: 'Internal (no third party)' }, ...p.thirdParties]} selected={v.thirdPartyId} />
      </Field>
      <Field label="Respondent's name" name="respondentName" value={v.respondentName} error={e.respondentName} maxlength={200} />
      <Field label="Respondent's e-mail address" name="respondentEmail" type="email" value={v.respondentEmail} error={e.respondentEmail} required maxlength={320} />
      <Field label="Due on" name="dueOn" type="date" value={v.dueOn} error={e.dueOn} required hint="The link stays open 14 days past it" />
      <p class="actions"><button type="submit">Send</button> <a class="button secondary" href="/assessments/requests">Cancel</a></p>
    </form>
  );
}

export interface RequestPageProps {
  request: RequestDetail;
  csrfToken: string;
  canReview: boolean;
  /** The link, shown once after sending, a reminder or a return. */
  link?: { url: string; expiresAt: string } | null;
  message?: string | null;
  error?: string | null;
  /** The "from an answer" forms, for a viewer who may create findings or risks. */
  fromAnswer?: { choices: FromAnswerChoices; findings: boolean; risks: boolean } | null;
  history?: ShownEntry[];
}

function FromAnswerForms({ request: r, csrfToken, fromAnswer }: { request: RequestDetail; csrfToken: string; fromAnswer: NonNullable<RequestPageProps['fromAnswer']> }): JSX.Element {
  const answers = r.answers.filter((a) => a.shown && a.answer !== null).map((a) => ({ value: a.key, label: `${a.text} — ${a.answerText}`.slice(0, 160) }));
  if (!answers.length) return <></>;
  const { choices } = fromAnswer;
  return (
    <section>
      <h2>From an answer</h2>
      {fromAnswer.findings && choices.plans.length ? (
        <form method="post" action={`/assessments/requests/${r.id}/findings`} class="form card">
          <h3>Create an audit finding</h3>
          <CsrfField token={csrfToken} />
          <Field label="Answer" name="finding-key" required><Select name="finding-key" options={answers} required /></Field>
          <Field label="Audit plan" name="finding-plan" required><Select name="finding-plan" options={choices.plans} required /></Field>
          <Field label="Title" name="finding-title" required maxlength={300} />
          <p class="actions"><button type="submit" class="secondary">Create the finding</button></p>
        </form>
      ) : ''}
      {fromAnswer.risks ? (
        <form method="post" action={`/assessments/requests/${r.id}/risks`} class="form card">
          <h3>Create a risk</h3>
          <CsrfField token={csrfToken} />
          <Field label="Answer" name="risk-key" required><Select name="risk-key" options={answers} required /></Field>
          <Field label="Title" name="risk-title" required maxlength={300} />
          <Field label="Classification" name="risk-classification" required><Select name="risk-classification" options={choices.classifications} required /></Field>
          <Field label="Likelihood" name="risk-likelihood" required><Select name="risk-likelihood" options={choices.likelihoods} required /></Field>
          <Field label="Impact" name="risk-impact" required><Select name="risk-impact" options={choices.impacts} required /></Field>
          <p class="actions"><button type="submit" class="secondary">Create the risk</button></p>
        </form>
      ) : ''}
    </section>
  );
}

export function RequestPage({ request: r, csrfToken, canReview, link, message, error, fromAnswer, history }: RequestPageProps): JSX.Element {
  const shown = r.answers.filter((a) => a.shown);
  const reviewing = canReview && r.status === 'submitted';
  const waiting = r.status === 'sent' || r.status === 'in_progress' || r.status === 'returned';
  return (
    <div>
      <p><a href="/assessments/requests">← Questionnaires</a></p>
      {message ? <Flash kind="success" message={message} /> : ''}
      {error ? <Flash kind="error" message={error} /> : ''}
      {link ? (
        <div class="flash flash-info" role="status">
          <p>The link was mailed to the respondent. It is shown here once (only a fingerprint of it is kept):</p>
          <p class="secret" safe>{link.url}</p>
        </div>
      ) : ''}
      <dl class="summary">
        <dt>Status</dt><dd>{statusTag(r.status)}</dd>
        <dt>Score</dt><dd safe>{scoreText(r.score)}</dd>
        <dt>Third party</dt><dd>{r.thirdParty ? <a href={`/third-parties/${r.thirdParty.id}`} safe>{r.thirdParty.name}</a> : 'Internal'}</dd>
        <dt>Sent to</dt><dd safe>{[r.respondentName, r.respondentEmail].filter(Boolean).join(', ')}</dd>
        <dt>Due on</dt><dd safe>{r.dueOn}</dd>
        <dt>Link open until</dt><dd><When value={r.expiresAt} local /></dd>
        <dt>Submitted</dt><dd><When value={r.submittedAt} local /></dd>
        <dt>Template version</dt><dd safe>{`Version ${r.templateVersion}`}</dd>
      </dl>
      <h2>Answers</h2>
      {!shown.some((a) => a.answer !== null) ? <p class="muted">No answers yet.</p> : ''}
      <form method="post" action={`/assessments/requests/${r.id}/review`}>
        <CsrfField token={csrfToken} />
        <div class="table-wrap">
          <table class="data">
            <caption class="muted">Each answer with its weight and score; the reviewer's score (0–100 % of the weight) replaces the template's.</caption>
            <thead><tr><th scope="col">Question</th><th scope="col">Answer</th><th scope="col">Weight</th><th scope="col">Score</th><th scope="col">Comment</th></tr></thead>
            <tbody>
              {shown.map((a, i) => (
                <tr>
                  <td><span class="muted" safe>{a.section}</span><br /><span safe>{a.text}</span></td>
                  <td class="pre-wrap">{a.kind === 'file' && a.answer ? <a href={`/assessments/requests/${r.id}/files/${String(a.answer)}`} safe>{a.answerText}</a> : <span safe>{a.answerText || '(no answer)'}</span>}</td>
                  <td safe>{a.weight === 0 ? 'Not scored' : String(a.weight)}</td>
                  <td>
                    {reviewing && a.weight > 0 ? (
                      <>
                        <input type="hidden" name={`key.${i}`} value={a.key} />
                        <label class="visually-hidden" for={`score-${i}`} safe>{`Score of the answer to: ${a.text}`}</label>
                        <input id={`score-${i}`} name={`score.${i}`} type="number" min="0" max="100" value={a.reviewScore === null ? '' : String(a.reviewScore)} placeholder={a.templateScore === null ? '' : String(a.templateScore)} />
                        <span class="hint" safe>{a.templateScore === null ? 'To score' : `Template: ${a.templateScore}%`}</span>
                      </>
                    ) : <span safe>{a.weight === 0 ? '—' : `${a.reviewScore ?? a.templateScore ?? 0}%`}</span>}
                  </td>
                  <td>
                    {reviewing ? (
                      <>
                        {a.weight > 0 ? '' : <input type="hidden" name={`key.${i}`} value={a.key} />}
                        <label class="visually-hidden" for={`comment-${i}`} safe>{`Comment on the answer to: ${a.text}`}</label>
                        <textarea id={`comment-${i}`} name={`comment.${i}`} rows="2" maxlength="5000" safe>{a.comment}</textarea>
                      </>
                    ) : <span class="pre-wrap" safe>{a.comment}</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {reviewing ? <p class="actions"><button type="submit" class="secondary">Save scores and comments</button></p> : ''}
      </form>
      {reviewing ? (
        <section>
          <h2>Decision</h2>
          <form method="post" action={`/assessments/requests/${r.id}/accept`} class="actions">
            <CsrfField token={csrfToken} />
            <button type="submit">Accept the answers</button>
          </form>
          <form method="post" action={`/assessments/requests/${r.id}/return`} class="form">
            <CsrfField token={csrfToken} />
            <Field label="What should change" name="message" type="textarea" maxlength={5000} required hint="Mailed to the respondent with a new link that opens the answers again" />
            <p class="actions"><button type="submit" class="secondary">Return for changes</button></p>
          </form>
        </section>
      ) : ''}
      {canReview && fromAnswer && (r.status === 'submitted' || r.status === 'accepted') ? <FromAnswerForms request={r} csrfToken={csrfToken} fromAnswer={fromAnswer} /> : ''}
      {canReview && waiting ? (
        <section class="actions">
          <form method="post" action={`/assessments/requests/${r.id}/remind`}><CsrfField token={csrfToken} /><button type="submit" class="secondary">Send a reminder with a new link</button></form>
          <form method="post" action={`/assessments/requests/${r.id}/revoke`}><CsrfField token={csrfToken} /><button type="submit" class="secondary">Revoke the link</button></form>
        </section>
      ) : ''}
      <section>
        <h2>History</h2>
        <HistoryTable id="request-history" entries={history ?? []} />
      </section>
    </div>
  );
}

/** The third party's page: its questionnaires and their scores over time. */
export function ThirdPartyAssessments({ rows, thirdPartyId }: { rows: readonly RequestView[]; thirdPartyId: string }): JSX.Element {
  const scored = rows.filter((r) => r.score !== null);
  const width = 240;
  const points = scored.map((r, i) => `${scored.length === 1 ? width / 2 : Math.round((i * width) / (scored.length - 1))},${40 - Math.round((r.score! * 36) / 100) - 2}`).join(' ');
  return (
    <section>
      <h2>Assessments</h2>
      {scored.length > 1 ? (
        <svg width={String(width)} height="40" viewBox={`0 0 ${width} 40`} role="img" aria-label={`Scores over time: ${scored.map((r) => `${r.score}%`).join(', ')}`}>
          <polyline points={points} fill="none" stroke="currentColor" stroke-width="2" />
        </svg>
      ) : ''}
      {rows.length > 0 && (
        <p class="results-bar">
          <span class="muted" safe>{rows.length === THIRD_PARTY_ASSESSMENTS_SHOWN ? `The first ${rows.length} questionnaires.` : `${rows.length} questionnaire${rows.length === 1 ? '' : 's'}.`}</span>
          <span>
            <a href={`${REQUESTS_PATH}?thirdPartyId=${thirdPartyId}`}>Filter and sort them in Questionnaires</a>{' '}
            <a class="button secondary small" href={`${REQUESTS_PATH}.csv?thirdPartyId=${thirdPartyId}`} download="" aria-label="Export CSV of this third party's questionnaires">Export CSV</a>
          </span>
        </p>
      )}
      <DataTable caption="Questionnaires sent to this third party, oldest first" empty="No questionnaires sent to this third party yet." rows={rows} columns={[
        { header: 'Sent', cell: (r) => <When value={r.createdAt} local /> },
        { header: 'Questionnaire', cell: (r) => <a href={`/assessments/requests/${r.id}`} safe>{r.title}</a> },
        { header: 'Status', cell: (r) => statusTag(r.status) },
        { header: 'Score', cell: (r) => <Text value={scoreText(r.score)} /> },
      ]} />
      <p><a href={`/assessments/requests/new?thirdPartyId=${thirdPartyId}`}>Send a questionnaire</a></p>
    </section>
  );
}
