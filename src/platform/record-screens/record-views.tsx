import type { SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { AuditEntry } from '../audit/audit';
import type { Actor } from '../permissions/permissions';
import type { ShownChange, ShownEntry, ShownValue } from '../records/history-format';
import type { LinkTarget } from '../records/links';
import type { Page } from '../http/paging';
import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, ErrorSummary, Field, Select, type FieldErrors, type Option, type SummaryProblem } from '../../../views/components/form';
import { Pager } from '../../../views/components/pager';
import { DataTable, shownValue, Text, When } from '../../../views/components/table';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import { valueLabel, valueOptions } from '../core/value-labels';
import { actionLabel } from '../records/history-format';

/** A form field of a register screen; the kit renders, parses and validates it against the module's schema. */
export interface FieldSpec {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'date' | 'url' | 'select' | 'owner' | 'ownerGroup' | 'reference' | 'checkboxes';
  /**
   * For select and checkboxes: allowed values (labels made readable). For reference, and checkboxes of linked records:
   * a loader of the choices the viewer may pick. Checkboxes hold a list (the field's schema is an array): the form
   * value is the chosen values one per line.
   */
  options?: readonly string[] | ((viewer: Actor) => Promise<Option[]>);
  /** For a reference to another module's owned record: the record page names it only to a viewer who may read it. */
  link?: LinkTarget;
  required?: boolean;
  hint?: string;
  /** The form value of a view whose field is not plain text (risks: a level object gives its number). */
  formValue?(view: unknown): string | number | null | undefined;
  /** A select whose values are numbers (risk levels): sent to the service as numbers. */
  numeric?: boolean;
  maxlength?: number;
}

export interface ListColumn<V> {
  header: string;
  /** Where the column appears: on the screen only (a score drawn with its band), in the CSV export only, or both (absent). */
  only?: 'screen' | 'export';
  /** The cell as text: shown, searched by the eye and written to the list's CSV export. */
  value(view: V): string | number | null | undefined;
  /** The cell as a component (a score with its band), when text alone says less; the export still writes `value`. */
  cell?(view: V): JSX.Element;
  /** Links the cell to the record's page. */
  link?: boolean;
  /** The list's sort key (the kind's `sortable`): the header sorts by it on click. */
  sort?: string;
  /**
   * The same cell as PostgreSQL writes it (text or a number, '' or null when empty): a report of the whole register
   * whose every column gives one reads these instead of each row's view (registerReport; docs/reports.md). It must
   * give what `value` gives: tests compare the two.
   */
  sql?: SQL | PgColumn;
}

export interface ListState {
  q: string;
  status: string;
  ownerId: string;
  sort: string;
  page: number;
  pageSize: number;
  /** Values of the register's own filters (evidence: kind, locked), by name; only chosen ones. */
  extra?: Record<string, string>;
}

/** A register's own list filter: a select of allowed values, passed to the list query under its name. */
export interface ListFilter {
  name: string;
  label: string;
  options: Option[];
  /**
   * A value that is none of the options is passed on to the list (whose kind refuses it, 400 inside the app shell)
   * instead of being dropped: links into the list (the Dashboard's heat map) must not silently show everything.
   */
  strict?: boolean;
}

export const readable = valueLabel;

/** The list's filters as query parameters (sort and paging left out). */
export function filterParams(state: ListState): URLSearchParams {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.status) params.set('status', state.status);
  if (state.ownerId) params.set('ownerId', state.ownerId);
  for (const [name, value] of Object.entries(state.extra ?? {})) params.set(name, value);
  return params;
}

