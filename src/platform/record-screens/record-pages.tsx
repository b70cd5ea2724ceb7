import { Elysia } from 'elysia';
import type { TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { fieldErrors, type Option } from '../../../views/components/form';
import { attempt, formText } from '../http/form-input';
import { renderScreen } from '../http/screen';
import {
  ConfirmDelete, readable, RecordDetail, RecordForm, RecordList, RecordResults, type FieldSpec, type FormValues, type ListColumn, type ListFilter, type ListState,
} from './record-views';
import { platformService } from '../http/installed';
import { recordSections } from '../records/record-types';
import { listAuditFor } from '../audit/audit';
import { linkedNameAsSeen, RESTRICTED_NAME } from '../records/links';
import { CustomFieldInputs } from './custom-field-inputs';
import { runWrite, type AppContext } from '../http/context';
import {
  customFieldFormValues, customFieldFormValuesOf, customFieldsFromForm, definitionsFor, shownCustomValue, type CustomFieldFormValues, type Definition,
} from '../records/custom-field-values';
import { ImportButton, importEntries, importTypesUnder } from '../csv/pages';
import { invalid } from '../core/errors';
import { schemaProblems } from '../http/form-input';
import { canTouch, levelOf, type Actor, type Permission } from '../permissions/permissions';
import {
  createRecord, deleteRecord, getRecord, listRecords, recordHistory, updateRecord, type OwnedTable, type RecordKind, type RecordView,
} from '../records/records';
import { screenAuth } from '../http/screen-auth';
import { isUuid } from '../core/uuid';

export type { FieldSpec, ListColumn } from './record-views';

/** The owner and owner group inputs every owned register's form ends with. */
export const OWNER_FIELDS: readonly FieldSpec[] = [
  { name: 'ownerId', label: 'Owner', kind: 'owner' },
  { name: 'ownerGroupId', label: 'Owner group', kind: 'ownerGroup' },
];

/** The list column naming who owns a record: the owner, else the owner group. */
export const ownerColumn = <V extends { owner: { name: string } | null; ownerGroup: { name: string } | null }>(): ListColumn<V> =>
  ({ header: 'Owner', value: (view) => view.owner?.name ?? view.ownerGroup?.name });

export interface RecordPagesOptions<V> {
  /** Screen address, e.g. '/controls'. */
  path: string;
  /** Plural heading: 'Controls'. */
  title: string;
  singular: string;
  /** Key of the main navigation entry to highlight (views/nav.ts). */
  navKey: string;
  Create: TObject;
  Update: TObject;
  fields: FieldSpec[];
  columns: ListColumn<V>[];
  statuses?: readonly string[];
  sorts?: Option[];
  /**
   * The list offers CSV imports (src/platform/csv): every import type registered under the list's path (risks:
   * risks, risks/exceptions; audits: audits/findings), each to those who may create or update its records. One type
   * that is the list's own gives a plain Import button, several a menu offering the record type first.
   */
  importable?: boolean;
  /** The register's own list filters beyond status and owner (evidence: kind, locked). */
  filters?: readonly ListFilter[];
  /** Further buttons beside New on the list (evidence: Verify files, Auditor package), for the viewer. */
  listActions?: (viewer: Actor) => JSX.Element | undefined;
  /** Extra sections on the detail page (sub-resources), rendered below the fields. */
  sections?: (view: V, viewer: Actor, csrfToken: string) => Promise<JSX.Element>;
}

const PAGE_SIZES = [10, 25, 50, 100, 200];

const accepts = (schema: TSchema | undefined, value: unknown) => schema !== undefined && Value.Check(schema, value);

/**
 * Form strings to the REST shape, guided by the schema: a number field becomes a number, a blank becomes
 * "left out" on create (so defaults apply) and, on update, null or '' — whichever the field accepts.
 * The result is then checked against the very schema the REST API uses.
 */
export function formInput(
  fields: FieldSpec[], schema: TObject, body: unknown, mode: 'create' | 'update', customFields?: Definition[],
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = formText(body, field.name);
    const text = field.kind === 'textarea' ? raw.replace(/\s+$/, '') : raw.trim();
    const property = schema.properties[field.name];
    if (text === '') {
      if (mode === 'create') continue;
      if (accepts(property, null)) input[field.name] = null;
      else if (accepts(property, '')) input[field.name] = '';
      continue;
    }
    input[field.name] = field.kind === 'number' && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
  }
  if (customFields?.length) {
    // Inputs named cf.<key>; their types are checked by the service, together with the record's own rules.
    const custom = customFieldsFromForm(customFields, body, mode);
    if (Object.keys(custom).length) input.customFields = custom;
  }
  const problems = schemaProblems(schema, input);
  if (problems.length) throw invalid(problems);
  return input;
}

