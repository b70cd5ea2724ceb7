import { dateRangeFilters, erased, registerReport, type ReportDeclaration } from '../../platform/reports/declarations';
import { readable } from '../../platform/record-screens/record-views';
import { riskColumns } from './pages';
import { riskCellJoins } from './register-cells';
import { riskKind } from './service';
import { streamTreatmentPlan } from './treatments-service';
import { RISK_STATUSES, TREATMENT_STATUSES, TREATMENT_TYPES, type TreatmentView } from './schema';
import { classificationOptions, getRiskScale } from './settings-service';

type Level = { value: number; name: string } | null;
const levelText = (l: Level) => (l ? `${l.value} – ${l.name}` : '');

type TreatmentRow = TreatmentView & { riskTitle: string };

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
  // Sorted by risk title and due date in the statement, so each page is written as it is read.
  pages: (ctx, viewer, chosen) => streamTreatmentPlan(ctx.db, viewer, chosen),
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
