/**
 * `/scim/v2`: SCIM 2.0 (RFC 7644) for identity providers, on only while Settings › Provisioning says so. Answers are
 * `application/scim+json`; every error is SCIM's error message with a `scimType` where RFC 7644 §3.12 names one.
 */
import type { Server } from 'bun';
import { Elysia } from 'elysia';
import { runWrite, type AppContext } from '../../../platform/http/context';
import { AppError } from '../../../platform/core/errors';
import { errorResponse } from '../../../platform/http/http';
import { log } from '../../../platform/core/log';
import { systemActor, type Actor } from '../../../platform/permissions/permissions';
import { clientAddress, refusalLimiter } from '../../../platform/http/refusals';
import { nestedDeeperThan, MAX_BODY_DEPTH } from '../../../platform/http/screen-limits';
import type { PatchOperation } from './patch';
import {
  attributeList, ERROR_SCHEMA, groupResource, LIST_SCHEMA, PATCH_SCHEMA, project, resourceTypes, schemaDefinitions,
  serviceProviderConfig, userResource, type ScimResource,
} from './resources';
import {
  authenticateScimToken, createScimGroup, createScimUser, deleteScimGroup, deleteScimUser, getScimGroup, getScimUser,
  groupFieldsOf, listScimGroups, listScimUsers, patchScimGroup, patchScimUser, replaceScimGroup, replaceScimUser,
  scimEnabled, ScimError, userFieldsOf,
} from './service';

export const SCIM_BASE_PATH = '/scim/v2';
const CONTENT_TYPE = 'application/scim+json; charset=utf-8';

interface Answer {
  status: number;
  body?: unknown;
  location?: string;
}

interface Call {
  request: Request;
  actor: Actor;
  /** Absolute base address of this SCIM service, for `meta.location` and `$ref`. */
  base: string;
  query: URLSearchParams;
  params: Record<string, string>;
}

const respond = ({ status, body, location }: Answer): Response => {
  const headers: Record<string, string> = { 'content-type': CONTENT_TYPE, 'cache-control': 'no-store' };
  if (location) headers.location = location;
  return new Response(body === undefined ? null : JSON.stringify(body), { status, headers });
};

const scimError = (status: number, detail: string, scimType?: string, extra: Record<string, string> = {}): Response => {
  const response = respond({ status, body: { schemas: [ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail } });
  for (const [k, v] of Object.entries(extra)) response.headers.set(k, v);
  return response;
};

/** Reads a JSON body sent as application/scim+json or application/json; anything else is invalidSyntax. */
async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await request.text());
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new ScimError(400, 'the body is not valid JSON', 'invalidSyntax');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ScimError(400, 'the body must be a JSON object', 'invalidSyntax');
  if (nestedDeeperThan(parsed, MAX_BODY_DEPTH)) throw new ScimError(400, `the body is nested deeper than ${MAX_BODY_DEPTH} levels`, 'invalidSyntax');
  return parsed as Record<string, unknown>;
}

async function patchOperations(request: Request): Promise<PatchOperation[]> {
  const body = await jsonBody(request);
  const schemas = body.schemas;
  if (!Array.isArray(schemas) || !schemas.includes(PATCH_SCHEMA)) throw new ScimError(400, `schemas must name ${PATCH_SCHEMA}`, 'invalidSyntax');
  const operations = body.Operations ?? body.operations;
  if (!Array.isArray(operations) || operations.length === 0) throw new ScimError(400, 'Operations must be a non-empty list', 'invalidSyntax');
  if (operations.length > 1000) throw new ScimError(400, 'at most 1000 Operations per request', 'invalidSyntax');
  return operations as PatchOperation[];
}

const integer = (value: string | null) => (value !== null && /^-?\d{1,9}$/.test(value) ? Number(value) : undefined);

function listQuery(query: URLSearchParams) {
  for (const name of ['startIndex', 'count']) {
    const value = query.get(name);
    if (value !== null && integer(value) === undefined) throw new ScimError(400, `${name} must be an integer`, 'invalidValue');
  }
  return { filter: query.get('filter') ?? undefined, startIndex: integer(query.get('startIndex')), count: integer(query.get('count')) };
}

function shaped(call: Call, resource: ScimResource): ScimResource {
  return project(resource, attributeList(call.query.get('attributes') ?? undefined), attributeList(call.query.get('excludedAttributes') ?? undefined));
}

const listResponse = (call: Call, result: { total: number; startIndex: number }, resources: ScimResource[]) => ({
  schemas: [LIST_SCHEMA], totalResults: result.total, startIndex: result.startIndex, itemsPerPage: resources.length,
  Resources: resources.map((r) => shaped(call, r)),
});

