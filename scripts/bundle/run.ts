import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { Instance, LoaderFailure } from './api';
import { applyPlan } from './apply';
import { buildPlan, KIND_LABEL, type KindName } from './plan';
import { readSnapshot } from './read';
import { describeBundle, renderText, summarize } from './report';
import type { Bundle } from './schema';
import { MAX_BUNDLE_BYTES } from './schema';
import { missingScopes, missingScopesMessage, requiredScopes } from './scopes';
import { BundleFileError, problemLines, readBundleFile, validateBundle, type Problem } from './validate';

export const HELP = `Bundle loader: loads a grc-bundle file into a GRC service instance through its REST API.

Usage:
  npm run load -- <bundle.json> --url <base_url> [--apply] [--token-file <path>] [--ca-file <path>] [--diff] [--json]
  bun run load -- <bundle.json> --url <base_url> [options]

Without --apply it only reads: it validates the bundle, checks the token, reads the instance and prints, per record
kind, how many records it would create, update or leave unchanged, with warnings. Nothing is written.

Options:
  --url <base_url>     The instance's address, e.g. https://grc.example.com (required).
  --apply              Write: create and update records in dependency order (risk scale, classifications,
                       package, controls, policies and their approvals, risks, treatments, mappings,
                       requirement statuses). Nothing is ever deleted and owners are never set.
  --token-file <path>  Read the API token (aat_...) from this file. Without it the environment variable
                       GRC_API_TOKEN is used. The token is never printed or logged.
  --ca-file <path>     Trust the private certificate authority in this PEM file for an https:// address.
  --diff               Also print, field by field, what each update would change (or changed, with --apply).
  --json               Print one JSON summary on standard output instead of the text report.
  --parallel <n>       Writes in flight at once (1 to 32, default 8).
  -h, --help           Show this help.

The bundle is validated first (format grc-bundle, version 1, rules 1 to 9 of the specification; at most
${(MAX_BUNDLE_BYTES / 1024 / 1024).toFixed(0)} MB); any problem stops the run before anything is read or written, listing up to 50 problems by
JSON path. A re-run of the same bundle finds every record again by the ref its title or name begins with and
writes nothing that is already so.

The token needs the scopes of the modules the bundle touches (read, create and update on risks, controls,
policies and compliance; create and update on settings; review on policies when the bundle records
signatories). A service-account token with exactly these is the recommended way: see docs/bundle-loader.md.

Exit status: 0 when everything was read (dry run) or written (--apply); 1 when the bundle is refused, the instance
cannot be reached or refuses the token, or any write failed; 2 for a usage error.`;

/** Where the loader writes, and what it reads from its surroundings: the real process, or a test's stand-in. */
export interface LoaderIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Progress lines go to standard error only when it is a terminal. */
  progressToTerminal: boolean;
  env: Record<string, string | undefined>;
  fetch?: typeof fetch;
}

class UsageError extends Error {}

interface Options {
  file: string;
  url: string;
  apply: boolean;
  tokenFile?: string;
  caFile?: string;
  diff: boolean;
  json: boolean;
  parallel: number;
}

function parseOptions(argv: string[]): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: 'string' },
        apply: { type: 'boolean', default: false },
        'token-file': { type: 'string' },
        'ca-file': { type: 'string' },
        diff: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        parallel: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message.replace(/\. To specify a positional.*$/s, ''));
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const args = positionals.filter((p) => p !== '--');
  if (args.length === 0) throw new UsageError('name the bundle file: npm run load -- <bundle.json> --url <base_url>');
  if (args.length > 1) throw new UsageError(`one bundle file at a time (got ${args.length}: ${args.join(', ')})`);
  if (!values.url) throw new UsageError('--url <base_url> is required (the instance\'s address)');
  let url: URL;
  try {
    url = new URL(values.url);
  } catch {
    throw new UsageError(`--url ${values.url} is not an address (write it as https://grc.example.com)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--url must be an http:// or https:// address (got ${url.protocol})`);
  const parallel = values.parallel === undefined ? 8 : Number(values.parallel);
  if (!Number.isInteger(parallel) || parallel < 1 || parallel > 32) throw new UsageError('--parallel must be an integer from 1 to 32');
  return {
    file: args[0], url: values.url, apply: values.apply, tokenFile: values['token-file'], caFile: values['ca-file'],
    diff: values.diff, json: values.json, parallel,
  };
}

