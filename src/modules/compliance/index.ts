import { eq, sql } from 'drizzle-orm';
import { complianceAnalyses, complianceItems, compliancePackages, exceptions } from '../../../db/schema';
import { defineModule, type ModuleManifest } from '../../platform/modules/module';
import { permissionArea } from '../../platform/permissions/permissions';
import { defineTool } from '../../platform/modules/tools';
import { analysesApi } from './analyses-api';
import { analysesPages } from './analyses-pages';
import { crosswalkPages } from './crosswalk-pages';
import { packagesApi } from './packages-api';
import { OSCAL_SCREEN_LIMIT, OSCAL_TOO_LARGE_MESSAGE, compliancePackagePages } from './packages-pages';
import { poamApi } from './poam-api';
import { poamPages } from './poam-pages';
import { complianceReports } from './reports';
import { AnalysisListQuery } from './schema';
import { getAnalysis, listAnalyses, MAPPING_KINDS } from './analyses-service';
import { ANALYSIS_RECORD_TYPE, ITEM_RECORD_TYPE } from './schema';
import { packageKind } from './packages-service';
import { registerType } from '../../platform/records/record-types';
import { complianceWidgets } from './dashboard-widgets';
import { compliancePosture } from './posture';
import { complianceSections } from './linked-sections';

/** Compliance: packages (frameworks) and their requirements, analyses with mappings, and the POA&M register. */
export const manifest: ModuleManifest<'compliance'> = defineModule({
  name: 'compliance',
  apiTags: {
    Compliance: "Compliance packages: a framework's requirement tree, imported as JSON, CSV or an OSCAL catalog and exported as JSON or an OSCAL catalog (docs/compliance-packages.md).",
    'Compliance analyses': 'One analysis per requirement: its status and the controls, policies, risks and projects mapped to it; package scores (docs/compliance-analyses.md).',
    'Compliance POA&M': 'The plan of action and milestones: open weaknesses with their remediation, read only.',
  },
  permissions: permissionArea('compliance', { review: true }),
  plugins: (ctx) => [analysesApi(ctx), crosswalkPages(ctx), analysesPages(ctx), poamApi(ctx), poamPages(ctx), packagesApi(ctx), compliancePackagePages(ctx)],
  nav: [
    { group: 'Compliance', key: 'compliance', href: '/compliance/packages', label: 'Packages', needs: 'compliance:read' },
    { group: 'Compliance', key: 'poam', href: '/compliance/poam', label: 'POA&M', needs: 'compliance:read' },
  ],
  countedTables: ['compliance_packages'],
  // The import dialog's preview reads OSCAL catalogs up to 16 MB (their own check; other package files stay at 1 MB),
  // plus room for the multipart envelope and the dialog's fields.
  uploads: () => [{ path: /^\/compliance\/packages\/import\/preview$/, bytes: OSCAL_SCREEN_LIMIT + 256 * 1024, message: OSCAL_TOO_LARGE_MESSAGE }],
  // A requirement is its analysis (the id evidence links and mappings name): titled by its item's code and name (as
  // indexed for search), owned through the analysis.
  recordTypes: [registerType(packageKind, { kind: 'compliancePackage', plural: 'Compliance packages', href: (id) => `/compliance/packages/${id}` }), {
    kind: 'requirement', label: 'Requirement', plural: 'Requirements', module: 'compliance', historyType: ANALYSIS_RECORD_TYPE,
    table: complianceAnalyses, id: complianceAnalyses.id, title: sql<string>`(${complianceItems.code} || ' ' || ${complianceItems.name})`,
    ownerId: complianceAnalyses.ownerId, ownerGroupId: complianceAnalyses.ownerGroupId,
    join: { table: complianceItems, on: eq(complianceItems.id, complianceAnalyses.itemId) },
    href: (id) => `/compliance/analyses/${id}`, evidence: true,
    links: { packageId: 'compliancePackage', itemId: ITEM_RECORD_TYPE },
    // A requirement's History shows its exceptions (its mappings are changes of the requirement itself).
    historyParts: [{ historyType: 'complianceException', table: exceptions, id: exceptions.id, parentId: exceptions.complianceAnalysisId }],
    // Its mappings, made from the requirement's side, show in the mapped control's, policy's, risk's or project's History too.
    historyMentions: Object.values(MAPPING_KINDS).map((m) => ({ kind: m.link.recordType, field: m.recordKey, actions: [`${m.action}.link`, `${m.action}.unlink`] })),
    search: { body: sql<string>`${complianceItems.description}`, vector: sql`${complianceItems}.search_vector` },
    read: (ctx, actor, id) => getAnalysis(ctx.db, actor, id),
  }, {
    // A package's item (requirement, additional item or heading), as History names it: by code and name, read as its
    // package is; its screen is its requirement's page (a heading's, its place in the package's tree).
    kind: ITEM_RECORD_TYPE, label: 'Package item', plural: 'Package items', module: 'compliance',
    table: complianceItems, id: complianceItems.id, title: sql<string>`(${complianceItems.code} || ' ' || ${complianceItems.name})`,
    ownerId: compliancePackages.ownerId, ownerGroupId: compliancePackages.ownerGroupId,
    join: { table: compliancePackages, on: eq(compliancePackages.id, complianceItems.packageId) },
    href: (id) => `/compliance/items/${id}`,
    links: { packageId: 'compliancePackage' },
  }],
  assistantTools: () => [defineTool({
    name: 'list_compliance', title: 'List requirements and their status', readOnly: true, input: AnalysisListQuery, needs: { allOf: ['compliance:read'] },
    description: 'Requirements (analyses) of compliance packages you may read with their assessed status, paged; the filters of GET /api/v1/compliance/analyses (packageId, status, q, sort).',
    run: (ctx, actor, args) => listAnalyses(ctx.db, actor, args),
  })],
  dashboard: complianceWidgets,
  posture: compliancePosture,
  // What links here: the requirements a control, policy, risk or project is mapped to, on its page.
  sections: complianceSections,
  reports: complianceReports,
});
