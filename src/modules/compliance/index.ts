import { eq, sql } from 'drizzle-orm';
import { complianceAnalyses, complianceItems } from '../../../db/schema';
import { defineModule } from '../../platform/modules/module';
import { analysesApi } from './analyses-api';
import { analysesPages } from './analyses-pages';
import { packagesApi } from './packages-api';
import { compliancePackagePages } from './packages-pages';
import { poamApi } from './poam-api';
import { poamPages } from './poam-pages';
import { AnalysisListQuery } from './schema';
import { listAnalyses } from './analyses-service';

/** Compliance: packages (frameworks) and their requirements, analyses with mappings, and the POA&M register. */
export const manifest = defineModule({
  name: 'compliance',
  // Requirements: found by their item's code and name (as indexed), read through their analysis's owner.
  searchSources: [{
    kind: 'requirement', label: 'Requirements', module: 'compliance', from: complianceAnalyses,
    join: { table: complianceItems, on: eq(complianceItems.id, complianceAnalyses.itemId) }, id: complianceAnalyses.id,
    title: sql`(${complianceItems.code} || ' ' || ${complianceItems.name})`, body: sql`${complianceItems.description}`,
    vector: sql`${complianceItems}.search_vector`,
    ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId, href: (id) => `/compliance/analyses/${id}`,
  }],
  permissions: 'compliance',
  plugins: (ctx) => [analysesApi(ctx), analysesPages(ctx), poamApi(ctx), poamPages(ctx), packagesApi(ctx), compliancePackagePages(ctx)],
  nav: [
    { group: 'Compliance', key: 'compliance', href: '/compliance/packages', label: 'Packages', needs: 'compliance:read' },
    { group: 'Compliance', key: 'poam', href: '/compliance/poam', label: 'POA&M', needs: 'compliance:read' },
  ],
  countedTables: ['compliance_packages'],
  assistantTools: [{
    name: 'list_compliance', title: 'List requirements and their status', readOnly: true, input: AnalysisListQuery,
    description: 'Requirements (analyses) of compliance packages you may read with their assessed status, paged; the filters of GET /api/v1/compliance/analyses (packageId, status, q, sort).',
    run: (ctx, actor, args) => listAnalyses(ctx.db, actor, args as AnalysisListQuery),
  }],
});