export function listHref(path: string, state: ListState, page = state.page, sort = state.sort): string {
  const params = filterParams(state);
  if (sort) params.set('sort', sort);
  if (page > 1) params.set('page', String(page));
  if (state.pageSize !== 25) params.set('pageSize', String(state.pageSize));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** A list's rows as CSV rows (header first): the columns the export writes (all but screen-only ones), as their text. */
export function columnsCsv<V>(columns: readonly ListColumn<V>[], rows: readonly V[]): string[][] {
  const written = columns.filter((c) => c.only !== 'screen');
  return [written.map((c) => c.header), ...rows.map((row) => written.map((c) => String(c.value(row) ?? '')))];
}

/** The CSV export of the list as filtered and sorted on screen. */
export function exportHref(path: string, state: ListState): string {
  const params = filterParams(state);
  if (state.sort) params.set('sort', state.sort);
  const query = params.toString();
  return `${path}/export.csv${query ? `?${query}` : ''}`;
}

const isFiltered = (state: ListState) => Boolean(state.q || state.status || state.ownerId || Object.keys(state.extra ?? {}).length);

/** "1 risk", "2 risks". */
export const countOf = (n: number, singular: string, plural: string) => `${n.toLocaleString('en')} ${n === 1 ? singular.toLowerCase() : plural.toLowerCase()}`;

interface Identified {
  id: string;
}

export interface ResultsProps<V extends Identified> {
  path: string;
  page: Page<V>;
  state: ListState;
  columns: ListColumn<V>[];
  plural: string;
  singular: string;
  /** What an empty register suggests as its first step ("Add the first with New control, or Import a CSV file."). */
  emptyHint?: string;
  /** The export writes times: its link sends the reader's zone (`data-reader-zone`, src/platform/csv/zone.ts). */
  zoned?: boolean;
}

export const resultsId = (path: string) => `results-${path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`;

/** The count, Export, the table and the pager; the whole page renders it and htmx swaps it alone when filters change. */
export function RecordResults<V extends Identified>({ path, page, state, columns, plural, singular, emptyHint, zoned }: ResultsProps<V>): JSX.Element {
  const id = resultsId(path);
  const filtered = isFiltered(state);
  return (
    <section id={id} aria-live="polite" aria-label={plural}>
      <p class="results-bar">
        <span class="muted" safe>{filtered ? matchingCount(countOf(page.total, singular, plural), page.total) : countOf(page.total, singular, plural)}</span>
        {page.total > 0 && <a class="button secondary small" href={exportHref(path, state)} download="" data-reader-zone={zoned ? '' : undefined}>Export CSV</a>}
      </p>
      {page.total === 0 && !filtered && emptyHint
        ? <div class="card empty-state"><p safe>{`No ${plural.toLowerCase()} yet.`}</p><p class="muted" safe>{emptyHint}</p></div>
        : (
          <DataTable<V>
            rows={page.rows}
            empty={filtered ? `No ${plural.toLowerCase()} match these filters.` : `No ${plural.toLowerCase()} yet.`}
            sort={{ current: state.sort, href: (sort) => listHref(path, state, 1, sort), target: `#${id}`, form: `${id}-filters` }}
            columns={columns.map((c) => ({
              header: c.header,
              sort: c.sort,
              cell: (row: V) => (c.link ? <a href={`${path}/${row.id}`} safe>{String(c.value(row) ?? '')}</a> : c.cell ? c.cell(row) : <Text value={c.value(row)} />),
            }))}
          />
        )}
      <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(p) => listHref(path, state, p)} target={`#${id}`} />
    </section>
  );
}

export interface ListProps<V extends Identified> extends ResultsProps<V> {
  statuses?: readonly string[];
  /** The status filter's choices in the list's own words, when the shared value labels do not fit ('Not started'). */
  statusOptions?: Option[];
  /** The Owner filter's people; left out on a person's own lists ("My training"), where every row is theirs. */
  owners?: Option[];
  canCreate: boolean;
  extraActions?: JSX.Element;
  filters?: readonly ListFilter[];
  /** The search box's label ('Search titles'). */
  searchLabel?: string;
  done?: string;
}

/** The list's actions beside its title: New (the primary one), then the register's own (Import, …). */
export function ListActions({ path, singular, canCreate, extraActions }: { path: string; singular: string; canCreate: boolean; extraActions?: JSX.Element }): JSX.Element {
  return <>{extraActions}{canCreate && <a class="button" href={`${path}/new`} safe>{`New ${singular.toLowerCase()}`}</a>}</>;
}

