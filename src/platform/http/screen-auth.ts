import { Elysia, type Cookie } from 'elysia';
import type { Config } from '../../config';
import { platformService } from './installed';
import type { AppContext } from './context';
import { AppError } from '../core/errors';
import { requirePermission, type Actor, type Permission } from '../permissions/permissions';
import { csrfMatches, resolveSession, sessionIdOf, type ResolvedSession } from './sessions';

/** `__Host-` pins the cookie to this host and path / when it can be Secure (browsers refuse the prefix otherwise). */
export const sessionCookieName = (config: Pick<Config, 'COOKIE_SECURE'>) =>
  config.COOKIE_SECURE ? '__Host-grc_session' : 'grc_session';

export const CSRF_FIELD = '_csrf';
export const CSRF_HEADER = 'x-csrf-token';

export function setSessionCookie(config: Config, cookie: Record<string, Cookie<unknown>>, secret: string, expires: Date) {
  cookie[sessionCookieName(config)].set({
    value: secret, httpOnly: true, sameSite: 'lax', secure: config.COOKIE_SECURE, path: '/', expires,
  });
}

export function clearSessionCookie(config: Config, cookie: Record<string, Cookie<unknown>>) {
  cookie[sessionCookieName(config)].set({
    value: '', httpOnly: true, sameSite: 'lax', secure: config.COOKIE_SECURE, path: '/', maxAge: 0,
  });
}

export const cookieSecret = (config: Config, cookie: Record<string, Cookie<unknown>>): string | undefined => {
  const value = cookie[sessionCookieName(config)]?.value;
  return typeof value === 'string' && value ? value : undefined;
};

/** The stored id of the session this request is signed in with, kept when a change ends a person's other sessions. */
export const currentSessionId = (config: Config, cookie: Record<string, Cookie<unknown>>): string | null => {
  const secret = cookieSecret(config, cookie);
  return secret ? sessionIdOf(secret) : null;
};

interface Signed {
  session: ResolvedSession;
  viewer: Actor;
}

const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const RETURN_BASE = 'http://return.invalid';
/** Whitespace (U+2028 and U+2029 included) and control, format and unassigned code points: never part of a return address. */
const UNSAFE_IN_NEXT = /[\s\p{C}]/u;

/**
 * The place to return to after sign-in: a path on this site, or '/'. Accepted only when it holds no whitespace or
 * control character (browsers drop tabs and newlines, so `/\t/host` becomes `//host`; CR, LF or NUL would make an
 * invalid Location header) and when it still names this origin after URL resolution; the resolved form is returned,
 * so what the browser follows is what was checked (`/.//host` resolves to the path `//host`, which is refused).
 */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.length > 2048 || UNSAFE_IN_NEXT.test(next)) return '/';
  let url: URL;
  try {
    url = new URL(next, RETURN_BASE);
  } catch {
    return '/';
  }
  const resolved = url.pathname + url.search + url.hash;
  if (url.origin !== RETURN_BASE || resolved.startsWith('//') || resolved.startsWith('/\\')) return '/';
  return resolved;
}

/**
 * Screen authentication: the `page` macro (`{ page: 'risks:read' }` or `{ page: true }`) resolves `viewer` and
 * `csrfToken` from the DB-backed session, redirects to /sign-in when there is none, and refuses (403, audited)
 * when the viewer lacks the permission. A global transform hook checks the CSRF token on every state-changing
 * screen request that carries the session cookie, before validation and before any handler runs.
 */
export function screenAuth(ctx: AppContext) {
  // One instance per context: every module `.use`s it, and they must share the hook, the macro and the cache.
  let plugin = plugins.get(ctx);
  if (!plugin) {
    plugin = buildScreenAuth(ctx);
    plugins.set(ctx, plugin);
  }
  return plugin;
}

const plugins = new WeakMap<AppContext, ReturnType<typeof buildScreenAuth>>();

function buildScreenAuth(ctx: AppContext) {
  // One session lookup per request, shared by the CSRF hook and the macro.
  const lookups = new WeakMap<Request, Promise<Signed | null>>();
  const signedIn = (request: Request, secret: string | undefined): Promise<Signed | null> => {
    let found = lookups.get(request);
    if (!found) {
      found = (async () => {
        const session = await resolveSession(ctx.db, secret);
        if (!session) return null;
        const viewer = await platformService('screenActor')(ctx.db, session.userId);
        return viewer ? { session, viewer } : null;
      })();
      lookups.set(request, found);
    }
    return found;
  };

  return new Elysia({ name: 'platform:screen-auth' })
    .onTransform({ as: 'global' }, async ({ request, cookie, body, headers, path }) => {
      if (!UNSAFE_METHODS.has(request.method) || path.startsWith('/api/')) return;
      const secret = cookieSecret(ctx.config, cookie);
      if (!secret) return;
      const signed = await signedIn(request, secret);
      // A stale cookie proves nothing and grants nothing; the route itself then asks for sign-in.
      if (!signed) return;
      const sent = headers[CSRF_HEADER] ?? (body && typeof body === 'object' ? (body as Record<string, unknown>)[CSRF_FIELD] : undefined);
      if (!csrfMatches(signed.session.csrfToken, sent)) {
        const error = new AppError('FORBIDDEN', 'This form has expired or did not come from this site. Reload the page and try again.', [], 'CSRF token missing or wrong');
        throw Object.assign(error, { actor: signed.viewer });
      }
    })
    .macro({
      page: (permission: Permission | true) => ({
        async resolve({ request, cookie, path, set, status, headers }) {
          const signed = await signedIn(request, cookieSecret(ctx.config, cookie));
          if (!signed) {
            const query = new URL(request.url).search;
            const location = `/sign-in?next=${encodeURIComponent(path + query)}`;
            if (headers['hx-request'] === 'true') {
              // htmx would follow a 303 and swap the sign-in page into a fragment; ask it to navigate instead.
              set.headers['hx-redirect'] = location;
              return status(204, '');
            }
            set.headers.location = location;
            return status(303, '');
          }
          if (permission !== true) {
            try {
              requirePermission(signed.viewer, permission);
            } catch (error) {
              if (error instanceof AppError) Object.assign(error, { actor: signed.viewer });
              throw error;
            }
          }
          set.headers['cache-control'] = 'no-store';
          // Screens answer with HTML strings rendered by @kitajs/html.
          set.headers['content-type'] = 'text/html; charset=utf-8';
          return { viewer: signed.viewer, csrfToken: signed.session.csrfToken };
        },
      }),
    });
}
