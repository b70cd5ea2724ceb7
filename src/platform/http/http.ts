import { TransformDecodeCheckError, TransformDecodeError } from '@sinclair/typebox/value';
import { Elysia, ValidationError } from 'elysia';
import { isConnectionLoss } from '../../../db/connection-loss';
import { thrownBeforeParsing } from './api-auth';
import type { AppContext } from './context';
import { AppError } from '../core/errors';
import { log } from '../core/log';
import { systemActor, type Actor } from '../permissions/permissions';
import { clientAddress, refusalLimiter, tooManyRefusals, type RefusalOutcome } from './refusals';
import { screenViewerOf } from './screen-auth';
import { Shell } from './screen';

interface ValidationIssue {
  path?: string;
  message?: string;
  summary?: string;
  /** The schema the value failed: a list of allowed values (`stringEnum`) is named in the message. */
  schema?: { enum?: unknown };
}

/** "must be one of open, closed, archived" for a value outside a list; TypeBox's own words otherwise. */
function issueMessage(issue: ValidationIssue): string {
  const allowed = issue.schema?.enum;
  if (Array.isArray(allowed) && allowed.length) return `must be one of ${allowed.map(String).join(', ')}`;
  return (issue.message ?? issue.summary ?? 'is invalid').replace(/^Expected/, 'expected');
}

