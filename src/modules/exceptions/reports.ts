import type { DbOrTx } from '../../../db/client';
import type { Actor, Permission } from '../../platform/permissions/permissions';
import { erased, REPORT_LIMIT, type ReportDeclaration } from '../../platform/reports/declarations';
import { readable } from '../../platform/record-screens/record-views';
import { EXCEPTION_PARENTS, type ExceptionParent } from './parents';
import type { ExceptionView } from './schema';
import { listExceptions } from './service';

/** Every exception of one kind of parent the actor may read, as GET /api/v1/<parent>-exceptions pages them, by expiry. */
async function exceptionRows(db: DbOrTx, parent: ExceptionParent, actor: Actor) {
  const rows: ExceptionView[] = [];
  let total = 0;
  for (let page = 1; rows.length < REPORT_LIMIT; page++) {
    const chunk = await listExceptions(db, parent, actor, { page, pageSize: 200, sort: 'expiresAt' });
    rows.push(...chunk.rows);
    total = chunk.total;
    if (chunk.rows.length < 200 || page * 200 >= chunk.total) break;
  }
  return { rows: rows.slice(0, REPORT_LIMIT), truncated: total > REPORT_LIMIT };
}

/** One exceptions register per kind of parent (risks, policies, requirements), each to readers of the parent's module. */
const registerOf = (parent: ExceptionParent): ReportDeclaration<ExceptionView> => ({
  key: `${parent.type}Exceptions`, title: `${parent.label} exceptions register`, needs: `${parent.module}:read` as Permission, listHref: parent.path,
  description: `Every exception of a ${parent.label.toLowerCase()} you may read: its status, expiry, approver and decision.`,
  columns: [
    { header: parent.label, value: (e) => e.parent.title },
    { header: 'Exception', value: (e) => e.title },
    { header: 'Status', value: (e) => readable(e.status) },
    { header: 'Expires', value: (e) => e.expiresAt },
    { header: 'Expired', value: (e) => (e.expired ? 'Yes' : 'No') },
    { header: 'Approver', value: (e) => e.approver?.name },
    { header: 'Decided', value: (e) => e.decidedAt?.slice(0, 10) },
    { header: 'Decision note', value: (e) => e.decisionNote },
    { header: 'Owner', value: (e) => e.owner?.name ?? e.ownerGroup?.name },
  ],
  rows: (ctx, viewer) => exceptionRows(ctx.db, parent, viewer),
});

export const exceptionReports = EXCEPTION_PARENTS.map((p) => erased(registerOf(p)));
