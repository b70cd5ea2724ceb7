import { dateRangeFilters, erased, inDateRange, inPages, recordPages, registerReport, type ReportDeclaration, type ReportFilters } from '../../platform/reports/declarations';
import { readable } from '../../platform/record-screens/record-views';
import { riskColumns } from './pages';
import { riskCellJoins } from './register-cells';
import { riskKind } from './service';
import { listAllTreatments } from './treatments-service';
import { RISK_STATUSES, TREATMENT_STATUSES, TREATMENT_TYPES, type TreatmentView } from './schema';
import { classificationOptions, getRiskScale } from './settings-service';

type Level = { value: number; name: string } | null;
const levelText = (l: Level) => (l ? `${l.value} – ${l.name}` : '');

type TreatmentRow = TreatmentView & { riskTitle: string };

/** Whether a treatment is among the chosen: its status, type and due date (a treatment without one is outside any range). */
const chosenTreatment = (chosen: ReportFilters) => (t: TreatmentView) =>
  (!chosen.status || t.status === chosen.status) && (!chosen.type || t.type === chosen.type) && inDateRange(chosen, 'dueOn', t.dueOn);

/**
 * Every treatment of the risks the viewer may read, read as GET /api/v1/risks/treatments pages them, with its risk's
 * title, narrowed by the chosen filters page by page; sorted by risk title and due date, so read whole before the
 * first row is written (the titles come from one pass over the risks, a page at a time).
 */
async function treatmentRows(db: Parameters<typeof listAllTreatments>[0], viewer: Parameters<typeof listAllTreatments>[1], chosen: ReportFilters) {
  const treatments: TreatmentView[] = [];
  const keep = chosenTreatment(chosen);
  for (let page = 1; ; page++) {
    const chunk = await listAllTreatments(db, viewer, { page, pageSize: 200 });
    treatments.push(...chunk.rows.filter(keep));
    if (chunk.rows.length < 200 || page * 200 >= chunk.total) break;
  }
  // The treatments are of risks the viewer may read (listAllTreatments joins on the risk's ownership), so each title is readable.
  const wanted = new Set(treatments.map((t) => t.riskId));
  const titles = new Map<string, string>();
  if (wanted.size) for await (const risks of recordPages(db, riskKind, viewer)) for (const r of risks) if (wanted.has(r.id)) titles.set(r.id, r.title);
  return treatments.map((t): TreatmentRow => ({ ...t, riskTitle: titles.get(t.riskId) ?? '' }))
    .sort((a, b) => a.riskTitle.localeCompare(b.riskTitle) || (a.dueOn ?? '9999-12-31').localeCompare(b.dueOn ?? '9999-12-31'));
}

const treatmentPlan: ReportDeclaration<TreatmentRow> = {
  key: 'treatmentPlan', title: 'Risk treatment plan', needs: 'risks:read',
  description: 'How each risk you may read is treated: the treatment, its status, due date, target residual rating and the controls it relies on.',
  columns: [
    { header: 'Risk', value: (t) => t.riskTitle },
    { header: 'Treatment', value: (t) => t.title },
    { header: 'Type', value: (t) => readable(t.type) },
    { header: 'Status', value: (t) => readable(t.status) },
    { header: 'Due', value: (t) => t.dueOn },
    { header: 'Target residual likelihood', value: (t) => levelText(t.residualLikelihood) },
    { header: 'Target residual impact', value: (t) => levelText(t.residualImpact) },
    { header: 'Controls', value: (t) => t.controls.map((c) => c.name).join('; ') },
  ],
  filters: async () => [
    { name: 'status', label: 'Status', options: TREATMENT_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    { name: 'type', label: 'Type', options: TREATMENT_TYPES.map((s) => ({ value: s, label: readable(s) })) },
    ...dateRangeFilters('dueOn', 'Due'),
  ],
  pages: async function* (ctx, viewer, chosen) { yield* inPages(await treatmentRows(ctx.db, viewer, chosen)); },
};

/** The risk module's reports: the register with inherent and residual ratings, and the treatment plan. */
export const riskReports = [
  registerReport(riskKind, {
    key: 'riskRegister', title: 'Risk register', listHref: '/risks', columns: riskColumns, joins: riskCellJoins,
    description: 'Every risk you may read with its inherent and residual likelihood, impact, score and band, owner and status.',
    params: { sort: 'title' },
    // The Risks list's filters (status, classification, inherent and residual band), as its query parameters.
    statuses: RISK_STATUSES,
    filters: async (ctx, viewer) => {
      const [classes, scale] = await Promise.all([classificationOptions(ctx.db, viewer), getRiskScale(ctx.db, viewer)]);
      const bands = scale.bands.map((b) => ({ value: b.name, label: b.name }));
      return [
        { name: 'classificationId', label: 'Classification', options: classes.map((c) => ({ value: c.id, label: c.name })) },
        { name: 'inherentBand', label: 'Inherent band', options: bands },
        { name: 'residualBand', label: 'Residual band', options: bands },
      ];
    },
  }),
  erased(treatmentPlan),
];
