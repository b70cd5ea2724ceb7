import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { Flash } from '../../../views/components/flash';
import { DataTable, When } from '../../../views/components/table';
import { Pager } from '../../../views/components/pager';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import { HistoryTable, RecordList, type ListColumn, type ListState } from '../../platform/record-screens/record-views';
import { zonedHeader, zonedTime } from '../../platform/csv/zone';
import type { ShownEntry } from '../../platform/records/history-format';
import { valueLabel } from '../../platform/core/value-labels';
import type { Page } from '../../platform/http/paging';
import { LEGAL_BASES, QUESTIONNAIRE_FIELD_KEYS, QUESTIONNAIRE_FIELDS, QUESTIONNAIRE_STATUSES, type QuestionnaireAnswerView, type QuestionnaireView } from './schema';
import { MY_QUESTIONNAIRES_PATH, QUESTIONNAIRE_PATH } from './questionnaire-service';

/** A questionnaire's status in words, as the officer and the person asked read it. */
export const STATUS_WORDS: Record<(typeof QUESTIONNAIRE_STATUSES)[number], string> = {
  sent: 'Waiting for answers', answered: 'Proposals to decide', closed: 'Closed',
};
const DECISION_WORDS = { pending: 'Waiting for a decision', accepted: 'Accepted', rejected: 'Rejected' } as const;

const Status = ({ status }: { status: QuestionnaireView['status'] }) => <span class="tag" safe>{STATUS_WORDS[status]}</span>;
const Due = ({ on }: { on: string | null }) => <span safe>{on ?? 'No due date'}</span>;

/** The error summary at the top of a refused form, each problem linking to its field. */
function ErrorSummary({ errors, labels }: { errors: FieldErrors; labels: Record<string, string> }): JSX.Element {
  const entries = Object.entries(errors);
  if (!entries.length) return '';
  return (
    <div class="flash flash-error" role="alert">
      <p>Please correct the fields marked below:</p>
      <ul>{entries.map(([field, message]) => <li><a href={`#f-${field}`} safe>{`${labels[field] ?? field}: ${message}`}</a></li>)}</ul>
    </div>
  );
}

/** The officer's list's filters and sort as the address holds them (blank: not set). */
export interface QuestionnaireFilters {
  q: string;
  status: string;
  ownerId: string;
  /** Those about one processing activity (its page links here). */
  processingActivityId: string;
  sort: string;
}

const isFiltered = (f: QuestionnaireFilters) => Boolean(f.q || f.status || f.ownerId || f.processingActivityId);

/** The list's address (or its CSV's) with the filters and sort, a page when past the first; blanks left out. */
export function questionnaireListHref(f: QuestionnaireFilters, change: { sort?: string; page?: number } = {}, path = QUESTIONNAIRE_PATH): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...f, sort: change.sort ?? f.sort })) if (value) params.set(name, value);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The list's columns as the CSV export writes them: the screen's, in its words. */
export const QUESTIONNAIRE_CSV_COLUMNS: { header: string; text: (q: QuestionnaireView) => string }[] = [
  { header: 'Title', text: (q) => q.title },
  { header: 'Processing activity', text: (q) => q.processingActivity.name },
  { header: 'Sent to', text: (q) => q.recipient.name },
  { header: 'Due on', text: (q) => q.dueOn ?? '' },
  { header: 'Status', text: (q) => STATUS_WORDS[q.status] },
];

