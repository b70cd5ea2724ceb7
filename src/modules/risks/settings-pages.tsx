import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../platform/http/context';
import { invalid } from '../../platform/core/errors';
import { schemaProblems } from '../../platform/http/form-input';
import { levelOf, type Actor } from '../../platform/permissions/permissions';
import { screenAuth } from '../../platform/http/screen-auth';
import { fieldErrors } from '../../../views/components/form';
import { attempt, formText } from '../../platform/http/form-input';
import { Shell } from '../../platform/http/screen';
import { cellKey, RiskSettings, type BandRow, type LevelRow, type RiskSettingsProps, type ScaleForm } from './views/settings';
import { RiskScale, type RiskScaleView } from './schema';
import { getRiskScale, replaceRiskScale } from './settings-service';
import { riskClassificationPages, riskClassificationSection } from './classifications';
import type { NameListState } from '../../platform/name-lists/name-list-screen';

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

/** Settings › Risk settings: the classifications and the risk scale (levels, score matrix, bands). */
export const riskSettingsPages = (ctx: AppContext) => {
  const shell = (title: string, viewer: Actor, csrfToken: string) => ({ title, viewer, csrfToken, active: 'risk-settings' });

  const settingsScreen = async (viewer: Actor, csrfToken: string, extra: Partial<RiskSettingsProps> = {}, classificationState: NameListState = {}) => {
    const [classifications, scale] = await Promise.all([
      riskClassificationSection(ctx, viewer, csrfToken, classificationState), getRiskScale(ctx.db, viewer),
    ]);
    const props: RiskSettingsProps = {
      csrfToken,
      classifications,
      scale: toRows(scale),
      canCreate: levelOf(viewer, 'settings:create') !== null,
      canUpdate: levelOf(viewer, 'settings:update') !== null,
      ...extra,
    };
    return <Shell {...shell('Risk settings', viewer, csrfToken)}><RiskSettings {...props} /></Shell>;
  };

  return new Elysia({ name: 'module:risks:settings-pages' })
    .use(screenAuth(ctx))
    // Risk settings: classifications and the scale
    .get('/settings/risks', async ({ viewer, csrfToken, query }) => settingsScreen(viewer, csrfToken, { done: query.done }, { done: query.done }),
      { page: 'settings:read' })
    .use(riskClassificationPages(ctx, async ({ viewer, csrfToken }, state) => settingsScreen(viewer, csrfToken, {}, state)))
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
