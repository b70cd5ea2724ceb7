import { Elysia } from 'elysia';
import type { TObject, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { fieldErrors, type Option } from '../../../views/components/form';
import { attempt, formList, formText } from '../http/form-input';
import { renderScreen } from '../http/screen';
import { isHtmx } from '../../../views/layout';
import {
  columnsCsv, ConfirmDelete, ListActions, RecordDetail, RecordForm, RecordList, RecordResults, type DetailRow, type FieldSpec, type FormValues, type ListColumn, type ListFilter,
  type ListState,
} from './record-views';
import { platformService } from '../http/installed';
import { findRecordType, recordRows, recordSections, typedRecordAsSeen } from '../records/record-types';
import { listAuditFor } from '../audit/audit';
import { describeHistory, historyWithParts } from '../records/history-format';
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
  createRecord, deleteRecord, getRecord, listRecords, referencesTo, updateRecord, type OwnedTable, type RecordKind, type RecordView,
} from '../records/records';
import { screenAuth } from '../http/screen-auth';
import { isUuid } from '../core/uuid';
import { labelScreens } from './label-screens';
import { toCsv } from '../csv/write';
import { readAllRecords } from '../reports/declarations';
import { valueLabel, valueOptions } from '../core/value-labels';

export type { FieldSpec, ListColumn } from './record-views';

/** The owner and owner group inputs every owned register's form ends with. */
export const OWNER_FIELDS: readonly FieldSpec[] = [
  { name: 'ownerId', label: 'Owner', kind: 'owner' },
  { name: 'ownerGroupId', label: 'Owner group', kind: 'ownerGroup' },
];

/**
 * The list column naming who owns a record: the owner, else the owner group; it sorts by that name (the kind's
 * `owner` sort key, ownerNameSort).
 */
export const ownerColumn = <V extends { owner: { name: string } | null; ownerGroup: { name: string } | null }>(): ListColumn<V> =>
  ({ header: 'Owner', value: (view) => view.owner?.name ?? view.ownerGroup?.name, sort: 'owner' });

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
  /** The list's columns; one with `sort` sorts by that key of the kind's `sortable` when its header is clicked. */
  columns: ListColumn<V>[];
  statuses?: readonly string[];
  /** The search box's label on the list ('Search titles'); 'Search' by default. */
  searchLabel?: string;
  /**
   * The list offers CSV imports (src/platform/csv): every import type registered under the list's path (risks:
   * risks, risks/exceptions; audits: audits/findings), each to those who may create or update its records. One type
   * that is the list's own gives a plain Import button, several a menu offering the record type first.
   */
  importable?: boolean;
  /** The register's own list filters beyond status and owner (evidence: kind, locked); a loader for choices read per request (risks: classification). */
  filters?: readonly ListFilter[] | ((viewer: Actor) => Promise<ListFilter[]>);
  /** Further buttons beside New on the list (evidence: Verify files, Auditor package), for the viewer. */
  listActions?: (viewer: Actor) => JSX.Element | undefined;
  /** Extra sections on the detail page (sub-resources), rendered below the fields. */
  sections?: (view: V, viewer: Actor, csrfToken: string) => Promise<JSX.Element>;
  /**
   * The record page's rows in the register's own words (risks: ratings with their scores), instead of one row per field;
   * `linked` names the records its `link` fields point at, as the viewer may see them (by field name).
   */
  summary?: (view: V, linked: ReadonlyMap<string, string>) => DetailRow[];
  /** Links beside Edit and Delete on the record page (risks: Treatments, reviews and exceptions). */
  detailActions?: (view: V) => JSX.Element;
  /**
   * Names History gives stored values, loaded once per page: the kit already names owners, groups and every field with
   * choices; a register adds its own (risks: levels as "3 Possible"), for its parts' fields of the same name too (a
   * treatment's residual rating). Answer undefined to leave a value to the kit.
   */
  historyNames?: (viewer: Actor) => Promise<(field: string, value: unknown) => string | undefined>;
  /** The flash after a create or a save ('Risk created.'); 'Created.' and 'Saved.' by default. */
  messages?: { created?: string; updated?: string };
}