/** The officer's list: the one filter bar (words, status, Owner), headers that sort, paging with the total, Export. */
export function QuestionnaireList({ page, filters, owners, activities }: { page: Page<QuestionnaireView>; filters: QuestionnaireFilters; owners: Option[]; activities: Option[] }): JSX.Element {
  const filtered = isFiltered(filters);
  const count = `${page.total.toLocaleString('en')} questionnaire${page.total === 1 ? '' : 's'}`;
  return (
    <>
      <FilterBar action={QUESTIONNAIRE_PATH} label="Filter questionnaires" target="#questionnaire-results" filtered={filtered} id="questionnaire-filters"
        search={{ value: filters.q, label: 'Search titles' }}
        filters={[
          { name: 'status', label: 'Status', selected: filters.status, options: QUESTIONNAIRE_STATUSES.map((s) => ({ value: s, label: STATUS_WORDS[s] })) },
          { name: 'processingActivityId', label: 'Processing activity', selected: filters.processingActivityId, options: activities },
          { name: 'ownerId', label: 'Owner', selected: filters.ownerId, options: owners, any: 'Anyone' },
        ]} />
      <section id="questionnaire-results" aria-live="polite" aria-label="Data Liaison questionnaires">
        <p class="results-bar">
          <span class="muted" safe>{filtered ? matchingCount(count, page.total) : count}</span>
          {page.total > 0 && <a class="button secondary small" href={questionnaireListHref(filters, {}, `${QUESTIONNAIRE_PATH}.csv`)} download="">Export CSV</a>}
        </p>
        <DataTable<QuestionnaireView>
          rows={page.rows}
          empty={filtered ? 'No questionnaires match these filters.' : 'No questionnaires yet. Send one to ask a business owner whether a processing activity is recorded right.'}
          sort={{ current: filters.sort, href: (sort) => questionnaireListHref(filters, { sort }), target: '#questionnaire-results', form: 'questionnaire-filters' }}
          columns={[
            { header: 'Title', sort: 'title', cell: (q) => <a href={`${QUESTIONNAIRE_PATH}/${q.id}`} safe>{q.title}</a> },
            { header: 'Processing activity', cell: (q) => <span safe>{q.processingActivity.name}</span> },
            { header: 'Sent to', cell: (q) => <span safe>{q.recipient.name}</span> },
            { header: 'Due on', sort: 'dueOn', cell: (q) => <Due on={q.dueOn} /> },
            { header: 'Status', sort: 'status', cell: (q) => <Status status={q.status} /> },
          ]}
        />
        <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(n) => questionnaireListHref(filters, { page: n })} target="#questionnaire-results" />
      </section>
    </>
  );
}

export interface SendFormState {
  values?: Record<string, string>;
  fields?: string[];
  errors?: FieldErrors;
  error?: string;
}

const SEND_LABELS: Record<string, string> = {
  title: 'Title', processingActivityId: 'Processing activity', recipientId: 'Person asked', fields: 'Fields asked about', dueOn: 'Answers due on', message: 'Message',
};

/** The officer's form: which activity, whom, which fields, by when, and a note. */
export function SendForm({ csrfToken, activities, people, state = {} }: { csrfToken: string; activities: Option[]; people: Option[]; state?: SendFormState }): JSX.Element {
  const v = state.values ?? {};
  const errors = state.errors ?? {};
  const chosen = state.fields ?? [];
  return (
    <form method="post" action={QUESTIONNAIRE_PATH} class="form card">
      <ErrorSummary errors={errors} labels={SEND_LABELS} />
      {!Object.keys(errors).length && <Flash kind="error" message={state.error} />}
      <CsrfField token={csrfToken} />
      <Field label="Title" name="title" value={v.title} error={errors.title} required maxlength={300} hint="What the person asked reads first" />
      <Field label="Processing activity" name="processingActivityId" required error={errors.processingActivityId}>
        <Select name="processingActivityId" selected={v.processingActivityId} options={[{ value: '', label: 'Choose…' }, ...activities]} required />
      </Field>
      <Field label="Person asked" name="recipientId" required error={errors.recipientId} hint="The business owner who knows the processing; they need no data privacy rights">
        <Select name="recipientId" selected={v.recipientId} options={[{ value: '', label: 'Choose…' }, ...people]} required />
      </Field>
      <fieldset class={errors.fields ? 'field invalid' : 'field'} id="f-fields">
        <legend>Fields asked about</legend>
        <span class="hint">The person asked sees each field's current value and may propose another</span>
        {errors.fields && <span class="error" role="alert" safe>{errors.fields}</span>}
        <div class="checks">
          {QUESTIONNAIRE_FIELD_KEYS.map((key) => (
            <label><input type="checkbox" name="fields" value={key} checked={chosen.includes(key)} /> <span safe>{QUESTIONNAIRE_FIELDS[key]}</span></label>
          ))}
        </div>
      </fieldset>
      <Field label="Answers due on" name="dueOn" type="date" value={v.dueOn} error={errors.dueOn} hint="Optional; once overdue it is in the person's daily digest" />
      <Field label="Message" name="message" type="textarea" value={v.message} error={errors.message} maxlength={5000} hint="Optional; shown above the questions" />
      <button type="submit">Send questionnaire</button>
    </form>
  );
}

