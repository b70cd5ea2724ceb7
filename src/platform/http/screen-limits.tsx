import { Elysia } from 'elysia';
import { BareLayout } from '../../../views/layout';
import { AppError, invalid, type FieldProblem } from '../core/errors';

/** The CSV file rule (ours; docs/csv-import.md), here because it decides how large an import request may be. */
export const CSV_LIMITS = {
  /** Bytes of the uploaded file. */
  maxBytes: 10 * 1024 * 1024,
  /** Data rows (the header not counted). */
  maxRows: 50_000,
} as const;

/** Spec, Limits: screens accept requests up to 1 MB; larger uploads go through the REST API. */
export const SCREEN_REQUEST_LIMIT = 1024 * 1024;
/**
 * REST API request bodies (ours; docs/decisions.md): a 10,000-item package, a 10 MB CSV file and everything else fit with
 * room to spare, and a client cannot make one request hold more memory than this.
 */
export const API_BODY_LIMIT = 32 * 1024 * 1024;
/** Objects and arrays nested deeper than this in a request body are refused (400) before validation walks them. */
export const MAX_BODY_DEPTH = 32;
/**
 * A CSV import's check uploads a file of up to CSV_LIMITS.maxBytes (our documented file rule); its Import rows posts the
 * checked file back as a form field, which URL encoding can make up to three times larger. The engine refuses a file
 * over the limit itself, with its own message.
 */
const CSV_UPLOAD_LIMIT = 3 * CSV_LIMITS.maxBytes + 64 * 1024;
const CSV_UPLOAD = /\/import\/(check|apply)$/;
/**
 * A CSV import through the REST API is the file itself: a little over the file rule still reaches the engine, which
 * refuses it with its own message (422); a file far over it is cut off as it streams.
 */
const CSV_API_LIMIT = CSV_LIMITS.maxBytes + 1024 * 1024;
const CSV_API_UPLOAD = /^\/api\/v1\/.+\/import$/;

export const SCREEN_TOO_LARGE =
  'This request is larger than the 1 MB the screens accept. Larger uploads go through the REST API with an API token: ' +
  'a compliance package through POST /api/v1/compliance/packages, a CSV file of up to 10 MB through POST /api/v1/<area>/import ' +
  '(the import dialogs on the screens also take CSV files up to 10 MB).';
export const API_TOO_LARGE = `The request body is larger than the ${API_BODY_LIMIT / 1024 / 1024} MB the REST API accepts.`;
export const CSV_TOO_LARGE = `The CSV file is larger than the ${CSV_LIMITS.maxBytes / 1024 / 1024} MB an import accepts. Split it into smaller files.`;
export const TOO_DEEP = `body: objects and arrays are nested deeper than ${MAX_BODY_DEPTH} levels`;

const writes = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const isApi = (path: string) => path.startsWith('/api/');

/** A route taking files larger than the usual limits (evidence uploads), declared by its module's manifest. */
export interface UploadLimit {
  path: RegExp;
  bytes: number;
  message: string;
}

/** The size limit of a request to `path`: a declared upload's, the REST API's, a CSV upload dialog's, or the screens'. */
function limitFor(path: string, uploads: readonly UploadLimit[]): number {
  const upload = uploads.find((u) => u.path.test(path));
  if (upload) return upload.bytes;
  if (isApi(path)) return CSV_API_UPLOAD.test(path) ? CSV_API_LIMIT : API_BODY_LIMIT;
  return CSV_UPLOAD.test(path) ? CSV_UPLOAD_LIMIT : SCREEN_REQUEST_LIMIT;
}

/** SCIM clients read errors in SCIM's error schema (RFC 7644 section 3.12), not the REST envelope or a page. */
const SCIM_TOO_LARGE = 'SCIM request bodies are limited to 1 MB';

const tooLargeMessage = (path: string, uploads: readonly UploadLimit[]) => uploads.find((u) => u.path.test(path))?.message
  ?? (path.startsWith('/scim/') ? SCIM_TOO_LARGE : !isApi(path) ? SCREEN_TOO_LARGE : CSV_API_UPLOAD.test(path) ? CSV_TOO_LARGE : API_TOO_LARGE);
const tooLarge = (path: string, uploads: readonly UploadLimit[]) => new AppError('TOO_LARGE', tooLargeMessage(path, uploads));

