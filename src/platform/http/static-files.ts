import { Elysia } from 'elysia';
import { join, resolve, sep } from 'node:path';

const STATIC_DIR = resolve(import.meta.dir, '../../../static');
const SAFE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Serves /static/* from static/; names are whitelisted by pattern and the resolved path must stay inside the folder. */
export const staticFiles = () =>
  new Elysia({ name: 'platform:static' }).get('/static/*', async ({ params, set, status }) => {
    const name = params['*'];
    const path = resolve(join(STATIC_DIR, name));
    if (!SAFE_NAME.test(name) || name.includes('..') || !path.startsWith(STATIC_DIR + sep)) return status(404, 'not found');
    const file = Bun.file(path);
    if (!(await file.exists())) return status(404, 'not found');
    set.headers['cache-control'] = 'public, max-age=3600';
    return file;
  }, { detail: { hide: true } });