/** The questionnaire's facts, for both sides. */
function Facts({ q, forOfficer }: { q: QuestionnaireView; forOfficer: boolean }): JSX.Element {
  return (
    <dl class="card details">
      <dt>Processing activity</dt>
      <dd>{forOfficer ? <a href={`/data-privacy/processing-activities/${q.processingActivity.id}`} safe>{q.processingActivity.name}</a> : <span safe>{q.processingActivity.name}</span>}</dd>
      <dt>{forOfficer ? 'Sent to' : 'Sent by'}</dt>
      <dd safe>{forOfficer ? q.recipient.name : q.sender?.name ?? '—'}</dd>
      <dt>Sent</dt><dd><When value={q.createdAt} local /></dd>
      <dt>Answers due on</dt><dd><Due on={q.dueOn} /></dd>
      <dt>Status</dt><dd><Status status={q.status} /></dd>
      <dt>Answered</dt><dd><When value={q.answeredAt} local empty="Not yet" /></dd>
      {q.message && <><dt>Message</dt><dd class="prewrap" safe>{q.message}</dd></>}
    </dl>
  );
}

const Proposed = ({ a }: { a: QuestionnaireAnswerView }) =>
  a.proposed === null ? <span class="muted">No change proposed</span> : <span class="prewrap" safe>{a.proposed === '' ? '(blank)' : a.proposed}</span>;

const Decision = ({ a }: { a: QuestionnaireAnswerView }) => {
  if (a.decision === null) return <span>Confirmed as it is</span>;
  const by = a.decidedBy ? ` by ${a.decidedBy.name}` : '';
  return <span safe>{`${DECISION_WORDS[a.decision]}${a.decision === 'pending' ? '' : by}${a.reason ? `: ${a.reason}` : ''}`}</span>;
};

/** The officer's page: the answers as current value → proposed value by field label, each proposal with Accept and Reject. */
export function QuestionnairePage({ q, csrfToken, canDecide, history, done, refusal }: {
  q: QuestionnaireView; csrfToken: string; canDecide: boolean; history: ShownEntry[]; done?: string | null; refusal?: string | null;
}): JSX.Element {
  return (
    <>
      <nav class="breadcrumbs" aria-label="Breadcrumb"><a href={QUESTIONNAIRE_PATH}>← All questionnaires</a></nav>
      <Flash kind="success" message={done} />
      <Flash kind="error" message={refusal} />
      <Facts q={q} forOfficer />
      <section class="card" aria-labelledby="answers-heading">
        <h2 id="answers-heading">Answers</h2>
        {q.status === 'sent' && <p class="muted" safe>{`Waiting for ${q.recipient.name} to answer. Current values of the fields asked:`}</p>}
        <DataTable<QuestionnaireAnswerView>
          caption="Fields asked: current value and proposed value"
          rows={q.answers}
          columns={[
            { header: 'Field', cell: (a) => <strong safe>{a.fieldLabel}</strong> },
            { header: 'Current value', cell: (a) => <span class="prewrap" safe>{a.current || '—'}</span> },
            { header: 'Proposed value', cell: (a) => (q.status === 'sent' ? <span class="muted">Not answered yet</span> : <Proposed a={a} />) },
            { header: 'Comment', cell: (a) => <span class="prewrap" safe>{a.comment || '—'}</span> },
            { header: 'Decision', cell: (a) => (q.status === 'sent' ? <span class="muted">—</span> : (
              a.decision === 'pending' && canDecide
                ? (
                  <div class="decide">
                    <form method="post" action={`${QUESTIONNAIRE_PATH}/${q.id}/proposals/${a.field}/accept`} class="inline">
                      <CsrfField token={csrfToken} />
                      <button type="submit" aria-label={`Accept the proposal for ${a.fieldLabel}`}>Accept</button>
                    </form>
                    <form method="post" action={`${QUESTIONNAIRE_PATH}/${q.id}/proposals/${a.field}/reject`} class="inline">
                      <CsrfField token={csrfToken} />
                      <label for={`reason-${a.field}`} class="visually-hidden" safe>{`Reason for rejecting the proposal for ${a.fieldLabel}`}</label>
                      <input type="text" id={`reason-${a.field}`} name="reason" maxlength="5000" placeholder="Reason (optional)" />
                      <button type="submit" class="secondary" aria-label={`Reject the proposal for ${a.fieldLabel}`}>Reject</button>
                    </form>
                  </div>
                )
                : <Decision a={a} />
            )) },
          ]}
        />
      </section>
      <h2 id="history-heading">History</h2>
      <HistoryTable id="record-history" entries={history} />
    </>
  );
}

