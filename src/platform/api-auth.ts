import { Elysia } from 'elysia';
import { authenticateToken } from '../modules/apiTokens/service';
import { AppError, unauthorized } from './errors';
import { requirePermission, type Actor, type Permission } from './permissions';
import type { AppContext } from './context';

export interface DeniedError extends AppError {
  actor?: Actor;
  tokenId?: string;
}

function bearerSecret(header: string | undefined): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match) throw unauthorized(header ? 'malformed Authorization header' : 'no token');
  return match[1];
}

/** Actors authenticated for requests in flight: set before the body is parsed, read by the handler's `resolve`. */
const authenticated = new WeakMap<Request, Actor>();

interface Incoming {
  headers: Record<string, string | undefined>;
  request: Request;
}

/** Authenticates the request's bearer token and checks the permission once per request; throws 401/403. */
async function authenticate(db: AppContext['db'], permission: Permission, { headers, request }: Incoming): Promise<void> {
  if (authenticated.has(request)) return;
  const actor = await authenticateToken(db, bearerSecret(headers.authorization));
  try {
    requirePermission(actor, permission);
  } catch (error) {
    if (error instanceof AppError) Object.assign(error, { actor });
    throw error;
  }
  authenticated.set(request, actor);
}

/**
 * `{ scope: 'risks:read' }` on a route: authenticates the bearer token, checks scope AND the creator's right,
 * exposes `actor` to the handler, and documents the scope in the OpenAPI operation.
 *
 * The check runs before the body is parsed (a request with a body) or at `transform` (one without), so before the
 * query, params and body are validated: a request without a valid token or scope is answered 401/403 whatever it
 * carries. (`resolve` alone runs after validation, which answered 400 first.)
 */
export const apiAuth = (ctx: AppContext) =>
  new Elysia({ name: 'platform:api-auth' }).macro({
    scope: (permission: Permission) => ({
      detail: {
        security: [{ bearerAuth: [] }],
        'x-required-scope': permission,
        description: `Needs scope \`${permission}\` on the token, and the token's creator must hold that right.`,
      },
      // Returning nothing leaves the body to Elysia's own parser.
      parse: async (incoming: Incoming) => {
        await authenticate(ctx.db, permission, incoming);
      },
      transform: (incoming: Incoming) => authenticate(ctx.db, permission, incoming),
      resolve({ request }: { request: Request }) {
        const actor = authenticated.get(request);
        if (!actor) throw unauthorized('no token');
        return { actor };
      },
    }),
  });
