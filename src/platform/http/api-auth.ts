import { Elysia } from 'elysia';
import { AppError, forbidden, unauthorized } from '../core/errors';
import { levelOf, requirePermission, type Actor, type Permission } from '../permissions/permissions';
import type { AppContext } from './context';
import { platformService } from './installed';

export interface DeniedError extends AppError {
  actor?: Actor;
  tokenId?: string;
}

function bearerSecret(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized(header ? 'malformed Authorization header' : 'no token');
  return match[1];
}

/** Each request's token lookup, made once and shared by the hooks that authorise it and the handler's `resolve`. */
const actors = new WeakMap<Request, Promise<Actor>>();

interface Incoming {
  headers: Record<string, string | undefined>;
  request: Request;
}

function actorOf(db: AppContext['db'], { headers, request }: Incoming): Promise<Actor> {
  let actor = actors.get(request);
  if (!actor) {
    actor = platformService('authenticateToken')(db, bearerSecret(headers.authorization));
    actors.set(request, actor);
  }
  return actor;
}

/** Authenticates the request and runs `check` on its actor (every hook runs its own check); throws 401/403. */
async function authorise(db: AppContext['db'], check: (actor: Actor) => void, incoming: Incoming): Promise<Actor> {
  const actor = await actorOf(db, incoming);
  try {
    check(actor);
  } catch (error) {
    if (error instanceof AppError) Object.assign(error, { actor });
    throw error;
  }
  return actor;
}

/**
 * Errors thrown by the authorising parse hook. Elysia reports anything a parse hook throws as a parse failure of the
 * body; the error handler (http.ts) answers these as themselves (401, 403, or a 500 that is logged) instead.
 */
export const thrownBeforeParsing = new WeakSet<object>();

/**
 * The hooks that authorise a route before anything it carries is read: `parse` for a request with a body (before
 * the body is parsed) and `transform` for one without, both before the query, params and body are validated, so a
 * request without a valid token or right is answered 401/403 whatever it carries. (`resolve` alone runs after
 * validation, which answered 400 first.) The hooks name only what they use, so Elysia parses nothing more for them.
 */
function authorisingHooks(db: AppContext['db'], check: (actor: Actor) => void) {
  return {
    // Returning nothing leaves the body to the route's own parser.
    parse: async ({ headers, request }: Incoming) => {
      try {
        await authorise(db, check, { headers, request });
      } catch (error) {
        if (error !== null && typeof error === 'object') thrownBeforeParsing.add(error);
        throw error;
      }
    },
    transform: async ({ headers, request }: Incoming) => {
      await authorise(db, check, { headers, request });
    },
    resolve: async ({ headers, request }: Incoming) => ({ actor: await authorise(db, check, { headers, request }) }),
  };
}

/** A 403 naming the rights of which none is held. */
function requireAnyOf(permissions: readonly Permission[]) {
  const named = [...new Set(permissions)];
  return (actor: Actor) => {
    if (!named.some((permission) => levelOf(actor, permission) !== null)) {
      throw forbidden(`${named.join(' or ')} missing (token scope and creator's right)`);
    }
  };
}

/**
 * `{ scope: 'risks:read' }` on a route: authenticates the bearer token, checks scope AND the creator's right,
 * exposes `actor` to the handler, and documents the scope in the OpenAPI operation.
 * `{ scopeAnyOf: ['risks:create', 'risks:update'] }`: the same with any one of several rights (the route documents
 * them itself), for routes whose rows each need one of them (CSV imports).
 */
export const apiAuth = (ctx: AppContext) =>
  new Elysia({ name: 'platform:api-auth' }).macro({
    scope: (permission: Permission) => ({
      detail: {
        security: [{ bearerAuth: [] }],
        'x-required-scope': permission,
        description: `Needs scope \`${permission}\` on the token, and the token's creator must hold that right.`,
      },
      ...authorisingHooks(ctx.db, (actor) => {
        requirePermission(actor, permission);
      }),
    }),
    scopeAnyOf: (permissions: readonly Permission[]) => authorisingHooks(ctx.db, requireAnyOf(permissions)),
  });