/**
 * "My privacy questionnaires"' columns: statuses and dates in words; the CSV export adds when each was sent and answered,
 * in `zone` (the header naming it).
 */
export const myQuestionnaireColumns = (zone: string): ListColumn<QuestionnaireView>[] => [
  { header: 'Title', value: (q) => q.title, link: true, sort: 'title' },
  { header: 'Processing activity', value: (q) => q.processingActivity.name },
  { header: 'Sent by', value: (q) => q.sender?.name ?? '', cell: (q) => <span safe>{q.sender?.name ?? '—'}</span> },
  { header: 'Answers due on', value: (q) => q.dueOn ?? '', cell: (q) => <Due on={q.dueOn} />, sort: 'dueOn' },
  { header: 'Status', value: (q) => STATUS_WORDS[q.status], cell: (q) => <Status status={q.status} />, sort: 'status' },
  { header: zonedHeader('Sent at', zone), only: 'export', value: (q) => zonedTime(q.createdAt, zone) },
  { header: zonedHeader('Answered at', zone), only: 'export', value: (q) => zonedTime(q.answeredAt, zone) },
];

/** "My privacy questionnaires": those addressed to the viewer (waiting ones first): the one filter bar, sorting headers, paging, Export. */
export function MyQuestionnaires({ page, state }: { page: Page<QuestionnaireView>; state: ListState }): JSX.Element {
  return (
    <>
      <p>Questions from the privacy team about how your area handles personal data. Answer each so the record of processing stays right.</p>
      <RecordList<QuestionnaireView> path={MY_QUESTIONNAIRES_PATH} page={page} state={state} plural="Questionnaires" singular="Questionnaire"
        columns={myQuestionnaireColumns('UTC').filter((c) => c.only !== 'export')} canCreate={false} searchLabel="Search titles" zoned
        statuses={QUESTIONNAIRE_STATUSES} statusOptions={QUESTIONNAIRE_STATUSES.map((s) => ({ value: s, label: STATUS_WORDS[s] }))}
        emptyHint="No privacy questionnaires are addressed to you." />
    </>
  );
}

export interface AnswerFormState {
  proposed?: Record<string, string>;
  comments?: Record<string, string>;
  errors?: FieldErrors;
  error?: string;
}

