/**
 * The service as its own process for the evidence benchmark, so its memory is measured apart from the client's:
 * boots on the environment's configuration, makes an evidence token for the administrator, listens on a free port
 * and prints `{"port":…,"token":"…"}` on one line.
 */
import { createApp, boot } from '../src/app';
import { readConfig } from '../src/config';
import { createToken } from '../src/modules/apiTokens/service';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';

const config = readConfig();
const ctx = await boot(config);
const admin = userActor((await loadUserRightsByEmail(ctx.db, config.ADMIN_EMAIL))!, 'api');
const { secret } = await ctx.db.transaction((tx) => createToken(tx, admin, { name: 'bench', scopes: ['evidence:read', 'evidence:create', 'evidence:update'] }));
const server = createApp(ctx).listen({ port: 0, hostname: '127.0.0.1', maxRequestBodySize: (config.EVIDENCE_MAX_FILE_MB + 1) * 1024 * 1024 });
console.log(JSON.stringify({ port: server.server!.port, token: secret }));
