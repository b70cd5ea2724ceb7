import { t, type Static } from 'elysia';
import { once } from '../../platform/core/once';
import { stringEnum } from '../../platform/http/schema-helpers';
import { recordTypes } from '../../platform/records/record-types';

/** Settings › AI assistants (spec "AI-assistant settings"); kept as one value in the settings table. */
export const AssistantSettings = t.Object({
  enabled: t.Boolean({ description: 'Allow AI assistants to connect; while off /api/mcp answers 404' }),
  includePrivacy: t.Boolean({ description: 'Include privacy records; while off no tool returns or accepts them' }),
  acceptIdpTokens: t.Boolean({ description: 'Accept identity-provider access tokens' }),
  tenantId: t.String({ maxLength: 200, description: 'Directory (tenant) ID' }),
  clientId: t.String({ maxLength: 200, description: 'Application (client) ID' }),
  applicationIdUri: t.String({ maxLength: 500, description: 'Application ID URI; blank gives api://<client ID>' }),
  requiredScope: t.String({ maxLength: 200, description: 'Required scope; blank gives Mcp.Access' }),
}, { additionalProperties: false });
export type AssistantSettings = Static<typeof AssistantSettings>;

export const DEFAULT_ASSISTANT_SETTINGS: AssistantSettings = {
  enabled: false, includePrivacy: false, acceptIdpTokens: false, tenantId: '', clientId: '', applicationIdUri: '', requiredScope: '',
};

/** get_record's input: the record types whose modules declare `read` (made once the modules are installed). */
export const getRecordInput = once(() => t.Object({
  recordType: stringEnum(recordTypes().filter((type) => type.read).map((type) => type.kind), { description: 'What kind of record' }),
  id: t.String({ format: 'uuid' }),
}, { additionalProperties: false }));

export const MyOpenItemsInput = t.Object({}, { additionalProperties: false });

/** One JSON-RPC 2.0 message on /api/mcp, as the OpenAPI document describes it (the MCP SDK checks the rest). */
export const JsonRpcMessage = t.Object({
  jsonrpc: t.Literal('2.0'),
  id: t.Optional(t.Union([t.String(), t.Number()])),
  method: t.Optional(t.String()),
  params: t.Optional(t.Unknown()),
  result: t.Optional(t.Unknown()),
  error: t.Optional(t.Unknown()),
});
