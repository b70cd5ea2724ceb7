import { Elysia } from 'elysia';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import type { AppContext } from '../../platform/http/context';
import { AppError, notFound, unauthorized } from '../../platform/core/errors';
import { errorResponse, recordDenial } from '../../platform/http/http';
import { assistantTools } from '../../platform/modules/module';
import { platformService } from '../../platform/http/installed';
import { mayCall, requireCallable, type AssistantTool } from '../../platform/modules/tools';
import type { Actor } from '../../platform/permissions/permissions';
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

function describe(tool: AssistantTool): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    // TypeBox schemas are JSON Schema; serialising drops TypeBox's symbol keys.
    inputSchema: JSON.parse(JSON.stringify(tool.input)) as Tool['inputSchema'],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, destructiveHint: tool.destructive ?? false, openWorldHint: false },
  };
}

const argumentProblems = (tool: AssistantTool, args: unknown) =>
  [...Value.Errors(tool.input, args)].map((e) => `${e.path.replace(/^\//, '').replaceAll('/', '.') || 'arguments'}: ${e.message}`);

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

const metadataPath = '/.well-known/oauth-protected-resource';

async function answer(call: Omit<CallContext, 'actor'>, set: { headers: Record<string, string | number> }): Promise<Response> {
  const settings = await assistantSettings(call.ctx.db);
  if (!settings.enabled) throw notFound('/api/mcp');
  let actor: Actor;
  try {
    actor = await assistantActor(call.ctx, settings, call.request.headers.get('authorization'));
  } catch (error) {
    // RFC 9728 section 5.1: point clients at the metadata that names the identity provider.
    if (settings.acceptIdpTokens && error instanceof AppError && error.code === 'UNAUTHORIZED') {
      set.headers['www-authenticate'] = `Bearer resource_metadata="${new URL(call.request.url).origin}${metadataPath}"`;
    }
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
    // Stateless: there is no stream to open (GET) or session to end (DELETE); the transport answers 405 for both.
    .get('/api/mcp', ({ request, server, set }) => answer({ ctx, request, client: clientAddress(request, server, ctx.config) }, set), { detail: { hide: true } })
    .delete('/api/mcp', ({ request, server, set }) => answer({ ctx, request, client: clientAddress(request, server, ctx.config) }, set), { parse: 'none', detail: { hide: true } })
    // RFC 9728 protected resource metadata, only while assistants may connect with identity-provider tokens.
    .get(metadataPath, ({ request }) => protectedResource(ctx, request), { detail: { hide: true } })
    .get(`${metadataPath}/api/mcp`, ({ request }) => protectedResource(ctx, request), { detail: { hide: true } });

async function protectedResource(ctx: AppContext, request: Request) {
  const settings = await assistantSettings(ctx.db);
  if (!settings.enabled || !settings.acceptIdpTokens) throw notFound(metadataPath);
  return protectedResourceMetadata(ctx, settings, new URL(request.url).origin);
}
