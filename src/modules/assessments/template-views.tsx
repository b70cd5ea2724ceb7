import { CsrfField, ErrorSummary, Field, type Option } from '../../../views/components/form';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import { Pager } from '../../../views/components/pager';
import type { Page } from '../../platform/http/paging';
import { Flash } from '../../../views/components/flash';
import { DataTable, Text, When } from '../../../views/components/table';
import { HistoryTable } from '../../platform/record-screens/record-views';
import type { ShownEntry } from '../../platform/records/history-format';
import { KIND_LABELS, type TemplateView } from './schema';

/** The text a new template starts from: one of each common kind, a score per answer and a condition, to change. */
export const STARTER_TEXT = [
  'Section: Security basics',
  '',
  'Question policy (yes or no, required, weight 2)',
  'Do you have a written information security policy, approved by management?',
  '- yes: Yes = 100%',
  '- no: No = 0%',
  '',
  'Question policyFile (file, required, when policy is yes)',
  'Attach the policy.',
  'Hint: PDF, image, text or office document, at most 10 MB.',
  '',
  'Question hosting (one choice, required, weight 1)',
  'Where is our data hosted?',
  '- eea: In the European Economic Area = 100%',
  '- elsewhere: Elsewhere = 30%',
].join('\n');

export const TEMPLATES_PATH = '/assessments/templates';

/** The templates list's filters and sort as the address holds them (blank: not set). */
export interface TemplateFilters {
  q: string;
  ownerId: string;
  sort: string;
}

/** The list's address (or its CSV's) with the filters and sort, a page when past the first; blanks left out. */
export function templateListHref(f: TemplateFilters, change: { sort?: string; page?: number } = {}, path = TEMPLATES_PATH): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...f, sort: change.sort ?? f.sort })) if (value) params.set(name, value);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

const questionCount = (t: TemplateView) => t.sections.reduce((n, s) => n + s.questions.length, 0);

/** The list's columns as its CSV export writes them: the screen's, in its words. */
export const TEMPLATE_CSV_COLUMNS: { header: string; text: (t: TemplateView) => string }[] = [
  { header: 'Template', text: (t) => t.title },
  { header: 'Questions', text: (t) => String(questionCount(t)) },
  { header: 'Version', text: (t) => String(t.version) },
  { header: 'Shipped with the service', text: (t) => (t.shippedKey ? 'Yes' : 'No') },
  { header: 'Changed', text: (t) => `${t.updatedAt.slice(0, 16).replace('T', ' ')} UTC` },
];

/** The templates: the one filter bar (words, Owner), headers that sort, paging with the total, Export. */
export function TemplateList({ page, canCreate, filters, owners }: { page: Page<TemplateView>; canCreate: boolean; filters: TemplateFilters; owners: Option[] }): JSX.Element {
  const filtered = Boolean(filters.q || filters.ownerId);
  const count = `${page.total.toLocaleString('en')} template${page.total === 1 ? '' : 's'}`;
  return (
    <div>
      <p>The questionnaires you send are made from these templates. Each change of a template's questions publishes a new version; questionnaires already sent keep the version they were sent with.</p>
      <FilterBar action={TEMPLATES_PATH} label="Filter templates" target="#template-results" filtered={filtered} id="template-filters"
        search={{ value: filters.q, label: 'Search titles' }}
        filters={[{ name: 'ownerId', label: 'Owner', selected: filters.ownerId, options: owners, any: 'Anyone' }]} />
      <section id="template-results" aria-live="polite" aria-label="Questionnaire templates">
        <p class="results-bar">
          <span class="muted" safe>{filtered ? matchingCount(count, page.total) : count}</span>
          {page.total > 0 && <a class="button secondary small" href={templateListHref(filters, {}, `${TEMPLATES_PATH}.csv`)} download="">Export CSV</a>}
        </p>
        <DataTable rows={page.rows}
          empty={filtered ? 'No templates match these filters.' : canCreate ? 'No templates yet. Write one with New template.' : 'No templates yet.'}
          sort={{ current: filters.sort, href: (sort) => templateListHref(filters, { sort }), target: '#template-results', form: 'template-filters' }}
          columns={[
            { header: 'Template', sort: 'title', cell: (t) => <a href={`/assessments/templates/${t.id}`} safe>{t.title}</a> },
            { header: 'Questions', class: 'num', cell: (t) => <Text value={questionCount(t)} /> },
            { header: 'Version', class: 'num', cell: (t) => <Text value={t.version} /> },
            { header: 'Shipped with the service', cell: (t) => <Text value={t.shippedKey ? 'Yes' : 'No'} /> },
            { header: 'Changed', sort: 'updatedAt', cell: (t) => <When value={t.updatedAt} local /> },
          ]} />
        <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(n) => templateListHref(filters, { page: n })} target="#template-results" />
      </section>
    </div>
  );
}

export interface TemplatePageProps {
  template: TemplateView;
  canEdit: boolean;
  message?: string | null;
  history: ShownEntry[];
}