/** The person asked answers: each field with its current value, the value it should have (pre-filled) and a comment. */
export function AnswerPage({ q, csrfToken, state = {}, done }: { q: QuestionnaireView; csrfToken: string; state?: AnswerFormState; done?: string | null }): JSX.Element {
  const errors = state.errors ?? {};
  const labels = Object.fromEntries(q.answers.map((a) => [`proposed-${a.field}`, a.fieldLabel]));
  const shownErrors = Object.fromEntries(Object.entries(errors).map(([k, m]) => [`proposed-${k.replace(/^answers\./, '')}`, m]));
  return (
    <>
      <nav class="breadcrumbs" aria-label="Breadcrumb"><a href={MY_QUESTIONNAIRES_PATH}>← My privacy questionnaires</a></nav>
      <Flash kind="success" message={done} />
      <Facts q={q} forOfficer={false} />
      {q.status === 'sent'
        ? (
          <form method="post" action={`${MY_QUESTIONNAIRES_PATH}/${q.id}`} class="form card">
            <ErrorSummary errors={shownErrors} labels={labels} />
            {!Object.keys(errors).length && <Flash kind="error" message={state.error} />}
            <CsrfField token={csrfToken} />
            <p>For each field, keep the value if it is right or write what it should be. Your answers are sent once.</p>
            {q.answers.map((a) => {
              const name = `proposed-${a.field}`;
              const typed = state.proposed?.[a.field] ?? (a.field === 'legalBasis' ? (LEGAL_BASES.find((b) => valueLabel(b) === a.current) ?? '') : a.current);
              return (
                <fieldset class="field answer">
                  <legend safe>{a.fieldLabel}</legend>
                  <p class="hint" safe>{`Recorded now: ${a.current || '(blank)'}`}</p>
                  {a.field === 'legalBasis'
                    ? (
                      <Field label={`${a.fieldLabel}: should be`} name={name} error={shownErrors[name]}>
                        <Select name={name} selected={typed} options={LEGAL_BASES.map((b) => ({ value: b, label: valueLabel(b) }))} />
                      </Field>
                    )
                    : <Field label={`${a.fieldLabel}: should be`} name={name} type="textarea" value={typed} error={shownErrors[name]} maxlength={20000} />}
                  <Field label={`${a.fieldLabel}: comment`} name={`comment-${a.field}`} type="textarea" value={state.comments?.[a.field] ?? ''} maxlength={5000} hint="Optional" />
                </fieldset>
              );
            })}
            <button type="submit">Send answers</button>
          </form>
        )
        : (
          <section class="card" aria-labelledby="your-answers">
            <h2 id="your-answers">Your answers</h2>
            <DataTable<QuestionnaireAnswerView>
              caption="Your answers and the decisions on them"
              rows={q.answers}
              columns={[
                { header: 'Field', cell: (a) => <strong safe>{a.fieldLabel}</strong> },
                { header: 'Recorded now', cell: (a) => <span class="prewrap" safe>{a.current || '—'}</span> },
                { header: 'You proposed', cell: (a) => <Proposed a={a} /> },
                { header: 'Decision', cell: (a) => <Decision a={a} /> },
              ]}
            />
          </section>
        )}
    </>
  );
}

/** The processing activity's page: the questionnaires about it the viewer may read, and a link to send one. */
export function ActivityQuestionnaires({ activityId, items, total, canCreate }: { activityId: string; items: QuestionnaireView[]; total: number; canCreate: boolean }): JSX.Element {
  return (
    <section class="card" aria-labelledby="activity-questionnaires">
      <h2 id="activity-questionnaires">Liaison questionnaires</h2>
      {total > 0 && (
        <p class="results-bar">
          <span class="muted" safe>{total > items.length ? `The first ${items.length} of ${total} questionnaires.` : `${total} questionnaire${total === 1 ? '' : 's'}.`}</span>
          <span>
            <a href={`${QUESTIONNAIRE_PATH}?processingActivityId=${activityId}`}>Filter and sort them in Liaison questionnaires</a>{' '}
            <a class="button secondary small" href={`${QUESTIONNAIRE_PATH}.csv?processingActivityId=${activityId}`} download="" aria-label="Export CSV of this activity's questionnaires">Export CSV</a>
          </span>
        </p>
      )}
      {items.length === 0
        ? <p class="muted">No questionnaires about this processing activity.</p>
        : (
          <ul>
            {items.map((q) => (
              <li><a href={`${QUESTIONNAIRE_PATH}/${q.id}`} safe>{q.title}</a><span safe>{` (to ${q.recipient.name}; ${STATUS_WORDS[q.status].toLowerCase()})`}</span></li>
            ))}
          </ul>
        )}
      {canCreate && <p><a class="button secondary" href={`${QUESTIONNAIRE_PATH}/new?processingActivityId=${activityId}`}>Send a questionnaire</a></p>}
    </section>
  );
}
