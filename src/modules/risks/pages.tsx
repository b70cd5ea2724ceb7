import { Elysia } from 'elysia';
import { ImportButton, importEntries, importTypesUnder } from '../../platform/csv/pages';
import { listAuditFor } from '../../platform/audit/audit';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { recordSections } from '../../platform/records/record-types';
import { canTouch, levelOf, type Actor } from '../../platform/permissions/permissions';
import {
  customFieldFormValues, customFieldFormValuesOf, customFieldsFromForm, definitionsFor, shownCustomValue,
} from '../../platform/records/custom-field-values';
import { screenAuth } from '../../platform/http/screen-auth';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { isHtmx } from '../../../views/layout';
import { renderScreen, Shell } from '../../platform/http/screen';
import { ConfirmDelete, RiskDetail, type ValueNamer } from './views/detail';
import { RiskForm, type RiskFormValues } from './views/form';
import { RiskList, RiskResults, SORT_OPTIONS, type RiskListState } from './views/list';
import { cellKey, RiskSettings, type BandRow, type LevelRow, type RiskSettingsProps, type ScaleForm } from './views/settings';
import { listGroups, listUsers } from '../people/service';
import { ClassificationInput, RISK_STATUSES, RiskCreate, RiskScale, type RiskScaleView, type RiskView } from './schema';
import { createRecord, deleteRecord, getRecord, listRecords, recordHistory, updateRecord } from '../../platform/records/records';
import { riskKind } from './service';
import {
  classificationOptions, createClassification, deleteClassification, getRiskScale, listClassifications, replaceRiskScale,
  updateClassification,
} from './settings-service';
import { isUuid } from '../../platform/core/uuid';

type Query = Record<string, string | undefined>;
const PAGE_SIZES = [10, 25, 50, 100, 200];

/** The list state from the address bar; anything unrecognised falls back to the default rather than failing the page. */
function listState(query: Query): RiskListState {
  const int = (raw: string | undefined, fallback: number) => (raw && /^\d+$/.test(raw) ? Number(raw) : fallback);
  const status = query.status ?? '';
  const classificationId = query.classificationId ?? '';
  const sort = query.sort ?? '';
  const pageSize = int(query.pageSize, 25);
  return {
    q: (query.q ?? '').trim().slice(0, 200),
    status: (RISK_STATUSES as readonly string[]).includes(status) ? status : '',
    classificationId: isUuid(classificationId) ? classificationId : '',
    sort: SORT_OPTIONS.some((o) => o.value === sort) ? sort : '-createdAt',
    page: Math.max(1, int(query.page, 1)),
    pageSize: PAGE_SIZES.includes(pageSize) ? pageSize : 25,
  };
}

/* ---------- Risk form ---------- */

const RISK_FORM_FIELDS: (keyof RiskFormValues)[] = [
  'title', 'description', 'classificationId', 'inherentLikelihood', 'inherentImpact', 'residualLikelihood', 'residualImpact',
  'ownerId', 'ownerGroupId', 'reviewFrequencyMonths', 'status',
];

function formValues(body: unknown): RiskFormValues {
  const values = { ...NEW_RISK };
  for (const field of RISK_FORM_FIELDS) values[field] = formText(body, field);
  return values;
}

function valuesOf(risk: RiskView): RiskFormValues {
  return {
    title: risk.title,
    description: risk.description,
    classificationId: risk.classification.id,
    inherentLikelihood: String(risk.inherentLikelihood.value),
    inherentImpact: String(risk.inherentImpact.value),
    residualLikelihood: risk.residualLikelihood ? String(risk.residualLikelihood.value) : '',
    residualImpact: risk.residualImpact ? String(risk.residualImpact.value) : '',
    ownerId: risk.owner?.id ?? '',
    ownerGroupId: risk.ownerGroup?.id ?? '',
    reviewFrequencyMonths: String(risk.reviewFrequencyMonths),
    status: risk.status,
  };
}