/**
 * The standard screens of a register — list (filters, search, sort, paging; htmx partial updates with the state in
 * the URL), detail with History and Audit Log, create and edit forms with inline errors, delete with confirmation —
 * all through the same services as the REST API. Modules chain their own screens onto the returned plugin.
 */
export function recordPages<T extends OwnedTable, V extends RecordView<T> & { id: string }>(ctx: AppContext, kind: RecordKind<T, Record<string, unknown>, V>, o: RecordPagesOptions<V>) {
  const right = (r: string) => `${kind.module}:${r}` as Permission;
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: o.navKey });
  const sorts: Option[] = o.sorts ?? [
    { value: '', label: 'Newest first' },
    { value: '-updatedAt', label: 'Recently updated' },
  ];

  const listState = (query: Record<string, string | undefined>): ListState => {
    const int = (raw: string | undefined, fallback: number) => (raw && /^\d{1,6}$/.test(raw) ? Number(raw) : fallback);
    const pageSize = int(query.pageSize, 25);
    return {
      q: (query.q ?? '').trim().slice(0, 200),
      status: o.statuses?.includes(query.status ?? '') ? query.status! : '',
      ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
      sort: sorts.some((s) => s.value === query.sort) ? query.sort! : '',
      page: Math.max(1, int(query.page, 1)),
      pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : 25,
      extra: Object.fromEntries((o.filters ?? []).flatMap((f) => {
        const value = query[f.name] ?? '';
        return f.options.some((option) => option.value === value) ? [[f.name, value]] : [];
      })),
    };
  };

  /**
   * Choices for every select, owner and reference field. A deactivated current owner stays listed, marked, and a
   * linked record the viewer cannot see stays selected as such: opening and saving a form never drops a link silently.
   */
  const choicesFor = async (viewer: Actor, currentOwnerId = '', current: FormValues = {}): Promise<Record<string, Option[]>> => {
    const [users, groups] = await Promise.all([platformService('listUsers')(ctx.db), platformService('listGroups')(ctx.db)]);
    const choices: Record<string, Option[]> = {};
    for (const field of o.fields) {
      if (field.kind === 'owner') {
        choices[field.name] = users.filter((u) => u.status === 'active' || u.id === currentOwnerId)
          .map((u) => ({ value: u.id, label: u.status === 'active' ? u.name : `${u.name} (deactivated)` }));
      } else if (field.kind === 'ownerGroup') {
        choices[field.name] = groups.map((g) => ({ value: g.id, label: g.name }));
      } else if (typeof field.options === 'function') {
        const visible = await field.options(viewer);
        const linked = current[field.name];
        choices[field.name] = linked && !visible.some((o) => o.value === linked)
          ? [...visible, { value: linked, label: `${RESTRICTED_NAME}, kept` }]
          : visible;
      } else if (field.options) {
        choices[field.name] = field.options.map((v) => ({ value: v, label: readable(v) }));
      }
    }
    return choices;
  };

  const valuesOf = (view: V): FormValues =>
    Object.fromEntries(o.fields.map((f) => {
      const value = (view as Record<string, unknown>)[f.name];
      return [f.name, value === null || value === undefined ? '' : String(value)];
    }));

  const labelOf = (field: string) => o.fields.find((f) => f.name === field)?.label ?? readable(field.replace(/Id$/, ''));

  /** Names of the records the view links to, as the viewer may see them (nameAsSeen): by field. */
  const linkNamesOf = async (view: V, viewer: Actor): Promise<Map<string, string>> => {
    const named = await Promise.all(o.fields.map(async (f) => {
      const id = (view as Record<string, unknown>)[f.name];
      return f.link && typeof id === 'string' ? [f.name, await linkedNameAsSeen(ctx.db, viewer, f.link, id)] as const : null;
    }));
    return new Map(named.filter((n) => n?.[1]).map((n) => [n![0], n![1]!]));
  };

  const detailRows = (view: V, choices: Record<string, Option[]>, linkNames: Map<string, string>) => [
    ...o.fields.map((f) => {
      const raw = (view as Record<string, unknown>)[f.name];
      const value = raw === null || raw === undefined || raw === '' ? '—' : String(raw);
      const named = linkNames.get(f.name) ?? choices[f.name]?.find((c) => c.value === value)?.label;
      return { label: f.label, value: f.kind === 'select' ? readable(value) : (named ?? value) };
    }),
    ...(o.fields.some((f) => f.kind === 'owner') ? [] : [{ label: 'Owner', value: view.owner?.name ?? view.ownerGroup?.name ?? '—' }]),
    { label: 'Created', value: String(view.createdAt).slice(0, 16).replace('T', ' ') },
    { label: 'Updated', value: String(view.updatedAt).slice(0, 16).replace('T', ' ') },
  ];

  /** The module's custom field definitions, when its records take them (read per request: administrators change them). */
  const customDefinitions = async (): Promise<Definition[]> => (kind.customFields ? definitionsFor(ctx.db, kind.module) : []);

  const form = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, p: {
    title: string; action: string; cancel: string; values: FormValues; submit: string; errors?: Record<string, string>; error?: string; ownerId?: string;
    definitions?: Definition[]; customValues?: CustomFieldFormValues;
  }) => renderScreen(headers, shell(p.title, viewer, csrfToken),
    <RecordForm action={p.action} cancel={p.cancel} fields={o.fields} values={p.values} choices={await choicesFor(viewer, p.ownerId, p.values)}
      errors={p.errors ?? {}} error={p.error} csrfToken={csrfToken} submit={p.submit}
      extra={<CustomFieldInputs definitions={p.definitions ?? []} values={p.customValues ?? {}} errors={p.errors ?? {}} />} />);

  const refusal = (problems: number, message: string) => (problems ? 'Please correct the fields marked below.' : message);

  return new Elysia({ name: `pages:${kind.recordType}` })
    .use(screenAuth(ctx))
    .get(o.path, async ({ viewer, csrfToken, headers, query }) => {
      const importButton = (v: Actor) => {
        const entries = o.importable ? importEntries(v, importTypesUnder(o.path.slice(1))) : [];
        const imports = entries.length ? <ImportButton entries={entries} own={`${o.path}/import`} /> : undefined;
        const own = o.listActions?.(v);
        return imports || own ? <>{imports}{own}</> : undefined;
      };
      const state = listState(query);
      const page = await listRecords(ctx.db, kind, viewer, {
        page: state.page, pageSize: state.pageSize, ...(state.sort ? { sort: state.sort } : {}),
        ...(state.q ? { q: state.q } : {}), ...(state.status ? { status: state.status } : {}), ...(state.ownerId ? { ownerId: state.ownerId } : {}),
        ...state.extra,
      });
      const results = { path: o.path, page, state, columns: o.columns, plural: o.title };
      if (headers['hx-request'] === 'true' && headers['hx-target']) return <RecordResults {...results} />;
      const users = await platformService('listUsers')(ctx.db);
      return renderScreen(headers, shell(o.title, viewer, csrfToken),
        <RecordList {...results} statuses={o.statuses} sorts={sorts} filters={o.filters} singular={o.singular}
          owners={users.map((u) => ({ value: u.id, label: u.name }))} canCreate={levelOf(viewer, right('create')) !== null}
          extraActions={importButton(viewer)} />);
    }, { page: right('read') })

    .get(`${o.path}/new`, async ({ viewer, csrfToken, headers }) =>
      form(viewer, csrfToken, headers, {
        title: `New ${o.singular.toLowerCase()}`, action: o.path, cancel: o.path, values: {}, submit: `Create ${o.singular.toLowerCase()}`,
        definitions: await customDefinitions(),
      }),
    { page: right('create') })
    .post(o.path, async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const definitions = await customDefinitions();
      const result = await attempt(() => runWrite(ctx, (tx) => createRecord(tx, kind, viewer, formInput(o.fields, o.Create, body, 'create', definitions))));
      if (result.ok) return redirect(`${o.path}/${result.value.id}?done=created`, 303);
      set.status = result.error.status;
      const values = Object.fromEntries(o.fields.map((f) => [f.name, formText(body, f.name)]));
      return form(viewer, csrfToken, headers, {
        title: `New ${o.singular.toLowerCase()}`, action: o.path, cancel: o.path, values, submit: `Create ${o.singular.toLowerCase()}`,
        errors: fieldErrors(result.error.problems), error: refusal(result.error.problems.length, result.error.message),
        definitions, customValues: customFieldFormValues(definitions, body),
      });
    }, { page: right('create') })

    .get(`${o.path}/:id`, async ({ viewer, csrfToken, headers, params, query }) => {
      const view = await getRecord(ctx.db, kind, viewer, params.id);
      const [history, audit, choices, linkNames, ownSections, otherSections, definitions] = await Promise.all([
        recordHistory(ctx.db, kind, viewer, view.id as string), listAuditFor(ctx.db, kind.recordType, view.id as string),
        choicesFor(viewer, view.ownerId as string | undefined), linkNamesOf(view, viewer), o.sections?.(view, viewer, csrfToken),
        recordSections(ctx, kind.recordType, view.id as string, viewer, csrfToken), customDefinitions(),
      ]);
      const sections = <>{ownSections}{otherSections}</>;
      const customRows = definitions.map((d) => ({ label: d.label, value: shownCustomValue(d, view.customFields?.[d.key]) }));
      const customLabels = new Map(definitions.map((d) => [`customFields.${d.key}`, d.label]));
      const rows = detailRows(view, choices, linkNames);
      rows.splice(rows.length - 2, 0, ...customRows);
      const owned = { ownerId: view.ownerId as string | null, ownerGroupId: view.ownerGroupId as string | null };
      // A frozen record (locked evidence) offers no Edit or Delete: both would be refused.
      const frozen = kind.frozen?.(view) ?? null;
      const title = String((view as Record<string, unknown>).name ?? (view as Record<string, unknown>).title ?? o.singular);
      return renderScreen(headers, shell(title, viewer, csrfToken),
        <RecordDetail path={o.path} id={view.id as string} rows={rows} history={history} audit={audit}
          labelOf={(field) => customLabels.get(field) ?? labelOf(field)}
          canUpdate={!frozen && canTouch(viewer, right('update'), owned)} canDelete={!frozen && canTouch(viewer, right('delete'), owned)} done={query.done}
          sections={sections} plural={o.title} />);
    }, { page: right('read') })

    .get(`${o.path}/:id/edit`, async ({ viewer, csrfToken, headers, params }) => {
      const view = await getRecord(ctx.db, kind, viewer, params.id);
      const definitions = await customDefinitions();
      return form(viewer, csrfToken, headers, {
        title: `Edit ${o.singular.toLowerCase()}`, action: `${o.path}/${view.id}`, cancel: `${o.path}/${view.id}`, values: valuesOf(view),
        submit: 'Save changes', ownerId: view.ownerId as string | undefined,
        definitions, customValues: customFieldFormValuesOf(definitions, view.customFields),
      });
    }, { page: right('update') })
    .post(`${o.path}/:id`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const definitions = await customDefinitions();
      const result = await attempt(() => runWrite(ctx, (tx) => updateRecord(tx, kind, viewer, params.id, formInput(o.fields, o.Update, body, 'update', definitions))));
      if (result.ok) return redirect(`${o.path}/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const values = Object.fromEntries(o.fields.map((f) => [f.name, formText(body, f.name)]));
      return form(viewer, csrfToken, headers, {
        title: `Edit ${o.singular.toLowerCase()}`, action: `${o.path}/${params.id}`, cancel: `${o.path}/${params.id}`, values, submit: 'Save changes',
        errors: fieldErrors(result.error.problems), error: refusal(result.error.problems.length, result.error.message), ownerId: values.ownerId,
        definitions, customValues: customFieldFormValues(definitions, body),
      });
    }, { page: right('update') })

    .get(`${o.path}/:id/delete`, async ({ viewer, csrfToken, headers, params }) => {
      const view = await getRecord(ctx.db, kind, viewer, params.id);
      const name = String((view as Record<string, unknown>).name ?? (view as Record<string, unknown>).title ?? view.id);
      return renderScreen(headers, shell(`Delete ${o.singular.toLowerCase()}`, viewer, csrfToken),
        <ConfirmDelete action={`${o.path}/${view.id}/delete`} cancel={`${o.path}/${view.id}`} what={`${o.singular.toLowerCase()} "${name}"`} csrfToken={csrfToken} />);
    }, { page: right('delete') })
    .post(`${o.path}/:id/delete`, async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deleteRecord(tx, kind, viewer, params.id));
      return redirect(`${o.path}?done=deleted`, 303);
    }, { page: right('delete') });
}