function tooLargeResponse(path: string, uploads: readonly UploadLimit[]): Response {
  const headers = { 'cache-control': 'no-store', connection: 'close' };
  const upload = uploads.find((u) => u.path.test(path));
  // An upload answers in the REST envelope on the screens too: the screen's upload script shows the message.
  if (isApi(path) || upload) return Response.json({ error: tooLargeMessage(path, uploads) }, { status: 413, headers });
  if (path.startsWith('/scim/')) {
    const body = { schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '413', detail: SCIM_TOO_LARGE };
    return new Response(JSON.stringify(body), { status: 413, headers: { ...headers, 'content-type': 'application/scim+json' } });
  }
  const page = (
    <BareLayout title="Request too large">
      <>
        <div class="flash flash-error" role="alert" safe>{SCREEN_TOO_LARGE}</div>
        <p><a href="/">Back to the start page</a></p>
      </>
    </BareLayout>
  );
  return new Response(String(page), { status: 413, headers: { ...headers, 'content-type': 'text/html; charset=utf-8' } });
}

/** The request as it arrived, for a request whose body was replaced by a counted one (the socket's address needs it). */
const arrived = new WeakMap<Request, Request>();
export const originalRequest = (request: Request): Request => arrived.get(request) ?? request;

/**
 * The same request with its body counted as it streams: past `limit` bytes the stream fails with 413, so a body
 * without a Content-Length (chunked) is never read whole into memory, whoever reads it (a parser or a handler).
 */
function countedRequest(request: Request, body: ReadableStream<Uint8Array>, limit: number, path: string, uploads: readonly UploadLimit[]): Request {
  const reader = body.getReader();
  let received = 0;
  const counted = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      received += value.byteLength;
      if (received > limit) {
        const error = tooLarge(path, uploads);
        controller.error(error);
        await reader.cancel(error).catch(() => {});
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  const limited = new Request(request.url, {
    method: request.method, headers: request.headers, body: counted, signal: request.signal, duplex: 'half',
  } as RequestInit);
  arrived.set(limited, request);
  return limited;
}

/** Whether `value` holds objects or arrays nested deeper than `max`; iterative, so a hostile body cannot exhaust the stack. */
export const nestedDeeperThan = (value: unknown, max: number): boolean => bodyShapeProblem(value, max)?.field === 'body';

/**
 * What is wrong with the shape of a parsed body, before validation walks it: objects or arrays nested deeper than `max`
 * (field `body`, found first), or a `__proto__` key. JSON.parse keeps that key as a plain property, but copying the body (as
 * validation does to apply defaults) turns it into the copy's prototype: the field would vanish unrefused while its
 * contents became inherited properties. It is refused like any other field the record does not have.
 * Iterative, so a hostile body cannot exhaust the stack.
 */
export function bodyShapeProblem(value: unknown, max: number): FieldProblem | null {
  const pending: [unknown, number, string][] = [[value, 1, '']];
  let prototypeKey: FieldProblem | null = null;
  while (pending.length) {
    const [current, depth, path] = pending.pop()!;
    if (depth > max) return { field: 'body', message: `nested deeper than ${max} levels` };
    for (const [key, child] of Object.entries(current as object)) {
      const field = path ? `${path}.${key}` : key;
      if (key === '__proto__') prototypeKey ??= { field, message: 'Unexpected property' };
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1, field]);
    }
  }
  return prototypeKey;
}

/**
 * Request body limits, for screens and the REST API alike: a body over its limit by its Content-Length is answered 413
 * before it is read; a body without one is counted as it streams and fails with 413 at the limit (the error handler
 * unwraps it from the parse error); and a parsed body nested deeper than MAX_BODY_DEPTH or holding a `__proto__` key is
 * refused with 400 before validation. Handlers that take files check their own sizes again (a CSV file's 10 MB rule).
 */
export const screenLimits = (uploads: readonly UploadLimit[] = []) =>
  new Elysia({ name: 'platform:screen-limits' })
    .onRequest((context) => {
      const { request } = context;
      if (!writes.has(request.method)) return undefined;
      const path = new URL(request.url).pathname;
      const limit = limitFor(path, uploads);
      const declared = request.headers.get('content-length');
      if (declared !== null) return Number(declared) > limit ? tooLargeResponse(path, uploads) : undefined;
      if (request.body) (context as { request: Request }).request = countedRequest(request, request.body, limit, path, uploads);
      return undefined;
    })
    .onTransform({ as: 'global' }, ({ body }) => {
      if (body === null || typeof body !== 'object') return;
      const problem = bodyShapeProblem(body, MAX_BODY_DEPTH);
      if (problem?.field === 'body') throw new AppError('INVALID', TOO_DEEP, [problem]);
      if (problem) throw invalid([problem]);
    });