/** Turns Elysia/TypeBox validation output into "field: rule" messages, never a schema dump. */
export function describeValidation(error: ValidationError, url?: URL): { field: string; message: string }[] {
  const issues = (error.all ?? []) as ValidationIssue[];
  // Elysia checks coerced query values one by one and reports them without a path; name the parameter by its value.
  const queryField = () =>
    [...(url?.searchParams ?? [])].find(([, v]) => v === String(error.value) || (v !== '' && Number(v) === error.value))?.[0] ?? error.type;
  const seen = new Set<string>();
  const problems: { field: string; message: string }[] = [];
  for (const issue of issues) {
    const field = (issue.path ?? '').replace(/^\//, '').replaceAll('/', '.') || queryField();
    const message = issueMessage(issue);
    const key = `${field}:${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ field, message });
  }
  return problems.length ? problems.slice(0, 20) : [{ field: error.type, message: 'is invalid' }];
}

const isApiPath = (path: string) => path.startsWith('/api/');

/**
 * Every refused request lands in the Audit Log (module security, action permission.denied), outside the refused
 * transaction, bounded per client (refusals.ts): identical refusals are folded per window, and a client over its
 * limit is answered 429 instead.
 */
export async function recordDenial(ctx: AppContext, actor: Actor | null, reason: string, request: Request, client: string, tokenId?: string): Promise<RefusalOutcome> {
  const url = new URL(request.url);
  return refusalLimiter(ctx).record(client, actor ?? systemActor('api'), {
    module: 'security',
    action: 'permission.denied',
    details: { reason, method: request.method, path: url.pathname, tokenId: tokenId ?? actor?.tokenId ?? null },
  });
}

export const DATABASE_UNAVAILABLE = 'The database is not reachable at the moment; nothing of this request was saved. Try again shortly.';

export interface ErrorBody {
  status: number;
  body: { error: string; problems?: { field: string; message: string }[] };
}

/**
 * The database's own refusals of a value a caller sent (a NUL character in text, a malformed id, a number out of
 * range, a reference to a row that does not exist) are the caller's mistake: 400 or 409, never a 500.
 * Services validate first; this is the safety net for whatever slips past them.
 */
const DATABASE_REFUSALS: Record<string, ErrorBody> = {
  '22021': { status: 400, body: { error: 'text must not contain NUL characters or invalid UTF-8' } },
  '22P05': { status: 400, body: { error: 'text must not contain NUL characters' } },
  '22P02': { status: 400, body: { error: 'a value is malformed (for example an id that is not a UUID)' } },
  '22003': { status: 400, body: { error: 'a number is out of range' } },
  '22008': { status: 400, body: { error: 'a date or time is out of range' } },
  '22007': { status: 400, body: { error: 'a date or time is malformed' } },
  '23503': { status: 409, body: { error: 'the change refers to a record that does not exist, or the record is still referenced' } },
  '23505': { status: 409, body: { error: 'a record with the same unique value already exists' } },
};

function databaseRefusal(error: unknown): ErrorBody | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && DATABASE_REFUSALS[code]) return DATABASE_REFUSALS[code];
  }
  return undefined;
}

/**
 * A query value that fails a schema's decoding (a single `evidenceId=abc` where one id or a list of ids is taken: the
 * list's decoder checks what the union let through) is the caller's mistake like any validation error: 400 naming it.
 */
function decodingProblem(error: unknown, url?: URL): { field: string; message: string } | undefined {
  if (!(error instanceof TransformDecodeError) && !(error instanceof TransformDecodeCheckError)) return undefined;
  const check = error instanceof TransformDecodeCheckError ? error : error.error instanceof TransformDecodeCheckError ? error.error : undefined;
  // The decoder runs on one query value at a time, without its name: the parameter is found by the value it was given.
  const given = [error.value].flat().map(String);
  const field = [...(url?.searchParams ?? [])].find(([, value]) => given.includes(value))?.[0] ?? 'query';
  return { field, message: (check?.error.message ?? 'is invalid').replace(/^Expected/, 'expected') };
}

export function errorResponse(error: unknown, code: string | number, requestId: string, url?: URL): ErrorBody {
  if (error instanceof AppError) {
    const body: ErrorBody['body'] = { error: error.message };
    if (error.problems.length) body.problems = error.problems;
    return { status: error.status, body };
  }
  if (error instanceof ValidationError && error.type === 'response') {
    // The handler answered something its documented schema does not allow: our fault, and not the client's to read.
    log.error('response does not match its schema', { requestId, path: url?.pathname, problems: describeValidation(error).map((p) => `${p.field}: ${p.message}`) });
    return { status: 500, body: { error: 'internal' } };
  }
  if (error instanceof ValidationError) {
    const problems = describeValidation(error, url);
    return { status: 400, body: { error: problems.map((p) => `${p.field}: ${p.message}`).join('; '), problems } };
  }
  const undecodable = decodingProblem(error, url);
  if (undecodable) return { status: 400, body: { error: `${undecodable.field}: ${undecodable.message}`, problems: [undecodable] } };
  const refusedByDatabase = databaseRefusal(error);
  if (refusedByDatabase) return refusedByDatabase;
  if (isConnectionLoss(error)) {
    // Nothing of the request was kept (its transaction ended with the connection); the client may simply retry.
    const cause = (error as { cause?: unknown }).cause ?? error;
    log.error('database connection lost', { requestId, path: url?.pathname, error: cause instanceof Error ? `${(cause as { code?: string }).code ?? ''} ${cause.message}` : String(cause) });
    return { status: 503, body: { error: DATABASE_UNAVAILABLE } };
  }
  if (code === 'NOT_FOUND') return { status: 404, body: { error: 'not found' } };
  if (code === 'PARSE') return { status: 400, body: { error: 'body: could not be parsed' } };
  if (code === 'INVALID_COOKIE_SIGNATURE') return { status: 401, body: { error: 'unauthorized' } };
  log.error('unexpected error', { requestId, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
  return { status: 500, body: { error: 'internal' } };
}

interface RouteEntry {
  method: string;
  path: string;
}

/** A route's path pattern (`/api/v1/risks/:id`, `/static/*`) as a regular expression over request paths. */
const patternOf = (path: string) =>
  new RegExp(`^${path.split('/').map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}/?$`);

/**
 * The methods the app answers at a path, for the 405 of a known address asked with another method. Compiled from the
 * route table on first use, and again whenever routes were added since.
 */
export function methodsAtPath(routes: () => readonly RouteEntry[]): (path: string) => string[] {
  let compiled: { count: number; patterns: { method: string; pattern: RegExp }[] } | undefined;
  return (path) => {
    const table = routes();
    if (compiled?.count !== table.length) {
      compiled = { count: table.length, patterns: table.map((r) => ({ method: r.method, pattern: patternOf(r.path) })) };
    }
    return [...new Set(compiled.patterns.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  };
}

/**
 * An address the app has, asked with a method it does not take (PUT on a collection): 405 naming the methods it
 * takes in Allow, instead of the 404 of an unknown address.
 */
function methodNotAllowed(methodsAt: (path: string) => string[], request: Request): ErrorBody & { allow: string } | null {
  const methods = methodsAt(new URL(request.url).pathname);
  if (methods.length === 0 || methods.includes(request.method)) return null;
  const allow = methods.join(', ');
  return { status: 405, body: { error: `method ${request.method} not allowed here; this address takes ${allow}` }, allow };
}

/**
 * Request ids and the single mapping from errors to `{ "error": ... }`; screens get an HTML fragment instead.
 * `routes` is the composed app's route table (for 405 answers).
 */
export const httpPlatform = (ctx: AppContext, routes: () => readonly RouteEntry[] = () => []) => {
  const methodsAt = methodsAtPath(routes);
  return new Elysia({ name: 'platform:http' })
    .derive({ as: 'global' }, () => ({ requestId: crypto.randomUUID() }))
    .onError({ as: 'global' }, async ({ error: raised, code, request, set, server, ...rest }) => {
      // Elysia wraps whatever fails while the body is parsed as a parse error: the bearer check runs in the parse hook
      // (api-auth.ts), and a body over its size limit fails as it streams (screen-limits.tsx). Those answer as themselves.
      const cause = code === 'PARSE' && raised instanceof Error ? raised.cause : undefined;
      const unwrapped = typeof cause === 'object' && cause !== null && (thrownBeforeParsing.has(cause) || cause instanceof AppError);
      const error = unwrapped ? cause : raised;
      const requestId = (rest as { requestId?: string }).requestId ?? crypto.randomUUID();
      const wrongMethod = code === 'NOT_FOUND' ? methodNotAllowed(methodsAt, request) : null;
      const { status, body } = wrongMethod ?? errorResponse(error, unwrapped ? 'UNKNOWN' : code, requestId, new URL(request.url));
      set.headers['x-request-id'] = requestId;
      if (wrongMethod) set.headers.allow = wrongMethod.allow;
      if (error instanceof AppError && error.deniedReason) {
        const denied = error as AppError & { actor?: Actor; tokenId?: string };
        // The refused one: attached to the error, or the request's token actor (API) or signed-in viewer (screens).
        const actor = denied.actor ?? (rest as { actor?: Actor | null }).actor ?? (rest as { viewer?: Actor | null }).viewer ?? null;
        const outcome = await recordDenial(ctx, actor, error.deniedReason, request, clientAddress(request, server, ctx.config), denied.tokenId)
          .catch((e): RefusalOutcome => {
            log.error('could not audit a refusal', { requestId, error: String(e) });
            return { limited: false };
          });
        if (outcome.limited) {
          const limited = tooManyRefusals(request, outcome.retryAfterSeconds);
          limited.headers.set('x-request-id', requestId);
          return limited;
        }
      }
      set.status = status;
      if (status === 503) set.headers['retry-after'] = '5';
      const path = new URL(request.url).pathname;
      if (isApiPath(path) || request.headers.get('accept')?.includes('application/json')) return body;
      set.headers['content-type'] = 'text/html; charset=utf-8';
      if (request.headers.has('hx-request')) return errorBox(status, body.error);
      // A signed-in person stays inside the app: the shell, its navigation and the message (a 503 has no database to ask).
      const signed = status === 503 ? null : await signedInOf(ctx, request, rest).catch(() => null);
      return signed ? errorScreen(status, body.error, signed) : errorPage(status, body.error);
    });
};

const ERROR_TITLES: Record<number, string> = {
  400: 'This request could not be used', 403: 'You do not have access to this', 404: 'Page not found', 405: 'Not available here',
  409: 'This cannot be done now', 413: 'Too large', 429: 'Too many requests', 500: 'Something went wrong', 503: 'Service unavailable',
};
const errorTitle = (status: number) => ERROR_TITLES[status] ?? `Error ${status}`;
/**
 * What a person reads: a 404 of an unknown address or record never names an id (nor tells a record that exists from
 * one they may not read); a 404 that explains itself (an expired link) keeps its words.
 */
const errorText = (status: number, message: string) => {
  if (status === 500) return 'Something went wrong. The error was logged.';
  if (status === 404 && (message === 'not found' || /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i.test(message))) {
    return 'There is nothing at this address, or it is not yours to see. Check the address, or find the record by searching.';
  }
  return message;
};

function errorBox(status: number, message: string): string {
  return `<div class="flash flash-error" role="alert">${Bun.escapeHTML(errorText(status, message))}</div>`;
}

/** The route's viewer when it resolved one, else the session the request's cookie holds. */
async function signedInOf(ctx: AppContext, request: Request, rest: object): Promise<{ viewer: Actor; csrfToken: string } | null> {
  const { viewer, csrfToken } = rest as { viewer?: Actor | null; csrfToken?: string };
  if (viewer && csrfToken) return { viewer, csrfToken };
  return screenViewerOf(ctx, request);
}

function errorScreen(status: number, message: string, signed: { viewer: Actor; csrfToken: string }): Promise<string> | string {
  const children = `${errorBox(status, message)}<p class="actions"><a href="/">Go to the start page</a></p>`;
  return Shell({ title: errorTitle(status), viewer: signed.viewer, csrfToken: signed.csrfToken, children });
}

function errorPage(status: number, message: string): string {
  const title = Bun.escapeHTML(errorTitle(status));
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · GRC</title><link rel="stylesheet" href="/static/app.css"><link rel="icon" href="/static/favicon.svg" type="image/svg+xml"></head><body><main class="narrow"><h1>${title}</h1>${errorBox(status, message)}<p><a href="/">Home</a></p></main></body></html>`;
}
