import { Elysia } from 'elysia';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Config } from '../../config';
import type { AppContext } from '../../platform/http/context';
import { AppError, notFound, unauthorized } from '../../platform/core/errors';
import { errorResponse, recordDenial } from '../../platform/http/http';
import { assistantTools, privacyAreas } from '../../platform/modules/module';
import { platformService } from '../../platform/http/installed';
import { mayCall, requireCallable, type AssistantTool } from '../../platform/modules/tools';
import { decodedSchema } from '../../platform/http/openapi';
import type { Actor, Module, Permission } from '../../platform/permissions/permissions';
import { clientAddress } from '../../platform/http/refusals';
import { idpActor, protectedResourceMetadata } from './idp';
import { JsonRpcMessage, type AssistantSettings } from './schema';
import { assistantSettings } from './settings-service';

/**
 * The AI-assistant endpoint: the Model Context Protocol over streamable HTTP (the SDK's web-standard transport and its
 * low-level Server), stateless: every request builds its server from the tools the modules declare, authenticates the
 * bearer token and loads the user's rights afresh, so a right removed takes effect on the next call and any instance
 * behind a load balancer answers any request. Answers are JSON (no SSE stream is kept open).
 */

const SERVER_INFO = { name: 'grc-service', version: '1' };
/** upload_evidence's 10 MB as base64 inside its JSON-RPC message, with room for the rest of the message. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** A tool's result text is capped so one answer cannot flood the assistant's context. */
const MAX_RESULT_CHARS = 200_000;

/**
 * The input schema a tool serves and checks: its module's schema with text coercions of query parameters shown as the
 * integers they decode to (an assistant sends JSON numbers), bounds included.
 */
const inputOf = (tool: AssistantTool) => decodedSchema(tool.input);

function describe(tool: AssistantTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // TypeBox schemas are JSON Schema; serialising drops TypeBox's symbol keys.
    inputSchema: JSON.parse(JSON.stringify(inputOf(tool))) as Tool['inputSchema'],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive ?? false, openWorldHint: false },
  };
}

const argumentProblems = (tool: AssistantTool, args: unknown) =>
  [...Value.Errors(inputOf(tool), args)].map((e) => `${e.path.replace(/^\//, '').replaceAll('/', '.') || 'arguments'}: ${e.message}`);

const acceptsNumber = (schema: TSchema): boolean =>
  schema.type === 'integer' || schema.type === 'number' || (Array.isArray(schema.anyOf) && (schema.anyOf as TSchema[]).some(acceptsNumber));

/**
 * Arguments as the tool's schema reads them: a whole number an assistant wrote as text ("2") becomes the number, as a
 * query string's does on REST, and is then checked with every bound: a page of "0" is refused like page=0, never
 * handed on as text.
 */
function numbersFromText(tool: AssistantTool, args: Record<string, unknown>): Record<string, unknown> {
  const properties = tool.input.properties as Record<string, TSchema>;
  return Object.fromEntries(Object.entries(args).map(([name, value]) => [name,
    typeof value === 'string' && /^-?\d{1,15}$/.test(value) && properties[name] && acceptsNumber(properties[name]) ? Number(value) : value]));
}

/** The tools this actor may call (token scopes and the user's rights): tools/list shows only these. */
const toolsFor = (actor: Actor) => assistantTools().filter((tool) => mayCall(actor, tool.needs));

function resultText(value: unknown): string {
  const text = JSON.stringify(value, null, 2) ?? 'null';
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n… (cut at ${MAX_RESULT_CHARS} characters; ask for a smaller page)` : text;
}

interface CallContext {
  ctx: AppContext;
  actor: Actor;
  request: Request;
  client: string;
}

/** Runs one tool: arguments checked against its schema (a JSON-RPC error), refusals as tool errors with REST's message. */
async function callTool(call: CallContext, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  const tool = assistantTools().find((candidate) => candidate.name === name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
  const input = numbersFromText(tool, args);
  const problems = argumentProblems(tool, input);
  if (problems.length) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for ${name}: ${problems.slice(0, 20).join('; ')}`);
  try {
    // A tool tools/list does not show this actor is refused like a REST request without its scope (audited).
    requireCallable(call.actor, name, tool.needs);
    const result = await tool.run(call.ctx, call.actor, input, { origin: new URL(call.request.url).origin });
    return { content: [{ type: 'text', text: resultText(result) }] };
  } catch (error) {
    const requestId = crypto.randomUUID();
    const refused = errorResponse(error, '', requestId);
    if (refused.status >= 500) {
      // Never the server's own message (it may carry SQL or a stack): errorResponse logged it under this request id.
      throw new McpError(ErrorCode.InternalError, `The service could not answer (request ${requestId})`);
    }
    if (error instanceof AppError && error.deniedReason) {
      await recordDenial(call.ctx, call.actor, `${error.deniedReason} (tool ${name})`, call.request, call.client);
    }
    return { isError: true, content: [{ type: 'text', text: refused.body.error }] };
  }
}