/** The list page: the one filter bar and the results (the actions go beside the title, ListActions). */
export function RecordList<V extends Identified>(props: ListProps<V>): JSX.Element {
  const { path, state, statuses, owners, canCreate, singular } = props;
  return (
    <>
      <Flash kind="success" message={props.done === 'deleted' ? `${singular} deleted.` : undefined} />
      <FilterBar action={path} id={`${resultsId(path)}-filters`} label={`Filter ${props.plural.toLowerCase()}`} target={`#${resultsId(path)}`}
        search={{ value: state.q, label: props.searchLabel ?? 'Search' }} filtered={isFiltered(state)}
        keep={{ pageSize: state.pageSize === 25 ? '' : String(state.pageSize) }}
        filters={[
          ...(statuses ? [{ name: 'status', label: 'Status', selected: state.status, options: props.statusOptions ?? valueOptions(statuses) }] : []),
          ...(props.filters ?? []).map((f) => ({ name: f.name, label: f.label, options: f.options, selected: state.extra?.[f.name] ?? '' })),
          ...(owners ? [{ name: 'ownerId', label: 'Owner', selected: state.ownerId, options: owners, any: 'Anyone' }] : []),
        ]} />
      <RecordResults {...props} emptyHint={props.emptyHint ?? (canCreate ? `Add the first with New ${singular.toLowerCase()}${props.extraActions ? ', or import a CSV file' : ''}.` : undefined)} />
    </>
  );
}

export type FormValues = Record<string, string>;

export interface FormProps {
  action: string;
  cancel: string;
  fields: FieldSpec[];
  values: FormValues;
  choices: Record<string, Option[]>;
  errors: FieldErrors;
  error?: string;
  csrfToken: string;
  submit: string;
  /** Inputs after the module's fields (the module's custom fields). */
  extra?: JSX.Element;
}

/** The message the kit gives a refusal with field problems; the error summary says it better, so it is not repeated. */
const FIELDS_MARKED = 'Please correct the fields marked below.';

/**
 * The create/edit form: the error summary linking to each refused field, each field with its inline error; the values
 * typed are kept after a refusal.
 */
export function RecordForm({ action, cancel, fields, values, choices, errors, error, csrfToken, submit, extra }: FormProps): JSX.Element {
  const problems: SummaryProblem[] = Object.entries(errors).map(([name, message]) => {
    const field = fields.find((f) => f.name === name);
    return field ? { message: `${field.label}: ${message}`, href: `#f-${name}` } : { message };
  });
  return (
    <form method="post" action={action} class="card form" novalidate>
      <CsrfField token={csrfToken} />
      <ErrorSummary problems={error && error !== FIELDS_MARKED && problems.length ? [{ message: error }, ...problems] : problems} />
      {problems.length === 0 && <FormError message={error} />}
      {fields.map((f) => {
        const common = { label: f.label, name: f.name, value: values[f.name] ?? '', error: errors[f.name], hint: f.hint, required: f.required, maxlength: f.maxlength };
        switch (f.kind) {
          case 'textarea':
            return <Field {...common} type="textarea" />;
          case 'number':
            return <Field {...common} type="number" />;
          case 'date':
            return <Field {...common} type="date" />;
          case 'url':
          case 'text':
            return <Field {...common} type="text" />;
          case 'checkboxes': {
            const chosen = (values[f.name] ?? '').split('\n');
            const id = `f-${f.name}`;
            return (
              <fieldset class={errors[f.name] ? 'field invalid' : 'field'} id={id}>
                <legend safe>{f.label}</legend>
                {f.hint && <span class="hint" safe>{f.hint}</span>}
                {errors[f.name] && <span class="error" role="alert" safe>{errors[f.name]}</span>}
                {(choices[f.name] ?? []).length === 0 && <p class="muted">None to choose from.</p>}
                <div class="checks">
                  {(choices[f.name] ?? []).map((o) => (
                    <label><input type="checkbox" name={f.name} value={o.value} checked={chosen.includes(o.value)} /> <span safe>{o.label}</span></label>
                  ))}
                </div>
              </fieldset>
            );
          }
          default: {
            const options = [{ value: '', label: f.required ? 'Choose…' : '—' }, ...(choices[f.name] ?? [])];
            return <Field {...common}><Select name={f.name} options={options} selected={values[f.name] ?? ''} /></Field>;
          }
        }
      })}
      {extra}
      <p class="actions">
        <button type="submit" safe>{submit}</button>
        <a href={cancel}>Cancel</a>
      </p>
    </form>
  );
}

