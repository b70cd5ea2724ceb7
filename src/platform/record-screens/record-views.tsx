import type { AuditEntry } from '../audit/audit';
import type { Actor } from '../permissions/permissions';
import type { HistoryView } from '../audit/history';
import type { LinkTarget } from '../records/links';
import type { Page } from '../http/paging';
import { Flash, FormError } from '../../../views/components/flash';
import { CsrfField, Field, Select, type FieldErrors, type Option } from '../../../views/components/form';
import { Pager } from '../../../views/components/pager';
import { DataTable, shownValue, Text, When } from '../../../views/components/table';

/** A form field of a register screen; the kit renders, parses and validates it against the module's schema. */
export interface FieldSpec {
  name: string;
  label: string;
  kind: 'text' | 'textarea' | 'number' | 'date' | 'url' | 'select' | 'owner' | 'ownerGroup' | 'reference';
  /** For select: allowed values (labels made readable). For reference: a loader of the choices the viewer may pick. */
  options?: readonly string[] | ((viewer: Actor) => Promise<Option[]>);
  /** For a reference to another module's owned record: the record page names it only to a viewer who may read it. */
  link?: LinkTarget;
  required?: boolean;
  hint?: string;
}

export interface ListColumn<V> {
  header: string;
  value(view: V): string | number | null | undefined;
  /** Links the cell to the record's page. */
  link?: boolean;
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
}

export const readable = (value: string) => value.replaceAll('_', ' ').replace(/^./, (c) => c.toUpperCase());

export function listHref(path: string, state: ListState, page = state.page): string {
  const params = new URLSearchParams();
  if (state.q) params.set('q', state.q);
  if (state.status) params.set('status', state.status);
  if (state.ownerId) params.set('ownerId', state.ownerId);
  if (state.sort) params.set('sort', state.sort);
  for (const [name, value] of Object.entries(state.extra ?? {})) params.set(name, value);
  if (page > 1) params.set('page', String(page));
  if (state.pageSize !== 25) params.set('pageSize', String(state.pageSize));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

interface Identified {
  id: string;
}

export interface ResultsProps<V extends Identified> {
  path: string;
  page: Page<V>;
  state: ListState;
  columns: ListColumn<V>[];
  plural: string;
}

const resultsId = (path: string) => `results-${path.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}`;

/** The table and pager; the whole page renders it and htmx swaps it alone when filters change. */
export function RecordResults<V extends Identified>({ path, page, state, columns, plural }: ResultsProps<V>): JSX.Element {
  const id = resultsId(path);
  const filtered = Boolean(state.q || state.status || state.ownerId || Object.keys(state.extra ?? {}).length);
  return (
    <section id={id} aria-live="polite">
      <DataTable<V>
        rows={page.rows}
        empty={filtered ? `No ${plural.toLowerCase()} match these filters.` : `No ${plural.toLowerCase()} yet.`}
        columns={columns.map((c) => ({
          header: c.header,
          cell: (row: V) => (c.link ? <a href={`${path}/${row.id}`} safe>{String(c.value(row) ?? '')}</a> : <Text value={c.value(row)} />),
        }))}
      />
      <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(p) => listHref(path, state, p)} target={`#${id}`} />
    </section>
  );
}

export interface ListProps<V extends Identified> extends ResultsProps<V> {
  statuses?: readonly string[];
  owners: Option[];
  sorts: Option[];
  canCreate: boolean;
  singular: string;
  extraActions?: JSX.Element;
  filters?: readonly ListFilter[];
}

