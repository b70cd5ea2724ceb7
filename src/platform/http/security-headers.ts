import { Elysia } from 'elysia';
import type { Config } from '../../config';

/**
 * Screens: scripts, styles, images, fonts and requests from this origin only; no inline script or style (htmx and the
 * app's assets are files under /static), no plugins, no <base>, forms post only here, and no page may frame ours.
 */
export const SCREEN_CSP = [
  "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');
/** REST API answers are data, never documents: they may load nothing and be framed by nobody. */
export const API_CSP = "default-src 'none'; frame-ancestors 'none'";

/**
 * Security headers on every response (docs/security-headers.md), set before anything else runs so that errors,
 * redirects, 413s and 429s carry them too; a route may set its own Content-Security-Policy (the API viewer does).
 * HSTS only when the service runs behind HTTPS (COOKIE_SECURE), since browsers ignore it over plain HTTP anyway and an
 * installation tried out on http://localhost must not pin itself to HTTPS.
 */
export const securityHeaders = (config: Pick<Config, 'COOKIE_SECURE'>) =>
  new Elysia({ name: 'platform:security-headers' }).onRequest(({ request, set }) => {
    const path = new URL(request.url).pathname;
    set.headers['content-security-policy'] = path.startsWith('/api/') ? API_CSP : SCREEN_CSP;
    set.headers['x-content-type-options'] = 'nosniff';
    set.headers['x-frame-options'] = 'DENY';
    set.headers['referrer-policy'] = 'same-origin';
    set.headers['cross-origin-opener-policy'] = 'same-origin';
    set.headers['cross-origin-resource-policy'] = 'same-origin';
    if (config.COOKIE_SECURE) set.headers['strict-transport-security'] = 'max-age=31536000; includeSubDomains';
  });
