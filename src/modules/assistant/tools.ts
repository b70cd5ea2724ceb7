import type { AppContext } from '../../platform/http/context';
import { defineTool, type AssistantTool } from '../../platform/modules/tools';
import type { Actor } from '../../platform/permissions/permissions';
import {
  childIds, readableTypes, readPermission, recordTypes, requireKind, type RecordTypeDeclaration,
} from '../../platform/records/record-types';
import { getRecordInput, MyOpenItemsInput } from './schema';

/**
 * The tools that read across modules, from the record types the modules declare: get_record reads a record of any
 * type declaring `read`, with the evidence proving it; my_open_items gathers what each type lists as waiting on the
 * user. Nothing here names another module.
 */

/**
 * What proves a record (and the records that are part of it: a control's tests): every type that `attaches` (evidence,
 * with its files' names, sizes and SHA-256), as the user may read it.
 */
async function attachments(ctx: AppContext, actor: Actor, type: RecordTypeDeclaration, id: string): Promise<Record<string, object[]>> {
  if (!type.evidence) return {};
  const parts = recordTypes().filter((part) => part.evidence && part.parent?.kind === type.kind);
  const targets = [{ kind: type.kind, ids: [id] }, ...await Promise.all(parts.map(async (part) => ({ kind: part.kind, ids: await childIds(ctx.db, part, id) })))];
  const attaching = readableTypes(actor).filter((attacher) => attacher.attaches);
  return Object.fromEntries(await Promise.all(attaching.map(async (attacher) => [attacher.attaches!.key, await attacher.attaches!.to(ctx, actor, targets)])));
}

/** One record in full as the user may read it, with its key linked records and the evidence files that prove it. */
async function recordInFull(ctx: AppContext, actor: Actor, kind: string, id: string): Promise<object> {
  const type = requireKind(kind, readableKinds(), 'recordType');
  const record = await type.read!(ctx, actor, id);
  return { ...record, ...await attachments(ctx, actor, type, id) };
}

const readableKinds = () => recordTypes().filter((type) => type.read);

/** What waits on the user: each declared list of the types the user may read, under its key. */
async function myOpenItems(ctx: AppContext, actor: Actor): Promise<Record<string, object[]>> {
  const lists = recordTypes().filter((type) => type.openItems);
  const items: Record<string, object[]> = Object.fromEntries(lists.map((type) => [type.openItems!.key, []]));
  for (const type of readableTypes(actor, lists)) items[type.openItems!.key].push(...await type.openItems!.list(ctx, actor));
  return items;
}

export const assistantCoreTools = (): AssistantTool[] => {
  const readable = readableKinds();
  const openLists = recordTypes().filter((type) => type.openItems);
  return [
    defineTool({
      name: 'get_record', title: 'Read one record', readOnly: true, input: getRecordInput(),
      needs: { anyOf: readable.map(readPermission) },
      description: `One record in full as you may read it (${readable.map((type) => type.label.toLowerCase()).join(', ')}), with its key linked records and the evidence proving it with each file's SHA-256.`,
      run: (ctx, actor, args) => recordInFull(ctx, actor, args.recordType, args.id),
    }),
    defineTool({
      name: 'my_open_items', title: 'What waits on me', readOnly: true, input: MyOpenItemsInput,
      needs: { anyOf: openLists.map(readPermission) },
      description: `What waits on you: ${[...new Set(openLists.map((type) => type.openItems!.key))].join(', ')} (each where you may read it).`,
      run: (ctx, actor) => myOpenItems(ctx, actor),
    }),
  ];
};
