import { and, inArray, sql } from 'drizzle-orm';
import { exceptions } from '../../../db/schema';
import type { DueSoonKind } from '../../platform/dashboard/declarations';
import { todayIso } from '../../platform/core/dates';
import { levelOf } from '../../platform/permissions/permissions';
import { EXCEPTION_PARENTS, parentColumn } from './parents';
import { exceptionFilters } from './service';

/**
 * Exceptions coming to their expiry date (requested or approved ones; an expired one still standing counts as overdue),
 * of each parent kind, read as the registers read them: the exception's own owners and its parent's.
 */
export const exceptionDueSoon: DueSoonKind[] = EXCEPTION_PARENTS.map((parent) => ({
  key: `${parent.type}ExceptionsExpiring`,
  label: parent.type === 'compliance' ? 'Requirement exceptions expiring' : `${parent.label} exceptions expiring`,
  needs: `${parent.module}:read` as const,
  // A requirement's exceptions are shown on its analysis.
  href: parent.type === 'compliance' ? '/compliance/packages' : parent.path,
  itemHref: (id: string) => (parent.type === 'compliance' ? `/compliance/analyses/${id}` : `${parent.path}/${id}`),
  query: (actor, until) => {
    // At level all nothing of the parent is read, and every exception has its parent (the check on parent_type and the
    // foreign key): joining it would only scan the parents (100,000 risks) to find them. At level own the parent's owners count.
    const parents = levelOf(actor, `${parent.module}:read` as const) === 'all' ? sql`` : sql`join ${parent.table} on ${parent.idColumn} = ${parentColumn(parent)}`;
    return sql`select ${parent.type === 'compliance' ? exceptions.complianceAnalysisId : exceptions.id}::text as record_id,
        ${exceptions.title} as title, ${exceptions.expiresAt} as due_on
      from ${exceptions} ${parents}
      where ${and(exceptionFilters(parent, actor, {}, todayIso()), inArray(exceptions.status, ['requested', 'approved']))}
        and ${exceptions.expiresAt} <= ${until}`;
  },
}));