/** Whether the caller left `members` out of what it wants back (Entra ID does for large groups): then it is not read. */
const wantsMembers = (query: URLSearchParams) => {
  const excluded = attributeList(query.get('excludedAttributes') ?? undefined);
  const included = attributeList(query.get('attributes') ?? undefined);
  return !excluded.includes('members') && (included.length === 0 || included.some((a) => a === 'members' || a.startsWith('members.')));
};

type Handler = (call: Call, ctx: AppContext) => Promise<Answer>;

const USERS: Record<string, Handler> = {
  list: async (call, ctx) => {
    const result = await listScimUsers(ctx.db, listQuery(call.query));
    return { status: 200, body: listResponse(call, result, result.rows.map((r) => userResource(r, call.base))) };
  },
  get: async (call, ctx) => ({ status: 200, body: shaped(call, userResource(await getScimUser(ctx.db, call.params.id), call.base)) }),
  create: async (call, ctx) => {
    const fields = userFieldsOf(await jsonBody(call.request));
    const id = await runWrite(ctx, (tx) => createScimUser(tx, call.actor, fields));
    const resource = userResource(await getScimUser(ctx.db, id), call.base);
    return { status: 201, body: shaped(call, resource), location: `${call.base}/Users/${id}` };
  },
  replace: async (call, ctx) => {
    const fields = userFieldsOf(await jsonBody(call.request));
    await runWrite(ctx, (tx) => replaceScimUser(tx, call.actor, call.params.id, fields));
    return { status: 200, body: shaped(call, userResource(await getScimUser(ctx.db, call.params.id), call.base)) };
  },
  patch: async (call, ctx) => {
    const operations = await patchOperations(call.request);
    await runWrite(ctx, (tx) => patchScimUser(tx, call.actor, call.params.id, operations, call.base));
    return { status: 200, body: shaped(call, userResource(await getScimUser(ctx.db, call.params.id), call.base)) };
  },
  delete: async (call, ctx) => {
    await runWrite(ctx, (tx) => deleteScimUser(tx, call.actor, call.params.id));
    return { status: 204 };
  },
};

const GROUPS: Record<string, Handler> = {
  list: async (call, ctx) => {
    const result = await listScimGroups(ctx.db, listQuery(call.query), wantsMembers(call.query));
    return { status: 200, body: listResponse(call, result, result.rows.map((r) => groupResource(r, call.base))) };
  },
  get: async (call, ctx) => ({
    status: 200, body: shaped(call, groupResource(await getScimGroup(ctx.db, call.params.id, wantsMembers(call.query)), call.base)),
  }),
  create: async (call, ctx) => {
    const fields = groupFieldsOf(await jsonBody(call.request));
    const id = await runWrite(ctx, (tx) => createScimGroup(tx, call.actor, fields));
    return { status: 201, body: shaped(call, groupResource(await getScimGroup(ctx.db, id), call.base)), location: `${call.base}/Groups/${id}` };
  },
  replace: async (call, ctx) => {
    const fields = groupFieldsOf(await jsonBody(call.request));
    await runWrite(ctx, (tx) => replaceScimGroup(tx, call.actor, call.params.id, { ...fields, memberIds: fields.memberIds ?? [] }));
    return { status: 200, body: shaped(call, groupResource(await getScimGroup(ctx.db, call.params.id), call.base)) };
  },
  patch: async (call, ctx) => {
    const operations = await patchOperations(call.request);
    await runWrite(ctx, (tx) => patchScimGroup(tx, call.actor, call.params.id, operations, call.base));
    // Entra ID and Okta accept 204 for a group PATCH; the resource is sent only when asked for with `attributes`.
    if (!call.query.get('attributes')) return { status: 204 };
    return { status: 200, body: shaped(call, groupResource(await getScimGroup(ctx.db, call.params.id), call.base)) };
  },
  delete: async (call, ctx) => {
    await runWrite(ctx, (tx) => deleteScimGroup(tx, call.actor, call.params.id));
    return { status: 204 };
  },
};

function bearer(request: Request): string {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '');
  if (!match) throw Object.assign(new AppError('UNAUTHORIZED', 'unauthorized', [], request.headers.has('authorization') ? 'malformed Authorization header' : 'no token'));
  return match[1];
}

