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

/**
 * `{ scope: 'risks:read' }` on a route: authenticates the bearer token, checks scope AND the creator's right,
 * exposes `actor` to the handler, and documents the scope in the OpenAPI operation.
 */
export const apiAuth = (ctx: AppContext) =>
  new Elysia({ name: 'platform:api-auth' }).macro({
    scope: (permission: Permission) => ({
      detail: {
        security: [{ bearerAuth: [] }],
        'x-required-scope': permission,
        description: `Needs scope \`${permission}\` on the token, and the token's creator must hold that right.`,
      },
      async resolve({ headers }: { headers: Record<string, string | undefined> }) {
        const actor = await authenticateToken(ctx.db, bearerSecret(headers.authorization));
        try {
          requirePermission(actor, permission);
        } catch (error) {
          if (error instanceof AppError) Object.assign(error, { actor });
          throw error;
        }
        return { actor };
      },
    }),
  });