/** An API token (aat_…), or, when the setting is on, an identity-provider access token. */
async function assistantActor(ctx: AppContext, settings: AssistantSettings, authorization: string | null): Promise<Actor> {
  const secret = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  if (!secret) throw unauthorized('no bearer token');
  if (settings.acceptIdpTokens && !secret.startsWith('aat_')) return idpActor(ctx, settings, secret);
  const actor = await platformService('authenticateToken')(ctx.db, secret);
  return { ...actor, via: 'mcp' };
}

/**
 * The actor as the assistant may act: while Include privacy records is off, without the rights and scopes of the
 * modules holding privacy records, so search, get_record, my_open_items and every other tool neither return nor
 * accept those records, exactly as for a token without their scopes (docs/assistant.md).
 */
function withoutPrivacyRecords(actor: Actor, settings: AssistantSettings): Actor {
  const areas: readonly Module[] = privacyAreas();
  if (settings.includePrivacy || areas.length === 0) return actor;
  const kept = (permission: Permission) => !areas.includes(permission.split(':')[0] as Module);
  return {
    ...actor,
    rights: new Map([...actor.rights].filter(([permission]) => kept(permission))),
    ...(actor.scopes ? { scopes: new Set([...actor.scopes].filter(kept)) } : {}),
  };
}

const metadataPath = '/.well-known/oauth-protected-resource';

/** Loopback names: the hosts the endpoint answers to when neither PUBLIC_URL nor ALLOWED_HOSTS names the service's. */
const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'];
/** A Host value: a name or bracketed IPv6 address, and an optional port. Anything else (user info, paths) is refused. */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i;

function allowedHosts(config: Config): string[] {
  const configured = [config.PUBLIC_URL ? new URL(config.PUBLIC_URL).host : '', ...(config.ALLOWED_HOSTS?.split(',') ?? [])]
    .map((host) => host.trim().toLowerCase()).filter(Boolean);
  return configured.length ? configured : LOOPBACK_HOSTS;
}

/** An entry with a port allows that host and port; one without, the name on any port. */
function hostAllowed(allowed: string[], host: string): boolean {
  const match = HOST.exec(host);
  if (!match) return false;
  return allowed.some((entry) => entry === host.toLowerCase() || entry === match[1].toLowerCase());
}

function originHost(origin: string): string {
  try {
    const url = new URL(origin);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : '';
  } catch {
    return '';
  }
}

/**
 * DNS-rebinding protection, as the SDK's transport offers it: a web page that points its own name at this service's
 * address reaches it with that name in Host and Origin. The endpoint answers only requests naming the service's own
 * addresses (PUBLIC_URL's host and ALLOWED_HOSTS; loopback names when neither is set); what it refuses, or null.
 */
export function foreignHost(config: Config, request: Request): string | null {
  const allowed = allowedHosts(config);
  const host = request.headers.get('host') ?? new URL(request.url).host;
  if (!hostAllowed(allowed, host)) return `Host ${host}`;
  const origin = request.headers.get('origin');
  if (origin !== null && !hostAllowed(allowed, originHost(origin))) return `Origin ${origin}`;
  return null;
}

/** The endpoint's settings, once it may answer: 404 while assistants may not connect, 403 for a foreign Host or Origin. */
async function openEndpoint(ctx: AppContext, request: Request): Promise<AssistantSettings> {
  const settings = await assistantSettings(ctx.db);
  if (!settings.enabled) throw notFound('/api/mcp');
  const foreign = foreignHost(ctx.config, request);
  if (foreign) {
    throw new AppError('FORBIDDEN', `${foreign} is not an address of this service (PUBLIC_URL, ALLOWED_HOSTS)`, [], `assistant endpoint: ${foreign} refused (DNS-rebinding protection)`);
  }
  return settings;
}

/** The address people reach the service at: PUBLIC_URL (behind a proxy), else the request's own origin. */
const publicOrigin = (ctx: AppContext, request: Request) => new URL(ctx.config.PUBLIC_URL ?? request.url).origin;

/**
 * RFC 6750's challenge on every 401: the realm, `invalid_token` when a bearer was sent, and (RFC 9728 section 5.1),
 * while identity-provider tokens are accepted, the metadata naming the identity provider.
 */
