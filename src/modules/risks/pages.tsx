import type { AppContext } from '../../platform/http/context';
import type { Actor } from '../../platform/permissions/permissions';
import { OWNER_FIELDS, recordPages, type FieldSpec, type ListColumn } from '../../platform/record-screens/record-pages';
import { readable } from '../../platform/record-screens/record-views';
import { When } from '../../../views/components/table';
import { RISK_STATUSES, RiskCreate, RiskUpdate, type RiskView } from './schema';
import { riskKind, riskLinkKinds, riskLinkOptions } from './service';
import { classificationOptions, getRiskScale } from './settings-service';
import { ScoreBadge } from './views/parts';
import { riskCells } from './register-cells';
import { RESTRICTED_NAME } from '../../platform/records/links';

type Level = { value: number; name: string };

/** "3 – Possible": a level as the form offers it. */
const levelOption = (l: Level) => ({ value: String(l.value), label: `${l.value} – ${l.name}` });
/** "15 High": a score with its band, as text (CSV export, screen readers). */
const scoreText = (score: number | null, band: { name: string } | null) => (score === null ? '' : `${score}${band ? ` ${band.name}` : ''}`);
const ratingText = (likelihood: Level | null, impact: Level | null) =>
  (likelihood && impact ? `${likelihood.value} – ${likelihood.name} likelihood × ${impact.value} – ${impact.name} impact` : 'Not rated');

type Rating = [Level | null, Level | null, number | null, { name: string } | null];

/** A rating's four export columns: likelihood and impact as "3 – Possible", the score, and its band. */
const ratingColumns = (side: string, rating: (r: RiskView) => Rating, sql: readonly ListColumn<RiskView>['sql'][]): ListColumn<RiskView>[] => [
  { header: `${side} likelihood`, value: (r) => { const l = rating(r)[0]; return l ? `${l.value} – ${l.name}` : ''; }, only: 'export', sql: sql[0] },
  { header: `${side} impact`, value: (r) => { const i = rating(r)[1]; return i ? `${i.value} – ${i.name}` : ''; }, only: 'export', sql: sql[1] },
  { header: `${side} score`, value: (r) => rating(r)[2] ?? '', only: 'export', sql: sql[2] },
  { header: `${side} band`, value: (r) => rating(r)[3]?.name ?? '', only: 'export', sql: sql[3] },
];

/** Level pickers, read from the risk scale per request (Risk settings change it). */
const levels = (ctx: AppContext, axis: 'likelihood' | 'impact') =>
  async (viewer: Actor) => (await getRiskScale(ctx.db, viewer))[axis].map(levelOption);

const levelField = (ctx: AppContext, name: keyof RiskView, label: string, axis: 'likelihood' | 'impact', hint?: string, required = false): FieldSpec => ({
  name, label, kind: 'reference', options: levels(ctx, axis), numeric: true, required, hint,
  formValue: (view) => (view as RiskView)[name] === null ? '' : ((view as RiskView)[name] as Level).value,
});

/** The Risks list's columns, also the CSV export's and the risk register report's (the `export` ones included). */
export const riskColumns: ListColumn<RiskView>[] = [
  { header: 'Title', value: (r) => r.title, link: true, sort: 'title', sql: riskCells.title },
  { header: 'Classification', value: (r) => r.classification.name, sort: 'classification', sql: riskCells.classification },
  { header: 'Inherent', value: (r) => scoreText(r.inherentScore, r.inherentBand), cell: (r) => <ScoreBadge score={r.inherentScore} band={r.inherentBand} />, sort: 'inherentScore', only: 'screen' },
  { header: 'Residual', value: (r) => scoreText(r.residualScore, r.residualBand), cell: (r) => <ScoreBadge score={r.residualScore} band={r.residualBand} />, sort: 'residualScore', only: 'screen' },
  // The export gives each part of both ratings a column of its own, so a committee's spreadsheet can sort and count them.
  ...ratingColumns('Inherent', (r) => [r.inherentLikelihood, r.inherentImpact, r.inherentScore, r.inherentBand], riskCells.inherent),
  ...ratingColumns('Residual', (r) => [r.residualLikelihood, r.residualImpact, r.residualScore, r.residualBand], riskCells.residual),
  { header: 'Owner', value: (r) => r.owner?.name ?? r.ownerGroup?.name, sort: 'owner', sql: riskCells.owner },
  { header: 'Owner group', value: (r) => r.ownerGroup?.name, only: 'export', sql: riskCells.ownerGroup },
  { header: 'Status', value: (r) => readable(r.status), sort: 'status', sql: riskCells.status },
  { header: 'Review every (months)', value: (r) => r.reviewFrequencyMonths, only: 'export', sql: riskCells.reviewFrequencyMonths },
  { header: 'Updated', value: (r) => r.updatedAt.slice(0, 10), cell: (r) => <When value={r.updatedAt} />, sort: 'updatedAt', sql: riskCells.updatedDay },
];

