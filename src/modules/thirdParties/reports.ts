import { erased, type ReportDeclaration } from '../../platform/reports/declarations';
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
  rows: (ctx, viewer) => thirdPartiesWithRisks(ctx.db, viewer),
};

export const thirdPartyReports = [erased(withRisks)];