function bearerChallenge(ctx: AppContext, settings: AssistantSettings, request: Request): string {
  const params = [`realm="${SERVER_INFO.name}"`];
  if (/^Bearer\s+\S/i.test(request.headers.get('authorization') ?? '')) params.push('error="invalid_token"');
  if (settings.acceptIdpTokens) params.push(`resource_metadata="${publicOrigin(ctx, request)}${metadataPath}"`);
  return `Bearer ${params.join(', ')}`;
}

async function answer(call: Omit<CallContext, 'actor'>, set: { headers: Record<string, string | number> }): Promise<Response> {
  const settings = await openEndpoint(call.ctx, call.request);
  let actor: Actor;
  try {
    actor = withoutPrivacyRecords(await assistantActor(call.ctx, settings, call.request.headers.get('authorization')), settings);
  } catch (error) {
    if (error instanceof AppError && error.code === 'UNAUTHORIZED') set.headers['www-authenticate'] = bearerChallenge(call.ctx, settings, call.request);
    throw error;
  }
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions: 'Governance, risk and compliance records, as the signed-in user may see them. Evidence can be recorded, linked, locked and uploaded; nothing is deleted or decided here.',
  });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolsFor(actor).map(describe) }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool({ ...call, actor }, request.params.name, request.params.arguments ?? {}));
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true, maxRequestBodySize: MAX_MESSAGE_BYTES });
  await server.connect(transport);
  try {
    return (await batchRefusal(call.request)) ?? (await transport.handleRequest(call.request));
  } finally {
    await server.close();
  }
}

/**
 * GET (open a stream) and DELETE (end a session): a stateless server offers neither, and the transport specification
 * has it answer 405 for both. (The SDK's transport would open an empty stream and answer DELETE 200.)
 */
async function noStreamNoSession(ctx: AppContext, request: Request, set: { status?: number | string; headers: Record<string, string | number> }) {
  await openEndpoint(ctx, request);
  set.status = 405;
  set.headers.allow = 'POST';
  return { error: `method ${request.method} not allowed here; this address takes POST (stateless: there is no stream to open and no session to end)` };
}

/**
 * JSON-RPC batches left MCP in its 2025-06-18 revision; a batch is answered with one Invalid Request error and none of
 * its messages is run (the transport would otherwise run them all).
 */
async function batchRefusal(request: Request): Promise<Response | null> {
  if (request.method !== 'POST') return null;
  const text = await request.clone().text();
  if (!text.trimStart().startsWith('[')) return null;
  return Response.json({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'JSON-RPC batches are not supported: send one message per request' } }, { status: 400 });
}

/** JSON content of a documented body or answer (TypeBox is JSON Schema; the plugin's type wants its own). */
const json = (schema: object) => ({ 'application/json': { schema } });

export const mcpEndpoint = (ctx: AppContext) =>
  new Elysia({ name: 'api:mcp' })
    .post('/api/mcp', ({ request, server, set }) => answer({ ctx, request, client: clientAddress(request, server, ctx.config) }, set), {
      parse: 'none',
      detail: {
        tags: ['AI assistants'],
        summary: 'Model Context Protocol (streamable HTTP, stateless, JSON answers): tools/list and tools/call as the token’s user',
        description: 'Authorization: Bearer <API token>. 404 while Settings › AI assistants › Allow AI assistants to connect is off. '
          + 'Each tool checks the token’s scopes and the user’s current rights on every call (docs/assistant.md).',
        security: [{ bearerAuth: [] }],
        requestBody: { required: true, content: json(JsonRpcMessage) },
        responses: {
          200: { description: 'The JSON-RPC answer', content: json(JsonRpcMessage) },
          202: { description: 'A notification was accepted; no body' },
        },
      },
    })
    .get('/api/mcp', ({ request, set }) => noStreamNoSession(ctx, request, set), { detail: { hide: true } })
    .delete('/api/mcp', ({ request, set }) => noStreamNoSession(ctx, request, set), { parse: 'none', detail: { hide: true } })
    // RFC 9728 protected resource metadata, only while assistants may connect with identity-provider tokens.
    .get(metadataPath, ({ request }) => protectedResource(ctx, request), { detail: { hide: true } })
    .get(`${metadataPath}/api/mcp`, ({ request }) => protectedResource(ctx, request), { detail: { hide: true } });

async function protectedResource(ctx: AppContext, request: Request) {
  const settings = await assistantSettings(ctx.db);
  if (!settings.enabled || !settings.acceptIdpTokens) throw notFound(metadataPath);
  return protectedResourceMetadata(ctx, settings, publicOrigin(ctx, request));
}
