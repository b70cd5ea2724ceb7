import { Elysia } from 'elysia';
import { dirname, join } from 'node:path';
import { SCREEN_CSP } from './security-headers';

/**
 * The browsable REST API reference at /api/v1/docs: Swagger UI from the pinned swagger-ui-dist package, served from
 * this origin (no CDN, works offline), rendering /api/v1/openapi. The page's own script is static/api-docs.js, so it
 * runs under the screens' Content-Security-Policy without inline script.
 */
const DIST = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir));
const VERSION = (await Bun.file(join(DIST, 'package.json')).json() as { version: string }).version;
const ASSETS = new Set(['swagger-ui.css', 'swagger-ui-bundle.js']);
const base = `/api/v1/docs/${VERSION}`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GRC Service REST API</title>
<link rel="stylesheet" href="${base}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${base}/swagger-ui-bundle.js"></script>
<script src="/static/api-docs.js"></script>
</body>
</html>`;

export const apiDocs = () =>
  new Elysia({ name: 'platform:api-docs' })
    .get('/api/v1/docs', ({ set }) => {
      // A document, unlike the rest of /api: the screens' policy, with the viewer's assets from this origin.
      set.headers['content-security-policy'] = SCREEN_CSP;
      set.headers['content-type'] = 'text/html; charset=utf-8';
      return page;
    }, { detail: { hide: true } })
    .get(`${base}/:asset`, ({ params, set, status }) => {
      if (!ASSETS.has(params.asset)) return status(404, { error: 'not found' });
      // The version is in the address, so the file never changes under it.
      set.headers['cache-control'] = 'public, max-age=31536000, immutable';
      return Bun.file(join(DIST, params.asset));
    }, { detail: { hide: true } });
