import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { evidenceFiles } from '../../db/schema';
import type { TestEnv } from '../helpers/app';
import { bearer } from '../helpers/factories';

/** REST calls with one token, for the evidence tests. */
export function restClient(env: TestEnv, token: string) {
  const send = (method: string, path: string, body?: unknown, secret = token) =>
    env.request(path, bearer(secret, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
  const json = async <T>(res: Response) => ((await res.json()) as { data: T }).data;
  const created = async (path: string, body: unknown, secret = token) => {
    const res = await send('POST', path, body, secret);
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await json<{ id: string }>(res)).id;
  };
  const upload = (evidenceId: string, name: string, content: BodyInit, secret = token, headers: Record<string, string> = {}) =>
    env.request(`/api/v1/evidence/${evidenceId}/files?name=${encodeURIComponent(name)}`, {
      method: 'POST', body: content, headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/octet-stream', ...headers },
      duplex: 'half',
    } as RequestInit);
  return { send, json, created, upload };
}

export const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

export const sha256 = (bytes: Uint8Array | string) => new Bun.CryptoHasher('sha256').update(bytes).digest('hex');

/** Every file in the service's local evidence store (partial writes included). */
export function storedFiles(env: TestEnv): string[] {
  const root = join(env.ctx.config.DATA_DIR, 'evidence');
  try {
    return readdirSync(root, { recursive: true, withFileTypes: true }).filter((d) => d.isFile()).map((d) => join(d.parentPath, d.name));
  } catch {
    return [];
  }
}

/** Where a stored file lives on disk (local storage). */
export async function storedPath(env: TestEnv, fileId: string): Promise<string> {
  const [row] = await env.ctx.db.select({ key: evidenceFiles.storageKey }).from(evidenceFiles).where(eq(evidenceFiles.id, fileId));
  return join(env.ctx.config.DATA_DIR, 'evidence', row.key.slice(0, 2), row.key);
}