/** A row of a record page: a label and its value as text, or as a component (a score with its band) in `content`. */
export interface DetailRow {
  label: string;
  value: string;
  content?: JSX.Element;
}

export interface DetailProps {
  path: string;
  id: string;
  rows: DetailRow[];
  /** Its History (with its parts'), as the one History formatter words it. */
  history: ShownEntry[];
  audit: AuditEntry[];
  /** Settings › Audit log filtered by this record, for a reader who may open it. */
  auditHref?: string;
  /** Links beside Edit and Delete. */
  actions?: JSX.Element;
  canUpdate: boolean;
  canDelete: boolean;
  done?: string;
  sections?: JSX.Element;
  plural: string;
}


/** A record's page: its fields, the module's own sections, its History and its Audit Log entries. */
export function RecordDetail(p: DetailProps): JSX.Element {
  return (
    <>
      <Flash kind="success" message={p.done} />
      <nav class="breadcrumbs" aria-label="Breadcrumb"><a href={p.path} safe>{`← All ${p.plural.toLowerCase()}`}</a></nav>
      <p class="actions">
        {p.actions}
        {p.canUpdate && <a class="button" href={`${p.path}/${p.id}/edit`}>Edit</a>}
        {p.canDelete && <a class="button danger" href={`${p.path}/${p.id}/delete`}>Delete</a>}
      </p>
      <dl class="card details">
        {p.rows.map((r) => <><dt safe>{r.label}</dt>{r.content === undefined ? <dd class="prewrap" safe>{r.value}</dd> : <dd>{r.content}</dd>}</>)}
      </dl>
      {p.sections}
      <h2 id="history-heading">History</h2>
      <HistoryTable id="record-history" entries={p.history} />
      <h2 id="audit-heading">Audit Log</h2>
      {p.auditHref && <p><a href={p.auditHref}>Open in Settings › Audit log</a></p>}
      <DataTable<AuditEntry>
        id="record-audit"
        rows={p.audit}
        empty="No Audit Log entries."
        columns={[
          { header: '#', cell: (e) => <Text value={e.seq} /> },
          { header: 'When', cell: (e) => <When value={e.at} local /> },
          { header: 'Action', cell: (e) => <Text value={actionLabel(e.action)} /> },
          { header: 'Via', cell: (e) => <Text value={valueLabel(e.via)} /> },
        ]}
      />
    </>
  );
}

export interface ConfirmDeleteProps {
  action: string;
  cancel: string;
  what: string;
  csrfToken: string;
  /** What still points at the record, by kind with counts: deleting is refused until they are gone. */
  /** What still refers to the record: a count, and the referring records by name where they are records of a declared type. */
  referrers?: { label: string; count: number; records?: { title: string; href: string | null }[]; more?: number }[];
  /** The record's page, where what links to it is listed. */
  recordHref?: string;
  /** Why the last attempt was refused (409). */
  refused?: string;
  /** What the warning says of the referrers before the record's name ("other records still refer to this" by default). */
  lead?: string;
  /** What to do before deleting ("Remove those references first" by default). */
  remedy?: string;
}

