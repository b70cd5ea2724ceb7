import type { Static, TObject } from '@sinclair/typebox';
import type { AppContext } from '../http/context';
import { forbidden } from '../core/errors';
import { levelOf, requirePermission, type Actor, type Permission } from '../permissions/permissions';

/** The rights a tool needs: every one of `allOf`, and at least one of `anyOf` when given (at any level). */
export interface ToolRights {
  allOf?: readonly Permission[];
  anyOf?: readonly Permission[];
}

/**
 * One tool of the AI-assistant endpoint: its input is the module's own TypeBox schema (served as the tool's JSON
 * Schema and checked before `run`, which receives the checked arguments typed by it), and `run` calls the module's
 * services as the assistant's user. `needs` decides who sees it in tools/list and may call it.
 */
export interface AssistantTool<Input extends TObject = TObject> {
  name: string;
  title: string;
  description: string;
  input: Input;
  needs: ToolRights;
  /** Reads only (MCP readOnlyHint); a writing tool may still say it never removes anything. */
  readOnly: boolean;
  destructive?: boolean;
  /** `call.origin`: the address the assistant reached the service at (for links it hands to the user). */
  run(ctx: AppContext, actor: Actor, args: Static<Input>, call: { origin: string }): Promise<unknown>;
}

/** A tool whose `run` is typed by its input schema; every module's tools are declared through it. */
export const defineTool = <Input extends TObject>(tool: AssistantTool<Input>): AssistantTool => tool;

/** The actor holds what the tool needs (token scope and the user's right), so tools/list shows it and a call may run. */
export function mayCall(actor: Actor, needs: ToolRights): boolean {
  const holds = (permission: Permission) => levelOf(actor, permission) !== null;
  return (needs.allOf ?? []).every(holds) && (!needs.anyOf || needs.anyOf.some(holds));
}

/** mayCall as a refusal: 403 whose audited reason names the missing scope or right. */
export function requireCallable(actor: Actor, name: string, needs: ToolRights): void {
  for (const permission of needs.allOf ?? []) requirePermission(actor, permission);
  if (needs.anyOf && !needs.anyOf.some((permission) => levelOf(actor, permission) !== null)) {
    throw forbidden(`tool ${name} needs one of ${needs.anyOf.join(', ')}`);
  }
}