/** Form strings to the REST shape: blanks become "not set", numbers become numbers; the schema then checks the shape. */
function riskInput(values: RiskFormValues, customFields?: Record<string, unknown>): RiskCreate {
  const optional = (v: string) => (v.trim() === '' ? null : v.trim());
  const number = (v: string) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : v);
  const input = {
    title: values.title,
    description: values.description,
    classificationId: values.classificationId,
    inherentLikelihood: number(values.inherentLikelihood),
    inherentImpact: number(values.inherentImpact),
    residualLikelihood: values.residualLikelihood.trim() === '' ? null : number(values.residualLikelihood),
    residualImpact: values.residualImpact.trim() === '' ? null : number(values.residualImpact),
    ownerId: optional(values.ownerId),
    ownerGroupId: optional(values.ownerGroupId),
    ...(values.reviewFrequencyMonths.trim() === '' ? {} : { reviewFrequencyMonths: number(values.reviewFrequencyMonths) }),
    status: values.status || 'open',
    ...(customFields && Object.keys(customFields).length ? { customFields } : {}),
  };
  const problems = schemaProblems(RiskCreate, input);
  if (problems.length) throw invalid(problems);
  return input as RiskCreate;
}

const NEW_RISK: RiskFormValues = {
  title: '', description: '', classificationId: '', inherentLikelihood: '', inherentImpact: '', residualLikelihood: '',
  residualImpact: '', ownerId: '', ownerGroupId: '', reviewFrequencyMonths: '12', status: 'open',
};

/* ---------- Scale editor ---------- */

const toRows = (scale: RiskScaleView): ScaleForm => ({
  likelihood: scale.likelihood.map((l) => ({ value: String(l.value), name: l.name, description: l.description, remove: false })),
  impact: scale.impact.map((l) => ({ value: String(l.value), name: l.name, description: l.description, remove: false })),
  cells: Object.fromEntries(scale.cells.map((c) => [cellKey(c.likelihood, c.impact), String(c.score)])),
  bands: scale.bands.map((b) => ({ name: b.name, minScore: String(b.minScore), maxScore: String(b.maxScore), color: b.color, remove: false })),
});

/** Reads indexed rows (`likelihood.0.name`, ...) while they were sent; entirely blank rows (the "new" row) are dropped. */
function readRows<K extends string>(body: unknown, prefix: string, keys: readonly K[]): (Record<K, string> & { remove: boolean })[] {
  const sent = (name: string) => typeof body === 'object' && body !== null && name in body;
  const rows: (Record<K, string> & { remove: boolean })[] = [];
  for (let i = 0; i < 200 && sent(`${prefix}.${i}.${keys[0]}`); i++) {
    const row = Object.fromEntries(keys.map((k) => [k, formText(body, `${prefix}.${i}.${k}`)])) as Record<K, string>;
    if (keys.every((k) => row[k].trim() === '' || k === 'color')) continue;
    rows.push({ ...row, remove: formText(body, `${prefix}.${i}.remove`) === '1' });
  }
  return rows;
}

function scaleForm(body: unknown): ScaleForm {
  const likelihood: LevelRow[] = readRows(body, 'likelihood', ['value', 'name', 'description'] as const);
  const impact: LevelRow[] = readRows(body, 'impact', ['value', 'name', 'description'] as const);
  const bands: BandRow[] = readRows(body, 'bands', ['name', 'minScore', 'maxScore', 'color'] as const);
  const cells: Record<string, string> = {};
  for (const l of likelihood) {
    for (const m of impact) cells[cellKey(l.value.trim(), m.value.trim())] = formText(body, `cell.${l.value.trim()}.${m.value.trim()}`);
  }
  return { likelihood, impact, cells, bands };
}

/**
 * The editor's rows as the PUT body. Problem paths refer to positions in that body; `rename` maps them back to
 * the editor's input names, which keep removed rows in place.
 */
function scaleInput(form: ScaleForm): { input: RiskScale; rename: (field: string) => string } {
  const number = (v: string) => (/^\s*-?\d+\s*$/.test(v) ? Number(v) : v);
  const positions: Record<string, number[]> = { likelihood: [], impact: [], bands: [] };
  const levels = (axis: 'likelihood' | 'impact') => form[axis].flatMap((row, i) => {
    if (row.remove) return [];
    positions[axis].push(i);
    return [{ value: number(row.value), name: row.name, description: row.description }];
  });
  const likelihood = levels('likelihood');
  const impact = levels('impact');
  const cells = likelihood.flatMap((l) => impact.flatMap((m) => {
    const score = form.cells[cellKey(String(l.value).trim(), String(m.value).trim())] ?? '';
    return score.trim() === '' ? [] : [{ likelihood: l.value, impact: m.value, score: number(score) }];
  }));
  const bands = form.bands.flatMap((b, i) => {
    if (b.remove) return [];
    positions.bands.push(i);
    return [{ name: b.name, minScore: number(b.minScore), maxScore: number(b.maxScore), color: b.color || undefined }];
  });
  const rename = (field: string) => {
    const [list, index, ...rest] = field.split('.');
    const at = positions[list]?.[Number(index)];
    return at === undefined ? field : [list, at, ...rest].join('.');
  };
  return { input: { likelihood, impact, cells, bands } as RiskScale, rename };
}