/** Filters are a plain GET form (works without JavaScript); htmx replaces only the results and pushes the URL. */
export function RecordList<V extends Identified>(props: ListProps<V>): JSX.Element {
  const { path, state, statuses, owners, sorts, canCreate, singular } = props;
  const target = `#${resultsId(path)}`;
  return (
    <>
      <p class="actions">
        {canCreate && <a class="button" href={`${path}/new`} safe>{`New ${singular.toLowerCase()}`}</a>}
        {props.extraActions}
      </p>
      <form method="get" action={path} class="filters" hx-get={path} hx-target={target} hx-select={target} hx-swap="outerHTML"
        hx-push-url="true" hx-trigger="change, keyup changed delay:300ms from:input[name=q], submit">
        <label>Search <input type="search" name="q" value={state.q} maxlength="200" /></label>
        {statuses && (
          <label>Status <Select name="status" selected={state.status}
            options={[{ value: '', label: 'Any' }, ...statuses.map((s) => ({ value: s, label: readable(s) }))]} /></label>
        )}
        {props.filters?.map((f) => (
          <label><span safe>{f.label}</span> <Select name={f.name} selected={state.extra?.[f.name] ?? ''} options={[{ value: '', label: 'Any' }, ...f.options]} /></label>
        ))}
        <label>Owner <Select name="ownerId" selected={state.ownerId} options={[{ value: '', label: 'Anyone' }, ...owners]} /></label>
        <label>Sort <Select name="sort" selected={state.sort} options={sorts} /></label>
        <noscript><button type="submit">Apply</button></noscript>
      </form>
      <RecordResults {...props} />
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

/** The create/edit form: each field with its inline error; the values typed are kept after a refusal. */
export function RecordForm({ action, cancel, fields, values, choices, errors, error, csrfToken, submit, extra }: FormProps): JSX.Element {
  return (
    <form method="post" action={action} class="card form" novalidate>
      <CsrfField token={csrfToken} />
      <FormError message={error} />
      {fields.map((f) => {
        const common = { label: f.label, name: f.name, value: values[f.name] ?? '', error: errors[f.name], hint: f.hint, required: f.required };
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

const DONE: Record<string, string> = { created: 'Created.', updated: 'Saved.', deleted: 'Deleted.' };

export interface DetailProps {
  path: string;
  id: string;
  rows: { label: string; value: string }[];
  history: HistoryView[];
  audit: AuditEntry[];
  labelOf(field: string): string;
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
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <p class="actions">
        <a href={p.path} safe>{`← All ${p.plural.toLowerCase()}`}</a>
        {p.canUpdate && <a class="button" href={`${p.path}/${p.id}/edit`}>Edit</a>}
        {p.canDelete && <a class="button danger" href={`${p.path}/${p.id}/delete`}>Delete</a>}
      </p>
      <dl class="card details">
        {p.rows.map((r) => <><dt safe>{r.label}</dt><dd class="prewrap" safe>{r.value}</dd></>)}
      </dl>
      {p.sections}
      <h2>History</h2>
      <DataTable<HistoryView>
        rows={p.history}
        empty="No changes recorded."
        columns={[
          { header: 'When', cell: (h) => <When value={h.at} /> },
          { header: 'Who', cell: (h) => <Text value={`${h.actor ?? 'system'} (${h.via}${h.source ? `, ${h.source}` : ''})`} /> },
          { header: 'Action', cell: (h) => <Text value={h.action} /> },
          {
            header: 'Changes',
            cell: (h) => (
              <ul class="changes">
                {Object.entries(h.changes).map(([field, c]) => (
                  <li><strong safe>{p.labelOf(field)}</strong>{': '}<span safe>{shownValue(c.before)}</span>{' → '}<span safe>{shownValue(c.after)}</span></li>
                ))}
              </ul>
            ),
          },
        ]}
      />
      <h2>Audit Log</h2>
      <DataTable<AuditEntry>
        rows={p.audit}
        empty="No Audit Log entries."
        columns={[
          { header: '#', cell: (e) => <Text value={e.seq} /> },
          { header: 'When', cell: (e) => <When value={e.at} /> },
          { header: 'Action', cell: (e) => <Text value={`${e.module} ${e.action}`} /> },
          { header: 'Via', cell: (e) => <Text value={e.via + (e.actorTokenId ? ` (token ${e.actorTokenId})` : '')} /> },
        ]}
      />
    </>
  );
}

export function ConfirmDelete({ action, cancel, what, csrfToken }: { action: string; cancel: string; what: string; csrfToken: string }): JSX.Element {
  return (
    <form method="post" action={action} class="card">
      <CsrfField token={csrfToken} />
      <p safe>{`Delete ${what}? This cannot be undone; the Audit Log keeps a record of it.`}</p>
      <p class="actions"><button type="submit" class="danger">Delete</button><a href={cancel}>Cancel</a></p>
    </form>
  );
}
