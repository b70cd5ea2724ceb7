import { chosenOf, dateRangeFilters, erased, ownerGroupFilter, type ReportDeclaration } from '../../platform/reports/declarations';
import { readable } from '../../platform/record-screens/record-views';
import { DECISIONS, PROGRAM_STATUSES } from './schema';
import { readablePrograms, reviewResultPages, type ReviewResult } from './service';

/**
 * Account review results: every account reviewed in the programs the viewer may read, with its decision, who decided
 * and when. The items name people (the account's owner, the reviewer), never records of another module, so nothing in
 * it is "(restricted)": a program the viewer may not read is left out whole.
 */
const results: ReportDeclaration<ReviewResult> = {
  key: 'accountReviewResults', title: 'Account review results', needs: 'accountReviews:read', listHref: '/account-reviews',
  description: 'Every account reviewed in the review programs you may read: the program, system and account, its owner, the decision (keep, revoke, modify or pending), who decided and when.',
  columns: [
    { header: 'Program', value: (r) => r.program },
    { header: 'Program status', value: (r) => readable(r.programStatus) },
    { header: 'Program due', value: (r) => r.programDueOn },
    { header: 'System', value: (r) => r.system },
    { header: 'Account', value: (r) => r.account },
    { header: 'Account owner', value: (r) => r.owner },
    { header: 'Decision', value: (r) => readable(r.decision ?? 'pending') },
    { header: 'Reviewer', value: (r) => r.reviewer },
    { header: 'Reviewed on', value: (r) => r.reviewedAt?.slice(0, 10) },
    { header: 'Notes', value: (r) => r.notes },
  ],
  filters: async (ctx, viewer) => [
    { name: 'programId', label: 'Program', options: (await readablePrograms(ctx.db, viewer)).map((p) => ({ value: p.id, label: p.name })) },
    { name: 'programStatus', label: 'Program status', options: PROGRAM_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    { name: 'decision', label: 'Decision', options: [...DECISIONS, 'pending' as const].map((d) => ({ value: d, label: readable(d) })) },
    await ownerGroupFilter(ctx.db),
    ...dateRangeFilters('reviewed', 'Reviewed'),
  ],
  pages: (ctx, viewer, chosen) => reviewResultPages(ctx.db, viewer, {
    programId: chosen.programId,
    programStatus: chosenOf(PROGRAM_STATUSES, chosen.programStatus),
    decision: chosenOf([...DECISIONS, 'pending'] as const, chosen.decision),
    ownerGroupId: chosen.ownerGroupId,
    reviewedFrom: chosen.reviewedFrom,
    reviewedTo: chosen.reviewedTo,
  }),
};

export const accountReviewReports = [erased(results)];