const PAGE_SIZES = [10, 25, 50, 100, 200];
/** Referring records a refused delete names, per kind of reference (the record's page lists them all). */
const REFERRERS_SHOWN = 10;
/** Rows a list's CSV export holds at most (the specification's limit for downloads of current records). */
const EXPORT_LIMIT = 5_000;

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
    if (field.kind === 'checkboxes') {
      // A list: every box ticked; none ticked leaves it out on create (its default) and empties it on update.
      const chosen = formList(body, field.name);
      if (chosen.length || mode === 'update') input[field.name] = chosen;
      continue;
    }
    const raw = formText(body, field.name);
    const text = field.kind === 'textarea' ? raw.replace(/\s+$/, '') : raw.trim();
    const property = schema.properties[field.name];
    if (text === '') {
      if (mode === 'create') continue;
      if (accepts(property, null)) input[field.name] = null;
      else if (accepts(property, '')) input[field.name] = '';
      continue;
    }
    input[field.name] = (field.kind === 'number' || field.numeric) && /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
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
/**
 * What the kit's screens read of a record's view: its id, owner and timestamps. The standard view (RecordView) has
 * them; a register's own view (risks: levels, scores, bands) may name the owner only as an object.
 */
export interface ScreenView {
  id: string;
  ownerId?: string | null;
  ownerGroupId?: string | null;
  owner: { id: string; name: string } | null;
  ownerGroup: { id: string; name: string } | null;
  createdAt: string;
  updatedAt: string;
  customFields?: Record<string, unknown>;
}

/** Who owns a view, by id, whichever way the view names them. */
const ownedOf = (view: ScreenView) => ({ ownerId: view.ownerId ?? view.owner?.id ?? null, ownerGroupId: view.ownerGroupId ?? view.ownerGroup?.id ?? null });

/**
 * A register carrying labels (its kind's `labels`) gets their screen parts from the kit: the Labels field on its forms
 * (before the owner fields), the Labels column on its list (before the owner column) and the Label filter (last).
 */
function withLabelScreens<V>(db: AppContext['db'], o: RecordPagesOptions<V>): RecordPagesOptions<V> {
  const labels = labelScreens(db);
  const before = <X,>(list: readonly X[], item: X, at: (x: X) => boolean): X[] => {
    const index = list.findIndex(at);
    return index < 0 ? [...list, item] : [...list.slice(0, index), item, ...list.slice(index)];
  };
  const own = o.filters;
  return {
    ...o,
    fields: o.fields.some((f) => f.name === 'labelIds') ? o.fields : before(o.fields, labels.field, (f) => f.name === 'ownerId'),
    columns: o.columns.some((c) => c.header === 'Labels') ? o.columns : before(o.columns, labels.column<V>(), (c) => c.header === 'Owner'),
    filters: async (viewer) => {
      const filters = typeof own === 'function' ? await own(viewer) : (own ?? []);
      return filters.some((f) => f.name === 'label') ? [...filters] : [...filters, await labels.filter()];
    },
  };
}

/**
 * A list's filters, sort and page as the address holds them: a status, sort or filter value the list does not offer reads
 * as not set (a strict filter's is passed on, to be refused), the page size one of PAGE_SIZES. The register kit's lists
 * and a person's own lists ("My training") read theirs here.
 */
export function listStateOf(query: Record<string, string | undefined>, o: { statuses?: readonly string[]; sortable(sort: string): boolean; filters?: readonly ListFilter[] }): ListState {
  const int = (raw: string | undefined, fallback: number) => (raw && /^\d{1,6}$/.test(raw) ? Number(raw) : fallback);
  const pageSize = int(query.pageSize, 25);
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    status: o.statuses?.includes(query.status ?? '') ? query.status! : '',
    ownerId: isUuid(query.ownerId ?? '') ? query.ownerId! : '',
    sort: query.sort && o.sortable(query.sort) ? query.sort : '',
    page: Math.max(1, int(query.page, 1)),
    pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : 25,
    extra: Object.fromEntries((o.filters ?? []).flatMap((f) => {
      const value = query[f.name] ?? '';
      return f.options.some((option) => option.value === value) || (f.strict && value !== '') ? [[f.name, value]] : [];
    })),
  };
}

