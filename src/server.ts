import { ConfigError, readConfig } from './config';
import { DataDirInUseError } from '../db/data-dir-lock';
import { createApp } from './app';
import { boot } from './platform/modules/bootstrap';
import { log } from './platform/core/log';
import { API_BODY_LIMIT } from './platform/http/screen-limits';
import { uploadLimits } from './platform/http/installed';
import { startBackgroundSweep } from './platform/modules/sweep';

async function main() {
  const config = readConfig();
  const ctx = await boot(config);
  if (ctx.generatedAdminPassword) {
    console.log(`\nFirst administrator created: ${config.ADMIN_EMAIL}\nPassword (shown once, change it after signing in): ${ctx.generatedAdminPassword}\n`);
  }
  // Above the REST API's own limit, so a body over it gets our 413 with the error envelope rather than Bun's.
  const largestUpload = Math.max(API_BODY_LIMIT, ...uploadLimits(config).map((u) => u.bytes));
  const app = createApp(ctx).listen({ port: config.PORT, maxRequestBodySize: largestUpload + 1024 * 1024 });
  const sweep = startBackgroundSweep(ctx);
  log.info('listening', { url: `http://localhost:${app.server?.port}`, database: ctx.database.kind });
  const stop = async () => {
    sweep.stop();
    await app.stop();
    await ctx.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error) => {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
