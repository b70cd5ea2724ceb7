import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * The contract test: every GET and POST a test makes under /api/v1 is checked against the served OpenAPI document —
 * its status code is documented for the operation, its content type is one the operation names, and a JSON answer
 * satisfies the documented schema (JSON Schema 2020-12, as OpenAPI 3.1 uses, checked with Ajv). A mismatch fails the
 * test that made the request, naming the operation and the problem.
 */

interface MediaType {
  schema?: unknown;
}
interface Response {
  content?: Record<string, MediaType>;
}
interface Document {
  paths: Record<string, Record<string, { responses?: Record<string, Response> }>>;
}

const CHECKED_METHODS = new Set(['GET', 'POST']);
/** The document itself and its browsable viewer (with the viewer's files): served without a token, not operations. */
const isUndocumented = (path: string) => path === '/api/v1/openapi' || path === '/api/v1/docs' || path.startsWith('/api/v1/docs/');

/** JSON pointer escaping of one path segment. */
const pointer = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');

export class ContractChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  /** Document paths as patterns, literal segments before templates so `/risks/batch` is never read as `/risks/{id}`. */
  private readonly patterns: { path: string; pattern: RegExp }[];

  constructor(private readonly doc: Document) {
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema(doc, 'openapi.json');
    const templates = (path: string) => (path.match(/\{[^}]+\}/g) ?? []).length;
    this.patterns = Object.keys(doc.paths)
      .sort((a, b) => templates(a) - templates(b))
      .map((path) => ({ path, pattern: new RegExp(`^${path.split('/').map((s) => (/^\{.+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`) }));
  }

  /** The problem with `response` to `method path` under the document, or null when it keeps the contract. */
  async problem(method: string, path: string, response: globalThis.Response): Promise<string | null> {
    if (!CHECKED_METHODS.has(method) || !path.startsWith('/api/v1/') || isUndocumented(path)) return null;
    const documented = this.patterns.find((p) => p.pattern.test(path) && this.doc.paths[p.path][method.toLowerCase()]);
    if (!documented) {
      // An address the document does not have may only be refused as unknown (404) or asked with the wrong method (405).
      return response.status === 404 || response.status === 405 ? null : `no documented operation answers it, yet it answered ${response.status}`;
    }
    const operation = this.doc.paths[documented.path][method.toLowerCase()];
    const status = String(response.status);
    const key = [status, `${status[0]}XX`, 'default'].find((k) => operation.responses?.[k]);
    const answer = key ? operation.responses![key] : undefined;
    if (!key || !answer) return `status ${status} is not documented for ${method} ${documented.path} (documented: ${Object.keys(operation.responses ?? {}).join(', ')})`;
    const contentType = response.headers.get('content-type')?.split(';')[0].trim().toLowerCase() ?? '';
    const body = await response.clone().arrayBuffer();
    const media = Object.keys(answer.content ?? {});
    if (media.length === 0) return body.byteLength === 0 ? null : `${status} is documented without a body, yet it has one (${contentType})`;
    const mediaType = media.find((m) => m === contentType || m === '*/*' || (m.endsWith('/*') && contentType.startsWith(m.slice(0, -1))));
    if (!mediaType) return `content type ${contentType || '(none)'} of ${status} is not documented (documented: ${media.join(', ')})`;
    if (mediaType !== 'application/json') return null;
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder().decode(body));
    } catch {
      return `${status} says application/json but its body is not JSON`;
    }
    const validate = this.validator(['paths', documented.path, method.toLowerCase(), 'responses', key, 'content', mediaType, 'schema']);
    if (validate(value)) return null;
    const problems = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '(body)'} ${e.message}`);
    return `${status} body does not match the documented schema: ${problems.join('; ')}`;
  }

  private validator(at: string[]): ValidateFunction {
    const ref = `openapi.json#/${at.map(pointer).join('/')}`;
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    return validate;
  }
}

/**
 * `handle` with every answer checked against the document `served` returns (fetched once, on the first request
 * checked): a broken contract throws in the test that made the request.
 */
export function contractChecked(handle: (request: Request) => Promise<globalThis.Response>, served: () => Promise<Document>) {
  let checker: Promise<ContractChecker> | undefined;
  return async (request: Request): Promise<globalThis.Response> => {
    const response = await handle(request);
    const { pathname } = new URL(request.url);
    if (!CHECKED_METHODS.has(request.method) || !pathname.startsWith('/api/v1/') || isUndocumented(pathname)) return response;
    checker ??= served().then((doc) => new ContractChecker(doc));
    const problem = await (await checker).problem(request.method, pathname, response);
    if (problem) throw new Error(`OpenAPI contract broken by ${request.method} ${pathname}: ${problem}`);
    return response;
  };
}
