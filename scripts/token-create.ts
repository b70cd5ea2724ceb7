/**
 * Creates an API token for a user from the command line, under the same rules as the settings page:
 *   bun run token:create -- --email <user email> --name <name> --scopes <scope,scope,...> [--expires YYYY-MM-DD]
 * The secret is printed alone on the last line of output (so `| tail -n 1` captures it) and never again.
 */
import { parseArgs } from 'node:util';
import { DataDirInUseError } from '../db/data-dir-lock';
import { ConfigError, readConfig } from '../src/config';
import { createToken, lastValidDay } from '../src/modules/apiTokens/service';
import { loadUserRightsByEmail, userActor } from '../src/modules/people/rights';
import { boot } from '../src/app';
import { AppError } from '../src/platform/core/errors';
import { isPermission } from '../src/platform/permissions/permissions';

const USAGE = 'Usage: bun run token:create -- --email <user email> --name <name> --scopes <scope,scope,...> [--expires YYYY-MM-DD]';

/** A refusal the operator can act on: printed as is, no stack trace. */
class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}

function parse(argv: string[]) {
  // `bun run token:create -- ...` may hand the separator through; everything after it is ours.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      options: { email: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, expires: { type: 'string' }, help: { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new CliError(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`, 2);
  }
  if (values.help) throw new CliError(USAGE, 0);
  const missing = ['email', 'name', 'scopes'].filter((key) => typeof values[key] !== 'string' || !(values[key] as string).trim());
  if (missing.length) throw new CliError(`Missing ${missing.map((m) => `--${m}`).join(', ')}\n${USAGE}`, 2);
  const scopes = [...new Set((values.scopes as string).split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = scopes.filter((s) => !isPermission(s));
  if (scopes.length === 0) throw new CliError('--scopes needs at least one scope, for example risks:read', 2);
  if (unknown.length) throw new CliError(`Unknown scope ${unknown.join(', ')}. Scopes look like <module>:<right>, for example risks:read.`, 2);
  const expires = typeof values.expires === 'string' ? values.expires.trim() : '';
  if (expires && !/^\d{4}-\d{2}-\d{2}$/.test(expires)) throw new CliError(`--expires must be a date written YYYY-MM-DD, not "${expires}"`, 2);
  return { email: (values.email as string).trim(), name: values.name as string, scopes: scopes.filter(isPermission), expires };
}

const OPTION_OF_FIELD: Record<string, string> = { name: '--name', scopes: '--scopes', expiresAt: '--expires' };

function describeRefusal(error: AppError, email: string): string {
  if (error.code === 'INVALID') {
    const lines = error.problems.map((p) => `  ${OPTION_OF_FIELD[p.field] ?? p.field}: ${p.message}`);
    return `Refused:\n${lines.join('\n') || `  ${error.message}`}`;
  }
  if (error.code === 'FORBIDDEN') return `Refused: ${email} may not create API tokens (${error.deniedReason ?? 'needs apiTokens:create'})`;
  return `Refused: ${error.message}`;
}

async function main(argv: string[]): Promise<number> {
  const input = parse(argv);
  const ctx = await boot(readConfig());
  try {
    if (ctx.generatedAdminPassword) {
      console.log(`First administrator created: ${ctx.config.ADMIN_EMAIL}; password (shown once): ${ctx.generatedAdminPassword}`);
    }
    const user = await loadUserRightsByEmail(ctx.db, input.email);
    if (!user) throw new CliError(`No user with email ${input.email}`);
    if (!user.active) throw new CliError(`User ${input.email} is deactivated; a token made for them would not work`);
    const actor = userActor(user, 'cli');
    const created = await ctx.db
      .transaction((tx) => createToken(tx, actor, { name: input.name, scopes: input.scopes, expiresAt: input.expires || null }))
      .catch((error: unknown) => {
        throw error instanceof AppError ? new CliError(describeRefusal(error, input.email)) : error;
      });
    const sent = ctx.mailer.configured ? await ctx.mailer.deliverOutbox().catch(() => 0) : 0;
    const lastDay = lastValidDay(created.expiresAt);
    console.log(`Created API token "${input.name.trim()}" (${created.id}) acting as ${user.email}`);
    console.log(`Scopes: ${input.scopes.join(', ')}`);
    console.log(`Expires: ${lastDay ? `${lastDay} (works through that day, UTC)` : 'never'}`);
    console.log(ctx.mailer.configured && sent > 0
      ? 'Security alert emailed to every administrator.'
      : 'Security alert queued for every administrator (it stays in the outbox until SMTP delivers it).');
    console.log('Secret (shown once; store it now):');
    console.log(created.secret);
    return 0;
  } finally {
    await ctx.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof CliError) {
      (error.exitCode === 0 ? console.log : console.error)(error.message);
      process.exit(error.exitCode);
    }
    if (error instanceof DataDirInUseError) {
      console.error(`The database is in use: ${error.message}`);
      process.exit(2);
    }
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(`token:create failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
