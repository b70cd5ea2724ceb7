import { Elysia } from 'elysia';
import { BareLayout } from '../../views/layout';
import { CSV_LIMITS } from './csv/parse';

/** Spec, Limits: screens accept requests up to 1 MB; larger uploads go through the REST API. */
export const SCREEN_REQUEST_LIMIT = 1024 * 1024;
/**
 * A CSV import's check uploads a file of up to CSV_LIMITS.maxBytes (our documented file rule); its Import rows posts the
 * checked file back as a form field, which URL encoding can make up to three times larger. The engine refuses a file
 * over the limit itself, with its own message.
 */
const CSV_UPLOAD_LIMIT = 3 * CSV_LIMITS.maxBytes + 64 * 1024;
const CSV_UPLOAD = /\/import\/(check|apply)$/;

export const SCREEN_TOO_LARGE =
  'This request is larger than the 1 MB the screens accept. Larger uploads go through the REST API with an API token: ' +
  'a compliance package through POST /api/v1/compliance/packages, a CSV file of up to 10 MB through POST /api/v1/<area>/import ' +
  '(the import dialogs on the screens also take CSV files up to 10 MB).';

const writes = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The screen limit a request falls under, or null for the REST API (whose limits are its own). */
function limitFor(path: string): number | null {
  if (path.startsWith('/api/')) return null;
  return CSV_UPLOAD.test(path) ? CSV_UPLOAD_LIMIT : SCREEN_REQUEST_LIMIT;
}

/**
 * Refuses an oversized screen request by its Content-Length before the body is read (a body handed to the parser
 * cannot be refused with our own message). Handlers that take files check sizes again: a chunked upload has no length.
 */
export const screenLimits = () =>
  new Elysia({ name: 'platform:screen-limits' }).onRequest(({ request }) => {
    if (!writes.has(request.method)) return undefined;
    const limit = limitFor(new URL(request.url).pathname);
    if (limit === null || Number(request.headers.get('content-length') ?? '0') <= limit) return undefined;
    const page = (
      <BareLayout title="Request too large">
        <>
          <div class="flash flash-error" role="alert" safe>{SCREEN_TOO_LARGE}</div>
          <p><a href="/">Back to the start page</a></p>
        </>
      </BareLayout>
    );
    return new Response(String(page), { status: 413, headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
  });
