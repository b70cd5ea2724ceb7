import type { DbOrTx } from '../../../db/client';
import type { Actor } from '../../platform/permissions/permissions';
import {
  chosenOf, dateRangeFilters, erased, inDateRange, inPages, ownerGroupFilter, yesNoFilter, type ReportDeclaration, type ReportFilters,
} from '../../platform/reports/declarations';
import { POAM_SEVERITIES, POAM_SOURCES, POAM_STATUSES, type PoamQuery } from './schema';
import { readable } from '../../platform/record-screens/record-views';
import { packageScores } from './analyses-service';
import { listPackages } from './packages-service';
import { POAM_COLUMNS, POAM_SOURCE_LABELS, poamItems } from './poam-service';
import type { PackageScore, PackageView, PoamItem } from './schema';

type PackageRow = { pkg: PackageView; score: PackageScore | undefined };

/** The packages the viewer may read, as the Packages list reads them, a page at a time with its scores in one query (as the Dashboard's). */
async function* packageRows(db: DbOrTx, viewer: Actor, chosen: ReportFilters): AsyncGenerator<PackageRow[]> {
  for (let page = 1; ; page++) {
    const chunk = await listPackages(db, viewer, { page, pageSize: 200, sort: 'name', ownerGroupId: chosen.ownerGroupId });
    const scores = await packageScores(db, viewer, chunk.rows.map((p) => p.id));
    if (chunk.rows.length) yield chunk.rows.map((pkg): PackageRow => ({ pkg, score: scores.get(pkg.id) }));
    if (chunk.rows.length < 200 || page * 200 >= chunk.total) return;
  }
}

const pct = (n: number | null | undefined) => (n === null || n === undefined ? '' : `${n}%`);

const complianceStatus: ReportDeclaration<PackageRow> = {
  key: 'complianceStatus', title: 'Compliance status by package', needs: 'compliance:read', listHref: '/compliance/packages',
  description: 'Every package you may read with its requirements counted by status and its score (not assessed counts against it); each package\'s Statement of Applicability lists its requirements.',
  columns: [
    { header: 'Package', value: (r) => r.pkg.name },
    { header: 'Standard', value: (r) => r.pkg.standard },
    { header: 'Version', value: (r) => r.pkg.version },
    { header: 'Requirements', value: (r) => r.score?.requirements.total ?? 0 },
    { header: 'Compliant', value: (r) => r.score?.requirements.compliant ?? 0 },
    { header: 'Partially compliant', value: (r) => r.score?.requirements.partially_compliant ?? 0 },
    { header: 'Non-compliant', value: (r) => r.score?.requirements.non_compliant ?? 0 },
    { header: 'Not applicable', value: (r) => r.score?.requirements.not_applicable ?? 0 },
    { header: 'Not assessed', value: (r) => r.score?.requirements.not_assessed ?? 0 },
    { header: 'Compliant (of applicable)', value: (r) => pct(r.score?.requirements.percentCompliant) },
    { header: 'Statement of Applicability', value: (r) => `/compliance/packages/${r.pkg.id}/soa` },
  ],
  filters: async (ctx) => [await ownerGroupFilter(ctx.db)],
  pages: (ctx, viewer, chosen) => packageRows(ctx.db, viewer, chosen),
};

const poam: ReportDeclaration<PoamItem> = {
  key: 'poam', title: 'Plan of action and milestones (POA&M)', needs: 'compliance:read', listHref: '/compliance/poam',
  description: 'Every open weakness you may read (requirements not compliant, open audit findings, failed control tests), overdue first.',
  // The screen's and its CSV's columns, in their words.
  columns: [...POAM_COLUMNS],
  // The POA&M list's filters (source, severity, status, overdue), as its query, and the due date as a range.
  filters: async () => [
    { name: 'source', label: 'Source', options: POAM_SOURCES.map((s) => ({ value: s, label: POAM_SOURCE_LABELS[s] })) },
    { name: 'severity', label: 'Severity', options: POAM_SEVERITIES.map((s) => ({ value: s, label: readable(s) })) },
    { name: 'status', label: 'Status', options: POAM_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    yesNoFilter('overdue', 'Overdue'),
    ...dateRangeFilters('dueDate', 'Due'),
  ],
  // The POA&M is gathered from three registers and sorted, overdue first, before its first row: read whole, given in pages.
  pages: async function* (ctx, viewer, chosen) {
    const query: Omit<PoamQuery, 'page' | 'pageSize'> = {
      source: chosenOf(POAM_SOURCES, chosen.source), severity: chosenOf(POAM_SEVERITIES, chosen.severity),
      status: chosenOf(POAM_STATUSES, chosen.status), overdue: chosenOf(['true', 'false'] as const, chosen.overdue),
    };
    const items = (await poamItems(ctx.db, viewer, query)).filter((i) => inDateRange(chosen, 'dueDate', i.dueDate));
    yield* inPages(items);
  },
};

export const complianceReports = [erased(complianceStatus), erased(poam)];