/** Turns what a handler threw into a SCIM error answer; refusals are audited like every other refusal. */
async function failure(ctx: AppContext, error: unknown, request: Request, server: Server<unknown> | null, actor: Actor | null): Promise<Response> {
  if (error instanceof ScimError) return scimError(error.status, error.message, error.scimType);
  if (error instanceof AppError && error.deniedReason) {
    const tokenId = (error as AppError & { tokenId?: string }).tokenId ?? actor?.tokenId ?? null;
    const url = new URL(request.url);
    const outcome = await refusalLimiter(ctx).record(clientAddress(request, server, ctx.config), actor ?? systemActor('scim'), {
      module: 'security', action: 'permission.denied', details: { reason: error.deniedReason, method: request.method, path: url.pathname, tokenId },
    }).catch((e) => {
      log.error('could not audit a refusal', { error: String(e) });
      return { limited: false as const };
    });
    if (outcome.limited) return scimError(429, 'Too many refused requests from this address. Try again later.', undefined, { 'retry-after': String(outcome.retryAfterSeconds) });
    if (error.code === 'UNAUTHORIZED') return scimError(401, 'A valid SCIM token is required (Settings › Provisioning).', undefined, { 'www-authenticate': 'Bearer realm="scim"' });
    return scimError(error.status, `forbidden: ${error.deniedReason}`);
  }
  if (error instanceof AppError) {
    const scimType = error.code === 'INVALID' ? 'invalidValue' : error.code === 'CONFLICT' ? 'uniqueness' : undefined;
    return scimError(error.status, error.message, scimType);
  }
  const { status, body } = errorResponse(error, 'UNKNOWN', crypto.randomUUID(), new URL(request.url));
  return scimError(status, body.error);
}

function handle(ctx: AppContext, handler: Handler) {
  return async ({ request, params, server }: { request: Request; params: Record<string, string>; server: Server<unknown> | null }): Promise<Response> => {
    let actor: Actor | null = null;
    try {
      if (!(await scimEnabled(ctx.db))) return scimError(404, 'SCIM provisioning is turned off (Settings › Provisioning).');
      actor = await authenticateScimToken(ctx.db, bearer(request));
      const url = new URL(request.url);
      const call: Call = { request, actor, base: `${url.origin}${SCIM_BASE_PATH}`, query: url.searchParams, params };
      return respond(await handler(call, ctx));
    } catch (error) {
      return failure(ctx, error, request, server, actor);
    }
  };
}

const discovery = (build: (base: string) => unknown) => async (call: Call): Promise<Answer> => ({ status: 200, body: build(call.base) });

const listOf = (items: (base: string) => ScimResource[]) => (base: string) => {
  const resources = items(base);
  return { schemas: [LIST_SCHEMA], totalResults: resources.length, startIndex: 1, itemsPerPage: resources.length, Resources: resources };
};

function oneOf(items: (base: string) => ScimResource[], kind: string): Handler {
  return async (call) => {
    const found = items(call.base).find((item) => item.id === call.params.id);
    if (!found) throw new ScimError(404, `${kind} ${call.params.id} not found`);
    return { status: 200, body: found };
  };
}

const NO_BODY = { parse: 'none' as const, detail: { hide: true } };

export const scimApi = (ctx: AppContext) =>
  new Elysia({ name: 'module:people:scim', prefix: SCIM_BASE_PATH })
    .get('/ServiceProviderConfig', handle(ctx, discovery(serviceProviderConfig)), NO_BODY)
    .get('/Schemas', handle(ctx, discovery(listOf(schemaDefinitions))), NO_BODY)
    .get('/Schemas/:id', handle(ctx, oneOf(schemaDefinitions, 'Schema')), NO_BODY)
    .get('/ResourceTypes', handle(ctx, discovery(listOf(resourceTypes))), NO_BODY)
    .get('/ResourceTypes/:id', handle(ctx, oneOf(resourceTypes, 'ResourceType')), NO_BODY)
    .get('/Users', handle(ctx, USERS.list), NO_BODY)
    .post('/Users', handle(ctx, USERS.create), NO_BODY)
    .get('/Users/:id', handle(ctx, USERS.get), NO_BODY)
    .put('/Users/:id', handle(ctx, USERS.replace), NO_BODY)
    .patch('/Users/:id', handle(ctx, USERS.patch), NO_BODY)
    .delete('/Users/:id', handle(ctx, USERS.delete), NO_BODY)
    .get('/Groups', handle(ctx, GROUPS.list), NO_BODY)
    .post('/Groups', handle(ctx, GROUPS.create), NO_BODY)
    .get('/Groups/:id', handle(ctx, GROUPS.get), NO_BODY)
    .put('/Groups/:id', handle(ctx, GROUPS.replace), NO_BODY)
    .patch('/Groups/:id', handle(ctx, GROUPS.patch), NO_BODY)
    .delete('/Groups/:id', handle(ctx, GROUPS.delete), NO_BODY);
