import type { Client } from 'openapi-fetch';
import { createApiClient, type paths } from '../../client';

/**
 * The loader's only way to the instance: the REST API, through the typed client generated from the OpenAPI document
 * (so every path, body and answer is checked against the document at compile time), with the Bearer token.
 */

/** A failure that ends the run with one line: the instance cannot be reached, TLS fails, the token is refused. */
export class LoaderFailure extends Error {}

/** A refused request: its status and the API's error message. */
export class ApiCallError extends Error {
  constructor(readonly call: string, readonly status: number, readonly apiError: string) {
    super(`${call}: ${status} ${apiError}`);
  }
}

export interface InstanceOptions {
  /** The instance's address, e.g. https://grc.example.com. */
  url: string;
  token: string;
  /** PEM text of a private certificate authority to trust. */
  ca?: string;
  /** For tests: another fetch (the TLS option is passed on to it). */
  fetch?: typeof fetch;
}

const RETRIES = 3;
const MAX_WAIT_MS = 10_000;

function connectionFailure(url: string, error: unknown): LoaderFailure {
  const code = String((error as { code?: unknown }).code ?? '');
  const message = error instanceof Error ? error.message : String(error);
  if (/CERT|TLS|SSL|SELF_SIGNED|ISSUER|VERIFY|HANDSHAKE/i.test(`${code} ${message}`)) {
    return new LoaderFailure(
      `TLS error talking to ${url}: ${code || message}${code && message && !message.includes(code) ? ` (${message})` : ''}; ` +
      'if the instance uses a private certificate authority, pass its certificate with --ca-file',
    );
  }
  return new LoaderFailure(`cannot reach ${url}: ${code ? `${code}${message && !message.includes(code) ? ` (${message})` : ''}` : message}`);
}

/** The API's error message from a refused answer (the error envelope), or the status text. */
function apiErrorText(error: unknown, response: Response): string {
  if (error && typeof error === 'object' && 'error' in error && typeof (error as { error: unknown }).error === 'string') {
    const problems = (error as { problems?: { field?: string; message?: string; index?: number }[] }).problems;
    const main = (error as { error: string }).error;
    if (Array.isArray(problems) && problems.length && !problems.every((p) => main.includes(p.message ?? ''))) {
      return `${main}: ${problems.slice(0, 5).map((p) => `${p.field ?? ''}${p.index !== undefined ? ` (item ${p.index})` : ''}: ${p.message}`).join('; ')}`;
    }
    return main;
  }
  return response.statusText || 'refused';
}

export class Instance {
  readonly url: string;
  readonly client: Client<paths>;
  /** HTTP requests sent so far (retries included). */
  requests = 0;
  private readonly fetchWithTls: (request: Request) => Promise<Response>;
  /** Only ever sent in the Authorization header; a private field, so printing the object does not show it. */
  readonly #token: string;

  constructor(options: InstanceOptions) {
    this.#token = options.token;
    this.url = options.url.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
    const send = options.fetch ?? fetch;
    const tls = options.ca ? { tls: { ca: options.ca } } : {};
    this.fetchWithTls = async (request) => {
      for (let attempt = 0; ; attempt++) {
        this.requests++;
        let response: Response;
        try {
          response = await send(request.clone(), tls as RequestInit);
        } catch (error) {
          throw connectionFailure(this.url, error);
        }
        // 503: the database was unreachable and nothing of the request was kept; 429: too many refusals. Both say when to retry.
        if ((response.status === 503 || response.status === 429) && attempt < RETRIES) {
          const seconds = Number(response.headers.get('retry-after'));
          await Bun.sleep(Math.min(Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : 1000, MAX_WAIT_MS));
          continue;
        }
        if (response.status === 401) {
          throw new LoaderFailure(`the instance refused the token (401 unauthorized): it is unknown, revoked or expired, or its creator is deactivated`);
        }
        return response;
      }
    };
    this.client = createApiClient({ baseUrl: this.url, token: options.token, fetch: this.fetchWithTls });
  }

  /** GET /api/health: the address answers as this service. */
  async checkHealth(): Promise<void> {
    const response = await this.fetchWithTls(new Request(`${this.url}/api/health`));
    const body = await response.text();
    let status: unknown;
    try {
      status = (JSON.parse(body) as { status?: unknown }).status;
    } catch {
      status = undefined;
    }
    if (status === 'ok') return;
    if (response.status === 503) throw new LoaderFailure(`${this.url} answers, but its health check fails (503): the service cannot reach its database`);
    throw new LoaderFailure(`${this.url} does not answer as a GRC service (GET /api/health: ${response.status}${status === undefined ? ', not the service\'s answer' : ''})`);
  }

  /**
   * A request the token passes or not, that can write nothing: the API checks the token's scope (and its creator's
   * right) before the request's input, so an empty body is refused 400 once the right is there and 403 without it.
   * Returns the status.
   */
  async probe(method: 'GET' | 'POST' | 'PATCH' | 'PUT', path: string): Promise<number> {
    const init: RequestInit = { method, headers: { authorization: `Bearer ${this.#token}` } };
    if (method !== 'GET') {
      init.body = '{}';
      (init.headers as Record<string, string>)['content-type'] = 'application/json';
    }
    const response = await this.fetchWithTls(new Request(`${this.url}${path}`, init));
    await response.arrayBuffer();
    return response.status;
  }

}

/** The answer's data, or an ApiCallError naming the call, the status and the API's message. */
export async function expectData<T>(call: string, pending: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await pending;
  } catch (error) {
    if (error instanceof LoaderFailure) throw error;
    if (error instanceof SyntaxError) throw new LoaderFailure(`${call}: the instance did not answer JSON; is the address right?`);
    throw error;
  }
  const { data, error, response } = result;
  if (error !== undefined || !response.ok) throw new ApiCallError(call, response.status, apiErrorText(error, response));
  return data as T;
}

/** Every row of a paged list (pageSize 200), pages after the first fetched a few at a time. */
export async function listAll<T>(
  fetchPage: (page: number) => Promise<{ rows: T[]; total: number }>,
  onProgress?: (done: number, total: number) => void,
): Promise<T[]> {
  const first = await fetchPage(1);
  const rows = [...first.rows];
  const pages = Math.ceil(first.total / 200);
  onProgress?.(rows.length, first.total);
  const rest = Array.from({ length: Math.max(0, pages - 1) }, (_, i) => i + 2);
  const byPage = new Map<number, T[]>();
  await inParallel(rest, 4, async (page) => {
    const { rows: pageRows } = await fetchPage(page);
    byPage.set(page, pageRows);
    onProgress?.([...byPage.values()].reduce((n, r) => n + r.length, rows.length), first.total);
  });
  for (const page of rest) rows.push(...(byPage.get(page) ?? []));
  return rows;
}

/** Runs `work` on every item, at most `limit` at a time; the first thrown error stops taking new items and is rethrown. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (failure === null && next < items.length) {
      const index = next++;
      try {
        await work(items[index], index);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw failure;
}
