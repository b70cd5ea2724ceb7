import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-types';

export type { components, operations, paths } from './api-types';

export interface ApiClientOptions {
  /** Where the service answers, e.g. https://grc.example.com (the paths carry /api/v1). */
  baseUrl: string;
  /** An API token (aat_...). */
  token: string;
  /** Another fetch, e.g. to call an app in-process. */
  fetch?: (request: Request) => Promise<Response>;
}

/**
 * A typed client of the REST API (openapi-fetch over the generated types): paths, parameters, bodies and answers are
 * checked by TypeScript against the OpenAPI document.
 */
export function createApiClient(options: ApiClientOptions): Client<paths> {
  return createClient<paths>({
    baseUrl: options.baseUrl,
    headers: { authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