/** Deleting asks first, on a page of its own; it warns while other records still refer to this one. */
export function ConfirmDelete({ action, cancel, what, csrfToken, referrers = [], recordHref, refused, lead, remedy }: ConfirmDeleteProps): JSX.Element {
  const blocked = referrers.length > 0;
  return (
    <form method="post" action={action} class="card">
      <CsrfField token={csrfToken} />
      {blocked
        ? (
          <div class="flash flash-error" role={refused ? 'alert' : undefined}>
            <p safe>{`${refused ? 'Not deleted: ' : 'This cannot be deleted yet: '}${lead ?? 'other records still refer to this'} ${what}:`}</p>
            <ul>{referrers.map((r) => (
              <li>
                <span safe>{`${r.count} ${r.label}${r.records?.length ? ':' : ''}`}</span>
                {r.records?.length ? <>{' '}{r.records.map((rec, i) => <>{i > 0 ? ', ' : ''}{rec.href ? <a href={rec.href} safe>{rec.title}</a> : <span safe>{rec.title}</span>}</>)}</> : ''}
                {r.more ? <span safe>{`, and ${r.more} more`}</span> : ''}
              </li>
            ))}</ul>
            <p><span safe>{remedy ?? 'Remove those references first'}</span>{recordHref ? <>{' (the record\'s page lists them: '}<a href={recordHref}>open it</a>{')'}</> : ''}.</p>
          </div>
        )
        : <FormError message={refused} />}
      <p safe>{`Delete ${what}? This cannot be undone; the Audit Log keeps a record of it.`}</p>
      <p class="actions"><button type="submit" class="danger">Delete</button><a href={cancel}>Cancel</a></p>
    </form>
  );
}

/** A value of a change: text, linked records (to the pages the reader may open), or a time the page's script writes in the reader's zone (UTC without scripts). */
export function ShownValueText({ value }: { value: ShownValue }): JSX.Element {
  if (value.at) return <time datetime={value.at} data-local safe>{value.text}</time>;
  if (value.links) {
    return <span>{value.links.map((l, i) => <>{i > 0 ? ', ' : ''}{l.href ? <a href={l.href} safe>{l.text}</a> : <span safe>{l.text}</span>}</>)}</span>;
  }
  return <span safe>{value.text}</span>;
}

/** One change: its label, then before → after, or a line diff for long text (Markdown). */
export function ChangeLine({ change }: { change: ShownChange }): JSX.Element {
  if (change.lines) {
    return (
      <li>
        <strong safe>{change.label}</strong>
        <pre class="diff">{change.lines.map((l) => (
          l.kind === 'added' ? <ins safe>{`+ ${l.text}\n`}</ins> : l.kind === 'removed' ? <del safe>{`- ${l.text}\n`}</del> : <span safe>{`  ${l.text}\n`}</span>
        ))}</pre>
      </li>
    );
  }
  return <li><strong safe>{change.label}</strong>{': '}<ShownValueText value={change.before} />{' → '}<ShownValueText value={change.after} /></li>;
}

/** The one History table of every record page: when (in the reader's zone), who and through what, what, which part, the changes. */
export function HistoryTable({ entries, id, empty = 'No changes recorded.' }: { entries: readonly ShownEntry[]; id?: string; empty?: string }): JSX.Element {
  const parts = entries.some((e) => e.record);
  return (
    <DataTable<ShownEntry>
      id={id}
      rows={entries}
      empty={empty}
      columns={[
        { header: 'When', cell: (h) => <When value={h.at} local /> },
        { header: 'Who', cell: (h) => <><Text value={h.who} /><br /><span class="muted" safe>{h.door}</span></> },
        { header: 'Action', cell: (h) => <Text value={h.actionLabel} /> },
        ...(parts ? [{
          header: 'Record',
          cell: (h: ShownEntry) => (h.record
            ? <>{h.record.href ? <a href={h.record.href} safe>{h.record.title}</a> : <span safe>{h.record.title}</span>}<br /><span class="muted" safe>{h.record.label}</span></>
            : <span class="muted">This record</span>),
        }] : []),
        {
          header: 'Changes',
          cell: (h) => (h.hidden ? <span class="muted">Not shown: you may not read this record.</span>
            : h.changes.length ? <ul class="changes">{h.changes.map((c) => <ChangeLine change={c} />)}</ul> : <span class="muted">—</span>),
        },
      ]}
    />
  );
}