/** The risk register's screens: the register kit's list, record page, forms and delete, with the risk's own words. */
export const riskPages = (ctx: AppContext) =>
  recordPages(ctx, riskKind, {
    path: '/risks', title: 'Risks', singular: 'Risk', navKey: 'risks', Create: RiskCreate, Update: RiskUpdate,
    searchLabel: 'Search titles', statuses: RISK_STATUSES, importable: true,
    messages: { created: 'Risk created.', updated: 'Risk updated.' },
    fields: [
      { name: 'title', label: 'Title', kind: 'text', required: true, maxlength: 300 },
      { name: 'description', label: 'Description', kind: 'textarea', maxlength: 100_000 },
      {
        name: 'classificationId', label: 'Classification', kind: 'reference', required: true,
        options: async (viewer) => (await classificationOptions(ctx.db, viewer)).map((c) => ({ value: c.id, label: c.name })),
        formValue: (view) => (view as RiskView).classification.id,
      },
      levelField(ctx, 'inherentLikelihood', 'Inherent likelihood', 'likelihood', undefined, true),
      levelField(ctx, 'inherentImpact', 'Inherent impact', 'impact', undefined, true),
      levelField(ctx, 'residualLikelihood', 'Residual likelihood', 'likelihood', 'Never above the inherent likelihood; blank: not rated'),
      levelField(ctx, 'residualImpact', 'Residual impact', 'impact', 'Never above the inherent impact; blank: not rated'),
      {
        name: 'assetId', label: 'Asset', kind: 'reference', hint: 'Assets you can read', link: riskLinkKinds.asset,
        options: (viewer) => riskLinkOptions.asset(ctx.db, viewer),
      },
      {
        name: 'businessUnitId', label: 'Business unit', kind: 'reference', hint: 'Units you can read', link: riskLinkKinds.businessUnit,
        options: (viewer) => riskLinkOptions.businessUnit(ctx.db, viewer),
      },
      { ...OWNER_FIELDS[0], formValue: (view) => (view as RiskView).owner?.id },
      { ...OWNER_FIELDS[1], formValue: (view) => (view as RiskView).ownerGroup?.id },
      { name: 'reviewFrequencyMonths', label: 'Review every (months)', kind: 'number', hint: '1 to 120; 12 when blank' },
      { name: 'status', label: 'Status', kind: 'select', options: RISK_STATUSES },
    ],
    // Level and band filters are strict: the Dashboard's heat map links here with them, and a value that names no
    // level or band is refused (400) rather than dropped, which would show every risk under a cell's link.
    filters: async (viewer) => {
      const [classes, scale] = await Promise.all([classificationOptions(ctx.db, viewer), getRiskScale(ctx.db, viewer)]);
      const levelFilter = (name: string, label: string, axis: 'likelihood' | 'impact') =>
        ({ name, label, options: scale[axis].map(levelOption), strict: true });
      const bands = scale.bands.map((b) => ({ value: b.name, label: b.name }));
      return [
        { name: 'classificationId', label: 'Classification', options: classes.map((c) => ({ value: c.id, label: c.name })) },
        { name: 'inherentBand', label: 'Inherent band', options: bands, strict: true },
        { name: 'residualBand', label: 'Residual band', options: bands, strict: true },
        levelFilter('inherentLikelihood', 'Inherent likelihood', 'likelihood'),
        levelFilter('inherentImpact', 'Inherent impact', 'impact'),
        levelFilter('residualLikelihood', 'Residual likelihood', 'likelihood'),
        levelFilter('residualImpact', 'Residual impact', 'impact'),
      ];
    },
    columns: riskColumns,
    summary: (risk, linked) => [
      { label: 'Classification', value: risk.classification.name },
      { label: 'Status', value: readable(risk.status) },
      { label: 'Inherent', value: ratingText(risk.inherentLikelihood, risk.inherentImpact), content: <><span safe>{ratingText(risk.inherentLikelihood, risk.inherentImpact)}</span>{' = '}<ScoreBadge score={risk.inherentScore} band={risk.inherentBand} /></> },
      {
        label: 'Residual',
        value: ratingText(risk.residualLikelihood, risk.residualImpact),
        content: risk.residualLikelihood && risk.residualImpact
          ? <><span safe>{ratingText(risk.residualLikelihood, risk.residualImpact)}</span>{' = '}<ScoreBadge score={risk.residualScore} band={risk.residualBand} /></>
          : <span class="muted">Not rated</span>,
      },
      { label: 'Asset', value: risk.assetId ? (linked.get('assetId') ?? RESTRICTED_NAME) : '—' },
      { label: 'Business unit', value: risk.businessUnitId ? (linked.get('businessUnitId') ?? RESTRICTED_NAME) : '—' },
      { label: 'Owner', value: risk.owner ? `${risk.owner.name} <${risk.owner.email}>` : '—' },
      { label: 'Owner group', value: risk.ownerGroup?.name ?? '—' },
      { label: 'Review every', value: `${risk.reviewFrequencyMonths} months` },
      { label: 'Description', value: risk.description || '—' },
    ],
    detailActions: (risk) => <a href={`/risks/${risk.id}/treatments`}>Treatments, reviews and exceptions</a>,
    // History names levels as "3 Possible" (the kit names owners, groups and the classification from the form's choices).
    historyNames: async (viewer) => {
      const scale = await getRiskScale(ctx.db, viewer);
      const named = (list: Level[]) => new Map(list.map((l) => [String(l.value), `${l.value} ${l.name}`]));
      const byField: Record<string, Map<string, string>> = {
        inherentLikelihood: named(scale.likelihood), residualLikelihood: named(scale.likelihood),
        inherentImpact: named(scale.impact), residualImpact: named(scale.impact),
      };
      return (field, value) => (value === null || value === undefined ? undefined : byField[field]?.get(String(value)));
    },
  });
