import { Elysia, type AnyElysia } from 'elysia';
import { sql } from 'drizzle-orm';
import { httpPlatform } from './platform/http';
import { strictQuery } from './platform/strict-input';
import { refusalGuard } from './platform/refusals';
import { securityHeaders } from './platform/security-headers';
import { apiDocs } from './platform/api-docs';
import { screenAuth } from './platform/screen-auth';
import { staticFiles } from './platform/static-files';
import { peoplePages } from './modules/people/pages';
import { scimApi } from './modules/people/scim/api';
import { provisioningPages } from './modules/people/scim/pages';
import { apiTokensPages } from './modules/apiTokens/pages';
import { adminPages } from './platform/admin-pages';
import { screenLimits } from './platform/screen-limits';
import type { AppContext } from './platform/context';
import { openApiRoute } from './platform/openapi';
import { risksApi } from './modules/risks/api';
import { controlsApi } from './modules/controls/api';
import { controlPages } from './modules/controls/pages';
import { policiesModule } from './modules/policies';
import { assetsApi } from './modules/assets/api';
import { businessUnitsApi } from './modules/businessUnits/api';
import { assetPages } from './modules/assets/pages';
import { businessUnitPages } from './modules/businessUnits/pages';
import { apiTokensApi } from './modules/apiTokens/api';
import { riskSettingsApi } from './modules/risks/settings-api';
import { riskPages } from './modules/risks/pages';
import { riskTreatmentsModule } from './modules/risks/treatments-pages';
import { exceptionsModule } from './modules/exceptions';
import { labelsModule } from './modules/labels';
import { thirdPartiesApi } from './modules/thirdParties/api';
import { projectsApi } from './modules/projects/api';
import { thirdPartyPages } from './modules/thirdParties/pages';
import { projectPages } from './modules/projects/pages';
import { incidentsApi } from './modules/incidents/api';
import { auditsApi } from './modules/audits/api';
import { customFieldsModule } from './modules/customFields';
import { incidentPages } from './modules/incidents/pages';
import { auditPages } from './modules/audits/pages';
import { csvImports } from './platform/csv/routes';
import { riskImport } from './modules/risks/import';
import { controlImport } from './modules/controls/import';
import { assetImport } from './modules/assets/import';
import { policyImport } from './modules/policies/import';
import { thirdPartyImport } from './modules/thirdParties/import';
import { incidentImport } from './modules/incidents/import';
import { projectImport } from './modules/projects/import';
import { findingImport } from './modules/audits/import';
import { exceptionImports } from './modules/exceptions/import';
import { analysesApi } from './modules/compliance/analyses-api';
import { analysesPages } from './modules/compliance/analyses-pages';
import { poamApi } from './modules/compliance/poam-api';
import { poamPages } from './modules/compliance/poam-pages';
import { accountReviewsModule } from './modules/accountReviews';
import { packagesApi } from './modules/compliance/packages-api';
import { compliancePackagePages } from './modules/compliance/packages-pages';

const healthRoutes = (ctx: AppContext) =>
  new Elysia({ name: 'platform:health' }).get('/api/health', async ({ set }) => {
    try {
      await ctx.db.execute(sql`select 1`);
      return { status: 'ok' };
    } catch {
      set.status = 503;
      return { error: 'database unavailable' };
    }
  }, { detail: { tags: ['Platform'], summary: 'Health check (no token)' } });

/**
 * Every module's plugins, in registration order. Composed in a loop: chaining this many plugins in one expression
 * exceeds TypeScript's instantiation depth, and the composed app's route types are not needed by anyone.
 */
const modulePlugins = (ctx: AppContext): AnyElysia[] => [
  healthRoutes(ctx),
  // CSV imports before the module screens: /risks/import must not be taken for the record /risks/:id.
  csvImports(ctx, [riskImport, controlImport, assetImport, policyImport, thirdPartyImport, incidentImport, projectImport, findingImport, ...exceptionImports]),
  peoplePages(ctx),
  scimApi(ctx),
  provisioningPages(ctx),
  apiTokensPages(ctx),
  adminPages(ctx),
  risksApi(ctx),
  controlsApi(ctx),
  controlPages(ctx),
  policiesModule(ctx),
  assetsApi(ctx),
  businessUnitsApi(ctx),
  assetPages(ctx),
  businessUnitPages(ctx),
  apiTokensApi(ctx),
  riskSettingsApi(ctx),
  riskTreatmentsModule(ctx),
  exceptionsModule(ctx),
  labelsModule(ctx),
  incidentsApi(ctx),
  auditsApi(ctx),
  customFieldsModule(ctx),
  incidentPages(ctx),
  auditPages(ctx),
  thirdPartiesApi(ctx),
  projectsApi(ctx),
  thirdPartyPages(ctx),
  projectPages(ctx),
  riskPages(ctx),
  analysesApi(ctx),
  analysesPages(ctx),
  poamApi(ctx),
  poamPages(ctx),
  packagesApi(ctx),
  compliancePackagePages(ctx),
  accountReviewsModule(ctx),
];

/** Composes platform plugins and module plugins. Tests import this; only server.ts listens. */
export function createApp(ctx: AppContext): Elysia {
  // normalize off: a body or query field the schema does not name is refused (400 "x: Unexpected property") instead
  // of silently dropped, and responses are checked against their exact schemas (envelopes.ts `exactly`).
  const app = new Elysia({ normalize: false })
    .use(securityHeaders(ctx.config))
    .use(httpPlatform(ctx, (): readonly { method: string; path: string }[] => app.routes))
    .use(strictQuery())
    .use(refusalGuard(ctx))
    .use(screenLimits())
    .use(screenAuth(ctx))
    .use(staticFiles())
    .use(apiDocs())
    .use(openApiRoute((): AnyElysia => app));
  for (const plugin of modulePlugins(ctx)) app.use(plugin);
  return app as unknown as Elysia;
}

export type App = ReturnType<typeof createApp>;