/** A template's current version: its questions with kinds, weights, choice scores and conditions, as respondents get them. */
export function TemplatePage({ template: t, canEdit, message, history }: TemplatePageProps): JSX.Element {
  const numbers = new Map<string, { number: string; labels: Map<string, string> }>();
  t.sections.forEach((s, si) => s.questions.forEach((q, qi) => numbers.set(q.key, { number: `${si + 1}.${qi + 1}`, labels: new Map((q.choices ?? []).map((c) => [c.value, c.label])) })));
  const condition = (q: TemplateView['sections'][number]['questions'][number]) => {
    if (!q.showWhen) return '';
    const earlier = numbers.get(q.showWhen.question);
    return `asked when the answer to ${earlier ? earlier.number : q.showWhen.question} is "${earlier?.labels.get(q.showWhen.equals) ?? q.showWhen.equals}"`;
  };
  return (
    <div>
      <p><a href="/assessments/templates">← Templates</a></p>
      {message ? <Flash kind="success" message={message} /> : ''}
      {t.description ? <p class="pre-wrap" safe>{t.description}</p> : ''}
      <p safe>{`Version ${t.version}. ${canEdit ? 'A change of its questions publishes a new version' : 'Each change of its questions is a new version'}; questionnaires already sent keep the version they were sent with.`}</p>
      {t.sections.map((s, si) => (
        <section>
          <h2 safe>{`${si + 1}. ${s.title}`}</h2>
          {s.description ? <p class="pre-wrap" safe>{s.description}</p> : ''}
          <ol>
            {s.questions.map((q) => (
              <li>
                <span class="pre-wrap" safe>{q.text}</span>{' '}
                <span class="muted" safe>{[KIND_LABELS[q.kind], q.required ? 'required' : 'optional', q.weight ? `weight ${q.weight}` : 'not scored', condition(q)].filter(Boolean).join(' · ')}</span>
                {q.hint ? <><br /><span class="hint" safe>{q.hint}</span></> : ''}
                {q.choices ? <ul>{q.choices.map((c) => <li safe>{`${c.label}: ${c.score}%`}</li>)}</ul> : ''}
              </li>
            ))}
          </ol>
        </section>
      ))}
      <section>
        <h2>History</h2>
        <HistoryTable id="template-history" entries={history} />
      </section>
    </div>
  );
}

export interface TemplateEditorProps {
  csrfToken: string;
  action: string;
  /** The version being changed; absent for a new template. */
  version?: number;
  values: { title: string; description: string; sections: string };
  /** Problems by field: title, description, sections (the questions' text, each problem with its line). */
  problems?: { field: 'title' | 'description' | 'sections'; message: string }[];
  /** A refusal that is not about one field (changed by someone else meanwhile). */
  error?: string | null;
  cancel: string;
}

const FIELD_LABELS = { title: 'Title', description: 'Description', sections: 'Questions' } as const;

/** A template written as text (template-text.ts): works without JavaScript; every problem listed, with its line, and the text kept. */
export function TemplateEditor(p: TemplateEditorProps): JSX.Element {
  const problems = p.problems ?? [];
  const first = (field: 'title' | 'description' | 'sections') => problems.find((x) => x.field === field)?.message;
  const sectionProblems = problems.filter((x) => x.field === 'sections');
  const describedBy = ['f-sections-hint', sectionProblems.length ? 'f-sections-error' : ''].filter(Boolean).join(' ');
  return (
    <form method="post" action={p.action} class="form stack">
      <CsrfField token={p.csrfToken} />
      {p.version ? <input type="hidden" name="expectedVersion" value={String(p.version)} /> : ''}
      {p.error ? <Flash kind="error" message={p.error} /> : ''}
      <ErrorSummary id="template-error" title={p.version ? 'Nothing was published' : 'The template was not created'}
        problems={problems.map((x) => ({ message: `${FIELD_LABELS[x.field]}: ${x.message}`, href: `#f-${x.field}` }))} />
      <Field label="Title" name="title" value={p.values.title} error={first('title')} required maxlength={300} />
      <Field label="Description" name="description" type="textarea" value={p.values.description} error={first('description')} maxlength={5000}
        hint="Shown on the template's page; respondents see the questionnaire's title and the sections" />
      <div class={sectionProblems.length ? 'field invalid' : 'field'}>
        <label for="f-sections">Questions</label>
        <div class="hint" id="f-sections-hint">
          <p>
            A line <code>Section: title</code> starts a section; the lines after it, before its first question, describe it.{' '}
            A line <code>Question shortName (kind, required, weight 2)</code> starts a question: its text follows on the next lines,{' '}
            then an optional <code>Hint: …</code> line, then its choices, one per line: <code>- value: Label = 100%</code>.
          </p>
          <p>
            Kinds: <code>yes or no</code>, <code>one choice</code>, <code>several choices</code>, <code>text</code>, <code>number</code>,{' '}
            <code>date</code>, <code>file</code>. In the brackets also: <code>required</code> or <code>optional</code> (the default),{' '}
            <code>weight N</code> (0 to 100: how much it counts in the score; 0 or left out: not scored), and{' '}
            <code>when shortName is value</code> to ask it only when an earlier question has that answer. A choice's percent is the
            share of the weight that answer earns (several choices add up, at most 100 %); text, number, date and file answers are{' '}
            scored by the reviewer. A yes-or-no question without choices gets Yes = 100% and No = 0%.
          </p>
        </div>
        {sectionProblems.length ? (
          <div class="error" id="f-sections-error" role="alert">
            <ul>{sectionProblems.map((x) => <li safe>{x.message}</li>)}</ul>
          </div>
        ) : ''}
        <textarea id="f-sections" name="sections" rows="28" maxlength="400000" spellcheck="true" class="secret"
          aria-describedby={describedBy} aria-invalid={sectionProblems.length ? 'true' : undefined} safe>{p.values.sections}</textarea>
      </div>
      <p class="actions">
        <button type="submit">{p.version ? `Publish version ${p.version + 1}` : 'Create the template'}</button>{' '}
        <a class="button secondary" href={p.cancel}>Cancel</a>
      </p>
      {p.version ? <p class="hint" safe>{`Questionnaires already sent keep version ${p.version}. When only the title or the description changes, no new version is made.`}</p> : ''}
    </form>
  );
}
