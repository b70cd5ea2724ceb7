import { expect } from 'bun:test';
import type { TestEnv } from './app';
import { bearer } from './factories';

/**
 * `send(method, path, body?, secret?)`: a JSON request to the test service with a bearer token. The environment and
 * the default token are read when a request is sent, so a test file may make the sender before its `beforeAll`
 * fills them in.
 */
export function apiSender(env: () => TestEnv, defaultSecret: () => string) {
  return (method: string, path: string, body?: unknown, secret = defaultSecret()) =>
    env().request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
}

/** The `data` of an answer's JSON body. */
export const dataOf = async <T>(res: Response): Promise<T> => ((await res.json()) as { data: T }).data;

/** The id of the record an answer created; anything but 201 fails the test with the answer's body. */
export async function createdId(res: Response): Promise<string> {
  expect(res.status, await res.clone().text()).toBe(201);
  return (await dataOf<{ id: string }>(res)).id;
}