async function readToken(options: Options, env: LoaderIO['env']): Promise<string> {
  let token: string;
  let from: string;
  if (options.tokenFile) {
    try {
      token = (await readFile(options.tokenFile, 'utf8')).trim();
    } catch (error) {
      throw new LoaderFailure(`cannot read --token-file ${options.tokenFile}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
    }
    from = `--token-file ${options.tokenFile}`;
  } else {
    token = (env.GRC_API_TOKEN ?? '').trim();
    if (!token) throw new UsageError('no API token: pass --token-file <path> or set GRC_API_TOKEN');
    from = 'GRC_API_TOKEN';
  }
  if (!/^aat_\S+$/.test(token)) throw new LoaderFailure(`${from} does not hold an API token (tokens begin with aat_ and are one word)`);
  return token;
}

async function readCa(options: Options): Promise<string | undefined> {
  if (!options.caFile) return undefined;
  let pem: string;
  try {
    pem = await readFile(options.caFile, 'utf8');
  } catch (error) {
    throw new LoaderFailure(`cannot read --ca-file ${options.caFile}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new LoaderFailure(`--ca-file ${options.caFile} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

/** A terminal line that rewrites itself: "controls 312/1,000". */
function progressLine(io: LoaderIO, quiet: boolean) {
  const on = io.progressToTerminal && !quiet;
  let shown = false;
  return {
    update(label: string, done: number, total: number) {
      if (!on) return;
      io.stderr(`\r\x1b[2K  ${label} ${done.toLocaleString('en')}/${total.toLocaleString('en')}`);
      shown = true;
    },
    line(text: string) {
      if (!on) return;
      io.stderr(`\r\x1b[2K${text}\n`);
      shown = false;
    },
    clear() {
      if (on && shown) io.stderr('\r\x1b[2K');
      shown = false;
    },
  };
}

/** The whole command; returns the exit status. */
export async function runLoader(argv: string[], io: LoaderIO): Promise<number> {
  let options: Options | 'help';
  try {
    options = parseOptions(argv);
  } catch (error) {
    io.stderr(`${(error as Error).message}\nRun with --help for the options.\n`);
    return 2;
  }
  if (options === 'help') {
    io.stdout(`${HELP}\n`);
    return 0;
  }
  const opts = options;
  const fail = (message: string, problems?: Problem[]) => {
    if (opts.json) io.stdout(`${JSON.stringify({ ok: false, error: message, ...(problems ? { problems } : {}) })}\n`);
    io.stderr(`${message}\n${problems ? `${problemLines(problems).join('\n')}\n` : ''}`);
    return 1;
  };

  try {
    // 1. The bundle, before anything else: any problem stops the run before a read or write.
    const value = await readBundleFile(opts.file);
    const problems = validateBundle(value);
    if (problems.length) {
      return fail(`${basename(opts.file)}: ${problems.length} ${problems.length === 1 ? 'problem' : 'problems'}; nothing was read or written:`, problems);
    }
    const bundle = value as Bundle;
    const token = await readToken(opts, io.env);
    const ca = await readCa(opts);
    const instance = new Instance({ url: opts.url, token, ca, fetch: io.fetch });
    const progress = progressLine(io, opts.json);
    if (!opts.json) io.stderr(`${basename(opts.file)}: ${describeBundle(bundle)}. Reading ${instance.url}…\n`);

    // 2. The instance answers, and the token holds the scopes the load needs.
    const started = performance.now();
    await instance.checkHealth();
    const needed = requiredScopes(bundle);
    const missing = await missingScopes(instance, needed);
    const warnings: string[] = [];
    const missingReads = missing.filter((s) => s.endsWith(':read'));
    if (missing.length && (opts.apply || missingReads.length)) return fail(missingScopesMessage(missing));
    if (missing.length) warnings.push(`--apply would stop: ${missingScopesMessage(missing)}`);

    // 3. Read what the instance holds, and plan; rules the instance decides stop the run here.
    const snapshot = await readSnapshot(instance, bundle, (what, done, total) => progress.update(`reading ${what}`, done, total));
    progress.clear();
    const plan = buildPlan(bundle, snapshot, instance);
    if (plan.problems.length) {
      const n = plan.problems.length;
      return fail(`${basename(opts.file)}: ${n} ${n === 1 ? 'problem' : 'problems'} with the instance at ${instance.url}; nothing was written:`, plan.problems);
    }
    const readRequests = instance.requests;
    const readSeconds = (performance.now() - started) / 1000;

    // 4. Write (with --apply), kind by kind.
    let writeSeconds = 0;
    let byKind: Partial<Record<KindName, number>> = {};
    if (opts.apply) {
      const writeStarted = performance.now();
      byKind = await applyPlan(plan, instance, {
        parallel: opts.parallel,
        progress: (kind, done, total) => {
          if (done === total) progress.line(`  ${KIND_LABEL[kind]}: ${total.toLocaleString('en')} written`);
          else progress.update(KIND_LABEL[kind], done, total);
        },
      });
      progress.clear();
      writeSeconds = (performance.now() - writeStarted) / 1000;
    }
    const summary = summarize(plan, {
      mode: opts.apply ? 'apply' : 'dry-run', bundle: opts.file, url: instance.url, diff: opts.diff,
      warnings: [...warnings, ...plan.warnings],
      requests: { read: readRequests, write: instance.requests - readRequests },
      seconds: { read: readSeconds, write: writeSeconds, ...(opts.apply ? { writeByKind: byKind } : {}) },
    });
    io.stdout(`${opts.json ? JSON.stringify(summary) : renderText(summary)}\n`);
    return summary.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof BundleFileError || error instanceof LoaderFailure) return fail(error.message);
    if (error instanceof UsageError) {
      io.stderr(`${error.message}\nRun with --help for the options.\n`);
      return 2;
    }
    throw error;
  }
}