export function recordPages<T extends OwnedTable, V extends ScreenView>(ctx: AppContext, kind: RecordKind<T, Record<string, unknown>, V>, given: RecordPagesOptions<V>) {
  const o = kind.labels ? withLabelScreens(ctx.db, given) : given;
  const right = (r: string) => `${kind.module}:${r}` as Permission;
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: o.navKey });
  const sortable = (sort: string) => Object.hasOwn(kind.sortable, sort.replace(/^-/, ''));

  const filtersFor = async (viewer: Actor): Promise<readonly ListFilter[]> => (typeof o.filters === 'function' ? o.filters(viewer) : (o.filters ?? []));

  const listState = (query: Record<string, string | undefined>, filters: readonly ListFilter[]): ListState =>
    listStateOf(query, { statuses: o.statuses, sortable, filters });

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
          .map((u) => ({ value: u.id, label: `${u.name}${u.status === 'active' ? '' : ' (deactivated)'} <${u.email}>` }));
      } else if (field.kind === 'ownerGroup') {
        choices[field.name] = groups.map((g) => ({ value: g.id, label: g.name }));
      } else if (typeof field.options === 'function') {
        const visible = await field.options(viewer);
        const linked = (field.kind === 'checkboxes' ? (current[field.name] ?? '').split('\n') : [current[field.name]])
          .filter((value): value is string => Boolean(value) && !visible.some((o) => o.value === value));
        choices[field.name] = [...visible, ...linked.map((value) => ({ value, label: `${RESTRICTED_NAME}, kept` }))];
      } else if (field.options) {
        choices[field.name] = valueOptions(field.options);
      }
    }
    return choices;
  };

  const valuesOf = (view: V): FormValues =>
    Object.fromEntries(o.fields.map((f) => {
      const value = f.formValue ? f.formValue(view) : (view as Record<string, unknown>)[f.name];
      return [f.name, value === null || value === undefined ? '' : Array.isArray(value) ? value.join('\n') : String(value)];
    }));

  /** A record's name as its page is titled: its name or title field. */
  const nameOf = (view: V) => String((view as Record<string, unknown>).name ?? (view as Record<string, unknown>).title ?? o.singular);

  /** A form's values as typed: checkboxes as the ticked values, one per line. */
  const typedValues = (body: unknown): FormValues =>
    Object.fromEntries(o.fields.map((f) => [f.name, f.kind === 'checkboxes' ? formList(body, f.name).join('\n') : formText(body, f.name)]));

  /**
   * The values of a list field as people read them: the choices' labels; a linked record missing from the viewer's
   * choices is one they may not read (RESTRICTED_NAME); a fixed value reads as its label.
   */
  const listShown = (field: FieldSpec | undefined, values: readonly unknown[], choices: Record<string, Option[]>): string =>
    values.map((value) => {
      const text = String(value);
      return choices[field?.name ?? '']?.find((c) => c.value === text)?.label ?? (typeof field?.options === 'function' ? RESTRICTED_NAME : valueLabel(text));
    }).join(', ');

  /** Names of the records the view links to, as the viewer may see them (nameAsSeen): by field. */
  const linkNamesOf = async (view: V, viewer: Actor): Promise<Map<string, string>> => {
    const named = await Promise.all(o.fields.map(async (f) => {
      const id = (view as Record<string, unknown>)[f.name];
      return f.link && typeof id === 'string' ? [f.name, await linkedNameAsSeen(ctx.db, viewer, f.link, id)] as const : null;
    }));
    return new Map(named.filter((n) => n?.[1]).map((n) => [n![0], n![1]!]));
  };

  const detailRows = (view: V, choices: Record<string, Option[]>, linkNames: Map<string, string>): DetailRow[] => [
    ...(o.summary ? o.summary(view, linkNames) : o.fields.map((f) => {
      const raw = (view as Record<string, unknown>)[f.name];
      if (Array.isArray(raw)) return { label: f.label, value: raw.length ? listShown(f, raw, choices) : '—' };
      const value = raw === null || raw === undefined || raw === '' ? '—' : String(raw);
      const named = linkNames.get(f.name) ?? choices[f.name]?.find((c) => c.value === value)?.label;
      return { label: f.label, value: f.kind === 'select' && value !== '—' ? valueLabel(value) : (named ?? value) };
    })),
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

  const doneMessages: Record<string, string> = { created: o.messages?.created ?? 'Created.', updated: o.messages?.updated ?? 'Saved.' };

  const refusal = (problems: number, message: string) => (problems ? 'Please correct the fields marked below.' : message);

  const listParams = (state: ListState, page: number, pageSize: number) => ({
    page, pageSize, ...(state.sort ? { sort: state.sort } : {}),
    ...(state.q ? { q: state.q } : {}), ...(state.status ? { status: state.status } : {}), ...(state.ownerId ? { ownerId: state.ownerId } : {}),
    ...state.extra,
  });

  /** The confirmation page; while other records still point at this one it says so, and a refused delete comes back to it. */
  const confirmDelete = async (viewer: Actor, csrfToken: string, headers: Record<string, string | undefined>, id: string, refused?: string) => {
    const view = await getRecord(ctx.db, kind, viewer, id);
    const name = String((view as Record<string, unknown>).name ?? (view as Record<string, unknown>).title ?? view.id);
    const still = await Promise.all((await referencesTo(ctx.db, kind, view.id)).map(async ({ label, count, reference }) => {
      // Records of a declared type are named (or "(restricted)"), each linked to its page where the viewer may open it.
      const type = reference.referrers ? findRecordType(reference.referrers.kind) : undefined;
      if (!reference.referrers || !type) return { label, count };
      const ids = await reference.referrers.ids(ctx.db, view.id, REFERRERS_SHOWN);
      const rows = await recordRows(ctx.db, type, ids);
      const records = ids.map((id) => typedRecordAsSeen(viewer, type, id, rows.get(id))).sort((a, b) => a.title.localeCompare(b.title));
      // A listed record may hold several references (a risk with two treatments relying on a control): "more" only past the limit.
      return { label, count, records, more: ids.length === REFERRERS_SHOWN ? Math.max(0, count - ids.length) : 0 };
    }));
    return renderScreen(headers, shell(`Delete ${o.singular.toLowerCase()}`, viewer, csrfToken),
      <ConfirmDelete action={`${o.path}/${view.id}/delete`} cancel={`${o.path}/${view.id}`} what={`${o.singular.toLowerCase()} "${name}"`} csrfToken={csrfToken}
        referrers={still} recordHref={`${o.path}/${view.id}`} refused={refused} />);
  };

  return new Elysia({ name: `pages:${kind.recordType}` })
    .use(screenAuth(ctx))
    .get(o.path, async ({ viewer, csrfToken, headers, query }) => {
      const importButton = (v: Actor) => {
        const entries = o.importable ? importEntries(v, importTypesUnder(o.path.slice(1))) : [];
        const imports = entries.length ? <ImportButton entries={entries} own={`${o.path}/import`} /> : undefined;
        const own = o.listActions?.(v);
        return imports || own ? <>{imports}{own}</> : undefined;
      };
      const filters = await filtersFor(viewer);
      const state = listState(query, filters);
      const page = await listRecords(ctx.db, kind, viewer, listParams(state, state.page, state.pageSize));
      const results = { path: o.path, page, state, columns: o.columns.filter((c) => c.only !== 'export'), plural: o.title, singular: o.singular };
      if (isHtmx(headers)) return <RecordResults {...results} />;
      const users = await platformService('listUsers')(ctx.db);
      const canCreate = levelOf(viewer, right('create')) !== null;
      const actions = <ListActions path={o.path} singular={o.singular} canCreate={canCreate} extraActions={importButton(viewer)} />;
      return renderScreen(headers, { ...shell(o.title, viewer, csrfToken), actions },
        <RecordList {...results} statuses={o.statuses} filters={filters} searchLabel={o.searchLabel} done={query.done}
          owners={users.map((u) => ({ value: u.id, label: u.name }))} canCreate={levelOf(viewer, right('create')) !== null}
          extraActions={importButton(viewer)} />);
    }, { page: right('read') })

    // The list as filtered and sorted on screen, as CSV: the columns' headers and text, at most EXPORT_LIMIT rows.
    .get(`${o.path}/export.csv`, async ({ viewer, query, set }) => {
      const state = listState(query, await filtersFor(viewer));
      const { rows: kept } = await readAllRecords(ctx.db, kind, viewer, listParams(state, 1, 200), EXPORT_LIMIT);
      set.headers['content-type'] = 'text/csv; charset=utf-8';
      set.headers['content-disposition'] = `attachment; filename="${o.path.slice(1).replaceAll('/', '-')}-${new Date().toISOString().slice(0, 10)}.csv"`;
      return toCsv(columnsCsv(o.columns, kept));
    }, { page: right('read') })

    // A link from another record's page may preset fields by name (a processing activity's "New DPIA": ?processingActivityId=...).
    .get(`${o.path}/new`, async ({ viewer, csrfToken, headers, query }) =>
      form(viewer, csrfToken, headers, {
        title: `New ${o.singular.toLowerCase()}`, action: o.path, cancel: o.path, submit: `Create ${o.singular.toLowerCase()}`,
        values: Object.fromEntries(o.fields.flatMap((f) => (typeof query[f.name] === 'string' ? [[f.name, query[f.name] as string]] : []))),
        definitions: await customDefinitions(),
      }),
    { page: right('create') })
    .post(o.path, async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const definitions = await customDefinitions();
      const result = await attempt(() => runWrite(ctx, (tx) => createRecord(tx, kind, viewer, formInput(o.fields, o.Create, body, 'create', definitions))));
      if (result.ok) return redirect(`${o.path}/${result.value.id}?done=created`, 303);
      set.status = result.error.status;
      const values = typedValues(body);
      return form(viewer, csrfToken, headers, {
        title: `New ${o.singular.toLowerCase()}`, action: o.path, cancel: o.path, values, submit: `Create ${o.singular.toLowerCase()}`,
        errors: fieldErrors(result.error.problems), error: refusal(result.error.problems.length, result.error.message),
        definitions, customValues: customFieldFormValues(definitions, body),
      });
    }, { page: right('create') })

    .get(`${o.path}/:id`, async ({ viewer, csrfToken, headers, params, query }) => {
      const view = await getRecord(ctx.db, kind, viewer, params.id);
      const [history, audit, choices, linkNames, ownSections, otherSections, definitions] = await Promise.all([
        historyWithParts(ctx.db, kind.recordType, view.id as string), listAuditFor(ctx.db, kind.recordType, view.id as string),
        choicesFor(viewer, ownedOf(view).ownerId ?? undefined), linkNamesOf(view, viewer), o.sections?.(view, viewer, csrfToken),
        recordSections(ctx, kind.recordType, view.id as string, viewer, csrfToken), customDefinitions(),
      ]);
      const sections = <>{ownSections}{otherSections}</>;
      const customRows = definitions.map((d) => ({ label: d.label, value: shownCustomValue(d, view.customFields?.[d.key]) }));
      const customLabels = new Map(definitions.map((d) => [`customFields.${d.key}`, d.label]));
      const rows = detailRows(view, choices, linkNames);
      rows.splice(rows.length - 2, 0, ...customRows);
      const own = await o.historyNames?.(viewer);
      const shownHistory = await describeHistory(ctx.db, viewer, history, {
        own: { recordType: kind.recordType, recordId: view.id as string },
        label: (type, field) => (type === kind.recordType ? customLabels.get(field) ?? o.fields.find((f) => f.name === field)?.label : undefined),
        name: (type, field, value) => {
          // The register's own names hold for its parts' fields of the same name too (a risk treatment's residual rating).
          const named = own?.(field, value);
          if (named !== undefined) return named;
          if (type !== kind.recordType) return undefined;
          // A reference the manifests do not declare (a risk's classification): named by the form's choices.
          const spec = o.fields.find((f) => f.name === field);
          // A list field (checkboxes): its values by the choices' labels, restricted where the viewer may not read them.
          if (spec?.kind === 'checkboxes' && Array.isArray(value)) return value.length ? listShown(spec, value, choices) : '—';
          return spec?.kind === 'reference' && !spec.link && typeof value === 'string' ? choices[field]?.find((c) => c.value === value)?.label : undefined;
        },
        keyed: (type, field) => type === kind.recordType && o.fields.some((f) => f.name === field && f.kind === 'select' && !f.numeric),
      });
      const owned = ownedOf(view);
      // A frozen record (locked evidence) offers no Edit or Delete: both would be refused.
      const frozen = kind.frozen?.(view) ?? null;
      const title = String((view as Record<string, unknown>).name ?? (view as Record<string, unknown>).title ?? o.singular);
      return renderScreen(headers, shell(title, viewer, csrfToken),
        <RecordDetail path={o.path} id={view.id as string} rows={rows} history={shownHistory} audit={audit}
          auditHref={levelOf(viewer, 'settings:read') === 'all' ? `/settings/audit?record=${view.id as string}` : undefined}
          actions={o.detailActions?.(view)}
          canUpdate={!frozen && canTouch(viewer, right('update'), owned)} canDelete={!frozen && canTouch(viewer, right('delete'), owned)}
          done={query.done ? doneMessages[query.done] : undefined} sections={sections} plural={o.title} />);
    }, { page: right('read') })

    .get(`${o.path}/:id/edit`, async ({ viewer, csrfToken, headers, params }) => {
      const view = await getRecord(ctx.db, kind, viewer, params.id);
      const definitions = await customDefinitions();
      return form(viewer, csrfToken, headers, {
        title: `Edit ${nameOf(view)}`, action: `${o.path}/${view.id}`, cancel: `${o.path}/${view.id}`, values: valuesOf(view),
        submit: 'Save changes', ownerId: ownedOf(view).ownerId ?? undefined,
        definitions, customValues: customFieldFormValuesOf(definitions, view.customFields),
      });
    }, { page: right('update') })
    .post(`${o.path}/:id`, async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const definitions = await customDefinitions();
      const result = await attempt(() => runWrite(ctx, (tx) => updateRecord(tx, kind, viewer, params.id, formInput(o.fields, o.Update, body, 'update', definitions))));
      if (result.ok) return redirect(`${o.path}/${params.id}?done=updated`, 303);
      set.status = result.error.status;
      const values = typedValues(body);
      return form(viewer, csrfToken, headers, {
        title: `Edit ${o.singular.toLowerCase()}`, action: `${o.path}/${params.id}`, cancel: `${o.path}/${params.id}`, values, submit: 'Save changes',
        errors: fieldErrors(result.error.problems), error: refusal(result.error.problems.length, result.error.message), ownerId: values.ownerId,
        definitions, customValues: customFieldFormValues(definitions, body),
      });
    }, { page: right('update') })

    .get(`${o.path}/:id/delete`, ({ viewer, csrfToken, headers, params }) => confirmDelete(viewer, csrfToken, headers, params.id), { page: right('delete') })
    .post(`${o.path}/:id/delete`, async ({ viewer, csrfToken, headers, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => deleteRecord(tx, kind, viewer, params.id)));
      if (result.ok) return redirect(`${o.path}?done=deleted`, 303);
      set.status = result.error.status;
      return confirmDelete(viewer, csrfToken, headers, params.id, result.error.message);
    }, { page: right('delete') });
}
