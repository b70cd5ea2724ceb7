import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/** An MCP client of the official SDK, connected over HTTP to `endpoint` with the token, as an assistant connects. */
export async function connectMcp(endpoint: string, token: string): Promise<Client> {
  const client = new Client({ name: 'grc-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: { authorization: `Bearer ${token}` } } }));
  return client;
}

export type ToolResult = { isError?: boolean; content: { type: string; text: string }[] };

export const callTool = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

/** A tool's answer as data; a tool error fails the test with its text. */
export const toolData = <T>(result: ToolResult): T => {
  if (result.isError) throw new Error(`tool error: ${result.content[0]?.text}`);
  return JSON.parse(result.content[0].text) as T;
};
