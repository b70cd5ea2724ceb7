import { erased, ownerGroupFilter, type ReportDeclaration } from '../../platform/reports/declarations';
import { THIRD_PARTY_STATUSES, THIRD_PARTY_TYPES } from './schema';
import { readable } from '../../platform/record-screens/record-views';
import { thirdPartiesWithRisks, type ThirdPartyWithRisks } from './service';

const withRisks: ReportDeclaration<ThirdPartyWithRisks> = {
  key: 'thirdParties', title: 'Third parties and their risks', needs: 'thirdParties:read', listHref: '/third-parties',
  description: 'Every third party you may read with the risks linked to it; a linked risk you may not read is shown as "(restricted)".',
  columns: [
    { header: 'Name', value: (r) => r.party.name },
    { header: 'Type', value: (r) => readable(r.party.type) },
    { header: 'Status', value: (r) => readable(r.party.status) },
    { header: 'Website', value: (r) => r.party.website },
    { header: 'Owner', value: (r) => r.party.owner?.name ?? r.party.ownerGroup?.name },
    { header: 'Linked risks', value: (r) => r.risks.length },
    { header: 'Risks', value: (r) => r.risks.join('; ') },
  ],
  // The Third parties list's filters, as its query.
  filters: async (ctx) => [
    { name: 'status', label: 'Status', options: THIRD_PARTY_STATUSES.map((s) => ({ value: s, label: readable(s) })) },
    { name: 'type', label: 'Type', options: THIRD_PARTY_TYPES.map((s) => ({ value: s, label: readable(s) })) },
    await ownerGroupFilter(ctx.db),
  ],
  pages: (ctx, viewer, chosen) => thirdPartiesWithRisks(ctx.db, viewer, chosen),
};

export const thirdPartyReports = [erased(withRisks)];
