import { Elysia, type AnyElysia } from 'elysia';
import { httpPlatform } from './platform/http/http';
import { strictQuery } from './platform/http/strict-input';
import { refusalGuard } from './platform/http/refusals';
import { securityHeaders } from './platform/http/security-headers';
import { apiDocs } from './platform/http/api-docs';
import { screenAuth } from './platform/http/screen-auth';
import { staticFiles } from './platform/http/static-files';
import { screenLimits } from './platform/http/screen-limits';
import type { AppContext } from './platform/http/context';
import { csvImports } from './platform/csv/routes';
import { installModules } from './platform/modules/module';
import { uploadLimits } from './platform/http/installed';
import { openApiRoute } from './platform/http/openapi';
import { platformModule } from './platform/modules/platform-module';
import { notificationsModule } from './platform/modules/notifications-module';
import { dashboardModule } from './platform/modules/dashboard-module';
import { reportsModule } from './platform/modules/reports-module';
import { brandingModule } from './platform/modules/branding-module';
import { MODULES } from './modules';
import { linkedRecordsPages } from './platform/records/linked-records';
import { linkedRecordsExport } from './platform/record-screens/linked-records-export';

/** The platform's own screens and every module (src/modules/index.ts). Installed on import: boot() needs the people module. */
export const SERVICE_MODULES = [dashboardModule, reportsModule, platformModule, notificationsModule, brandingModule, ...MODULES];
installModules(SERVICE_MODULES);

/**
 * Every module's plugins (src/modules/index.ts), composed in a loop: chaining this many plugins in one expression
 * exceeds TypeScript's instantiation depth, and the composed app's route types are not needed by anyone.
 */
function modulePlugins(ctx: AppContext): AnyElysia[] {
  // CSV imports before the module screens: /risks/import must not be taken for the record /risks/:id.
  return [csvImports(ctx, SERVICE_MODULES.flatMap((m) => m.imports ?? [])), ...SERVICE_MODULES.flatMap((m) => m.plugins(ctx))];
}

/** Composes platform plugins and module plugins. Tests import this; only server.ts listens. */
export function createApp(ctx: AppContext): Elysia {
  // normalize off: a body or query field the schema does not name is refused (400 "x: Unexpected property") instead
  // of silently dropped, and responses are checked against their exact schemas (envelopes.ts `exactly`).
  const app = new Elysia({ normalize: false })
    .use(securityHeaders(ctx.config))
    .use(httpPlatform(ctx, (): readonly { method: string; path: string }[] => app.routes))
    .use(strictQuery())
    .use(refusalGuard(ctx))
    .use(screenLimits(uploadLimits(ctx.config)))
    .use(screenAuth(ctx))
    .use(staticFiles())
    .use(apiDocs())
    .use(openApiRoute((): AnyElysia => app))
    .use(linkedRecordsPages(ctx))
    .use(linkedRecordsExport(ctx));
  for (const plugin of modulePlugins(ctx)) app.use(plugin);
  return app as unknown as Elysia;
}

export type App = ReturnType<typeof createApp>;

/** Boot from here (not from the platform directly) so the modules are installed first: boot creates the first administrator through the people module. */
export { boot } from './platform/modules/bootstrap';