/* ---------- Routes ---------- */

export const riskPages = (ctx: AppContext) => {
  const shell = (title: string, viewer: Actor, csrfToken: string, active = 'risks') => ({ title, viewer, csrfToken, active });

  /**
   * Choices for the form. Only active people can become owners, but a risk's current owner stays listed (marked)
   * even when deactivated, so opening and saving the form never silently changes the owner.
   */
  const formOptions = async (viewer: Actor, currentOwnerId = '') => {
    const [scale, classifications, users, groups] = await Promise.all([
      getRiskScale(ctx.db, viewer), classificationOptions(ctx.db, viewer), listUsers(ctx.db), listGroups(ctx.db),
    ]);
    const owners = users.filter((u) => u.status === 'active' || u.id === currentOwnerId)
      .map((u) => (u.status === 'active' ? u : { ...u, name: `${u.name} (deactivated)` }));
    return { scale, classifications, users: owners, groups };
  };

  /** History shows stored values; ids and level numbers are given the names people recognise. */
  const namer = async (viewer: Actor): Promise<ValueNamer> => {
    const [scale, classifications, users, groups] = await Promise.all([
      getRiskScale(ctx.db, viewer), classificationOptions(ctx.db, viewer), listUsers(ctx.db), listGroups(ctx.db),
    ]);
    const names: Record<string, Map<string, string>> = {
      classificationId: new Map(classifications.map((c) => [c.id, c.name])),
      ownerId: new Map(users.map((u) => [u.id, u.name])),
      ownerGroupId: new Map(groups.map((g) => [g.id, g.name])),
      inherentLikelihood: new Map(scale.likelihood.map((l) => [String(l.value), `${l.value} ${l.name}`])),
      residualLikelihood: new Map(scale.likelihood.map((l) => [String(l.value), `${l.value} ${l.name}`])),
      inherentImpact: new Map(scale.impact.map((l) => [String(l.value), `${l.value} ${l.name}`])),
      residualImpact: new Map(scale.impact.map((l) => [String(l.value), `${l.value} ${l.name}`])),
    };
    return (field, value) => {
      if (value === null || value === undefined || value === '') return '—';
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return names[field]?.get(text) ?? text;
    };
  };

  const settingsScreen = async (viewer: Actor, csrfToken: string, extra: Partial<RiskSettingsProps> = {}) => {
    const [classifications, scale] = await Promise.all([
      listClassifications(ctx.db, viewer, { page: 1, pageSize: 200 }), getRiskScale(ctx.db, viewer),
    ]);
    const props: RiskSettingsProps = {
      csrfToken,
      classifications: classifications.rows,
      scale: toRows(scale),
      canCreate: levelOf(viewer, 'settings:create') !== null,
      canUpdate: levelOf(viewer, 'settings:update') !== null,
      ...extra,
    };
    return <Shell {...shell('Risk settings', viewer, csrfToken, 'risk-settings')}><RiskSettings {...props} /></Shell>;
  };

  return new Elysia({ name: 'module:risks:pages' })
    .use(screenAuth(ctx))
    .get('/risks', async ({ viewer, csrfToken, headers, query }) => {
      const state = listState(query);
      const page = await listRecords(ctx.db, riskKind, viewer, {
        page: state.page, pageSize: state.pageSize, sort: state.sort,
        ...(state.q ? { q: state.q } : {}),
        ...(state.status ? { status: state.status } : {}),
        ...(state.classificationId ? { classificationId: state.classificationId } : {}),
      });
      if (isHtmx(headers)) return <RiskResults page={page} state={state} />;
      const classifications = await classificationOptions(ctx.db, viewer);
      const imports = importEntries(viewer, importTypesUnder('risks'));
      return (
        <Shell {...shell('Risks', viewer, csrfToken)}>
          <RiskList page={page} state={state} classifications={classifications} canCreate={levelOf(viewer, 'risks:create') !== null}
            importButton={imports.length ? <ImportButton entries={imports} own="/risks/import" /> : undefined} done={query.done} />
        </Shell>
      );
    }, { page: 'risks:read' })

    .get('/risks/new', async ({ viewer, csrfToken, headers }) => renderScreen(headers, shell('New risk', viewer, csrfToken),
      <RiskForm action="/risks" submitLabel="Create risk" cancelHref="/risks" csrfToken={csrfToken} values={NEW_RISK} {...await formOptions(viewer)}
        customFields={{ definitions: await definitionsFor(ctx.db, 'risks'), values: {} }} />,
    ), { page: 'risks:create' })
    .post('/risks', async ({ viewer, csrfToken, headers, body, redirect, set }) => {
      const values = formValues(body);
      const definitions = await definitionsFor(ctx.db, 'risks');
      const customFields = { definitions, values: customFieldFormValues(definitions, body) };
      const result = await attempt(() => runWrite(ctx, (tx) => createRecord(tx, riskKind, viewer, riskInput(values, customFieldsFromForm(definitions, body, 'create')))));
      if (result.ok) return redirect(`/risks/${result.value.id}?done=created`, 303);
      set.status = result.error.status;
      return renderScreen(headers, shell('New risk', viewer, csrfToken),
        <RiskForm action="/risks" submitLabel="Create risk" cancelHref="/risks" csrfToken={csrfToken} values={values}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message}
          {...await formOptions(viewer)} customFields={customFields} />);
    }, { page: 'risks:create' })

    .get('/risks/:id', async ({ viewer, csrfToken, headers, params, query }) => {
      const risk = await getRecord(ctx.db, riskKind, viewer, params.id);
      const [history, audit, name, definitions, sections] = await Promise.all([
        recordHistory(ctx.db, riskKind, viewer, risk.id), listAuditFor(ctx.db, 'risk', risk.id), namer(viewer), definitionsFor(ctx.db, 'risks'),
        recordSections(ctx, 'risk', risk.id, viewer, csrfToken),
      ]);
      const customFields = definitions.map((d) => ({ label: d.label, value: shownCustomValue(d, risk.customFields?.[d.key]) }));
      const fieldLabels = Object.fromEntries(definitions.map((d) => [`customFields.${d.key}`, d.label]));
      const owned = { ownerId: risk.owner?.id ?? null, ownerGroupId: risk.ownerGroup?.id ?? null };
      return renderScreen(headers, shell(risk.title, viewer, csrfToken),
        <RiskDetail risk={risk} history={history} audit={audit} name={name} done={query.done} customFields={customFields} fieldLabels={fieldLabels}
          canUpdate={canTouch(viewer, 'risks:update', owned)} canDelete={canTouch(viewer, 'risks:delete', owned)} sections={<>{sections}</>} />);
    }, { page: 'risks:read' })

    .get('/risks/:id/edit', async ({ viewer, csrfToken, headers, params }) => {
      const risk = await getRecord(ctx.db, riskKind, viewer, params.id);
      const definitions = await definitionsFor(ctx.db, 'risks');
      return renderScreen(headers, shell(`Edit ${risk.title}`, viewer, csrfToken),
        <RiskForm action={`/risks/${risk.id}`} submitLabel="Save changes" cancelHref={`/risks/${risk.id}`} csrfToken={csrfToken}
          values={valuesOf(risk)} {...await formOptions(viewer, risk.owner?.id)}
          customFields={{ definitions, values: customFieldFormValuesOf(definitions, risk.customFields) }} />);
    }, { page: 'risks:update' })
    .post('/risks/:id', async ({ viewer, csrfToken, headers, params, body, redirect, set }) => {
      const risk = await getRecord(ctx.db, riskKind, viewer, params.id);
      const values = formValues(body);
      const definitions = await definitionsFor(ctx.db, 'risks');
      const customFields = { definitions, values: customFieldFormValues(definitions, body) };
      const result = await attempt(() => runWrite(ctx, (tx) => updateRecord(tx, riskKind, viewer, risk.id, riskInput(values, customFieldsFromForm(definitions, body, 'update')))));
      if (result.ok) return redirect(`/risks/${risk.id}?done=updated`, 303);
      set.status = result.error.status;
      return renderScreen(headers, shell(`Edit ${risk.title}`, viewer, csrfToken),
        <RiskForm action={`/risks/${risk.id}`} submitLabel="Save changes" cancelHref={`/risks/${risk.id}`} csrfToken={csrfToken} values={values}
          errors={fieldErrors(result.error.problems)} error={result.error.problems.length ? 'Please correct the fields marked below.' : result.error.message}
          {...await formOptions(viewer, values.ownerId)} customFields={customFields} />);
    }, { page: 'risks:update' })

    .get('/risks/:id/delete', async ({ viewer, csrfToken, headers, params }) => {
      const risk = await getRecord(ctx.db, riskKind, viewer, params.id);
      return renderScreen(headers, shell(`Delete ${risk.title}`, viewer, csrfToken), <ConfirmDelete risk={risk} csrfToken={csrfToken} />);
    }, { page: 'risks:delete' })
    .post('/risks/:id/delete', async ({ viewer, params, redirect }) => {
      await runWrite(ctx, (tx) => deleteRecord(tx, riskKind, viewer, params.id));
      return redirect('/risks?done=deleted', 303);
    }, { page: 'risks:delete' })

    // Risk settings: classifications and the scale
    .get('/settings/risks', async ({ viewer, csrfToken, query }) => settingsScreen(viewer, csrfToken, { done: query.done }), { page: 'settings:read' })
    .post('/settings/risks/classifications', async ({ viewer, csrfToken, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), description: formText(body, 'description') };
      const result = await attempt(async () => {
        const problems = schemaProblems(ClassificationInput, form);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => createClassification(tx, viewer, form));
      });
      if (result.ok) return redirect('/settings/risks?done=classification-created#classifications', 303);
      set.status = result.error.status;
      const problems = result.error.problems;
      return settingsScreen(viewer, csrfToken, {
        classificationForm: form,
        classificationErrors: problems.length ? fieldErrors(problems) : { name: result.error.message },
      });
    }, { page: 'settings:create' })
    .post('/settings/risks/classifications/:id', async ({ viewer, csrfToken, params, body, redirect, set }) => {
      const form = { name: formText(body, 'name'), description: formText(body, 'description') };
      const result = await attempt(async () => {
        const problems = schemaProblems(ClassificationInput, form);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => updateClassification(tx, viewer, params.id, form));
      });
      if (result.ok) return redirect('/settings/risks?done=classification-updated#classifications', 303);
      set.status = result.error.status;
      return settingsScreen(viewer, csrfToken, { classificationError: result.error.message });
    }, { page: 'settings:update' })
    .post('/settings/risks/classifications/:id/delete', async ({ viewer, csrfToken, params, redirect, set }) => {
      const result = await attempt(() => runWrite(ctx, (tx) => deleteClassification(tx, viewer, params.id)));
      if (result.ok) return redirect('/settings/risks?done=classification-deleted#classifications', 303);
      set.status = result.error.status;
      return settingsScreen(viewer, csrfToken, { classificationError: result.error.message });
    }, { page: 'settings:update' })
    .post('/settings/risks/scale', async ({ viewer, csrfToken, body, redirect, set }) => {
      const form = scaleForm(body);
      if (formText(body, 'intent') === 'preview') return settingsScreen(viewer, csrfToken, { scale: form, preview: true });
      const { input, rename } = scaleInput(form);
      const result = await attempt(async () => {
        const problems = schemaProblems(RiskScale, input, rename);
        if (problems.length) throw invalid(problems);
        return runWrite(ctx, (tx) => replaceRiskScale(tx, viewer, input));
      });
      if (result.ok) return redirect('/settings/risks?done=scale-saved#scale', 303);
      set.status = result.error.status;
      const problems = result.error.problems.map((p) => ({ ...p, field: rename(p.field) }));
      const inline = /^(likelihood|impact|bands)\.\d+\.\w+$/;
      return settingsScreen(viewer, csrfToken, {
        scale: form,
        scaleError: problems.length ? 'The scale was not saved. Please correct the problems below.' : result.error.message,
        scaleErrors: fieldErrors(problems.filter((p) => inline.test(p.field))),
        scaleProblems: problems.map((p) => `${p.field}: ${p.message}`),
      });
    }, { page: 'settings:update' });
};
