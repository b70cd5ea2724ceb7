import type { DbOrTx } from '../../../db/client';
import type { Actor, Permission } from '../../platform/permissions/permissions';
import {
  chosenOf, dateRangeFilters, erased, inDateRange, ownerGroupFilter, splitFilters, yesNoFilter, type ReportDeclaration, type ReportFilters,
} from '../../platform/reports/declarations';
import { EXCEPTION_STATUSES, type ExceptionListQuery } from './schema';
import { readable } from '../../platform/record-screens/record-views';
import { EXCEPTION_PARENTS, type ExceptionParent } from './parents';
import type { ExceptionView } from './schema';
import { listExceptions } from './service';

/**
 * Every exception of one kind of parent the actor may read, as GET /api/v1/<parent>-exceptions pages them, by expiry:
 * status, expired and owner group are the list's own query; the expiry range is tested on each page.
 */
async function* exceptionRows(db: DbOrTx, parent: ExceptionParent, actor: Actor, chosen: ReportFilters): AsyncGenerator<ExceptionView[]> {
  const { params, rest } = splitFilters(chosen, ['expiresAt']);
  const query: ExceptionListQuery = {
    sort: 'expiresAt',
    status: chosenOf(EXCEPTION_STATUSES, params.status),
    expired: chosenOf(['true', 'false'] as const, params.expired),
    ownerGroupId: params.ownerGroupId,
  };
  for (let page = 1; ; page++) {
    const chunk = await listExceptions(db, parent, actor, { ...query, page, pageSize: 200 });
    const kept = chunk.rows.filter((e) => inDateRange(rest, 'expiresAt', e.expiresAt));
    if (kept.length) yield kept;
    if (chunk.rows.length < 200 || page * 200 >= chunk.total) return;
  }
}

/** The register's columns, in its report and in the list's CSV export. */
export const exceptionColumns = (parent: ExceptionParent): ReportDeclaration<ExceptionView>['columns'] => [
    { header: parent.label, value: (e) => e.parent.title },
    { header: 'Exception', value: (e) => e.title },
    { header: 'Status', value: (e) => readable(e.status) },
    { header: 'Expires', value: (e) => e.expiresAt },
    { header: 'Expired', value: (e) => (e.expired ? 'Yes' : 'No') },
    { header: 'Approver', value: (e) => e.approver?.name },
    { header: 'Decided', value: (e) => e.decidedAt?.slice(0, 10) },
    { header: 'Decision note', value: (e) => e.decisionNote },
    { header: 'Owner', value: (e) => e.owner?.name ?? e.ownerGroup?.name },
];

/** One exceptions register per kind of parent (risks, policies, requirements), each to readers of the parent's module. */
const registerOf = (parent: ExceptionParent): ReportDeclaration<ExceptionView> => ({
  key: `${parent.type}Exceptions`, title: `${parent.label} exceptions register`, needs: `${parent.module}:read` as Permission, listHref: parent.path,
  description: `Every exception of a ${parent.label.toLowerCase()} you may read: its status, expiry, approver and decision.`,
  columns: exceptionColumns(parent),
  // The exceptions list's filters (status, expired, owner group) and the expiry as a range.
  filters: async (ctx) => [
    { name: 'status', label: 'Status', options: EXCEPTION_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    yesNoFilter('expired', 'Expired'),
    await ownerGroupFilter(ctx.db),
    ...dateRangeFilters('expiresAt', 'Expires'),
  ],
  pages: (ctx, viewer, chosen) => exceptionRows(ctx.db, parent, viewer, chosen),
});

export const exceptionReports = EXCEPTION_PARENTS.map((p) => erased(registerOf(p)));
