import { and, asc, count, eq, max, or, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../../db/client';
import { customFieldDefinitions, customFieldValues } from '../../../db/schema';
import { isCustomFieldModule, type Definition } from '../../platform/records/custom-field-values';
import { customFieldModules } from '../../platform/http/installed';
import { conflict, invalid, notFound, type FieldProblem } from '../../platform/core/errors';
import { recordChange } from '../../platform/audit/history';
import { requirePermission, type Actor, type Module } from '../../platform/permissions/permissions';
import type { CustomFieldCreate, CustomFieldListQuery, CustomFieldUpdate, CustomFieldView } from './schema';
import { isUuid } from '../../platform/core/uuid';

const isSelect = (type: Definition['type']) => type === 'singleSelect' || type === 'multiSelect';

const valueCount = sql<number>`(select count(*) from ${customFieldValues} v where v.definition_id = ${customFieldDefinitions.id})::int`;

function toView(row: Definition & { valueCount: number }): CustomFieldView {
  return { ...row, module: row.module as Module, valueCount: Number(row.valueCount), createdAt: row.createdAt.toISOString(), updatedAt: row.updatedAt.toISOString() };
}

/** Definitions with how many records hold a value for each, by module then display order. */
export async function listCustomFields(db: DbOrTx, actor: Actor, query: CustomFieldListQuery = {}): Promise<CustomFieldView[]> {
  requirePermission(actor, 'customFields:read');
  const rows = await db.select({ definition: customFieldDefinitions, valueCount }).from(customFieldDefinitions)
    .where(query.module ? eq(customFieldDefinitions.module, query.module) : undefined)
    .orderBy(asc(customFieldDefinitions.module), asc(customFieldDefinitions.position), asc(customFieldDefinitions.label), asc(customFieldDefinitions.key));
  return rows.map((r) => toView({ ...r.definition, valueCount: r.valueCount }));
}

async function loadDefinition(db: DbOrTx, id: string): Promise<Definition & { valueCount: number }> {
  const [row] = isUuid(id)
    ? await db.select({ definition: customFieldDefinitions, valueCount }).from(customFieldDefinitions).where(eq(customFieldDefinitions.id, id))
    : [];
  if (!row) throw notFound(`Custom field ${id}`);
  return { ...row.definition, valueCount: row.valueCount };
}

export async function getCustomField(db: DbOrTx, actor: Actor, id: string): Promise<CustomFieldView> {
  requirePermission(actor, 'customFields:read');
  return toView(await loadDefinition(db, id));
}

/** Options are what select fields choose from: required there (non-empty, no repeats, trimmed), refused elsewhere. */
function optionProblems(type: Definition['type'], options: string[] | undefined): { options: string[]; problems: FieldProblem[] } {
  const trimmed = (options ?? []).map((o) => o.trim());
  const problems: FieldProblem[] = [];
  if (!isSelect(type)) {
    if (trimmed.length) problems.push({ field: 'options', message: `only select fields have options, not ${type}` });
    return { options: [], problems };
  }
  if (trimmed.length === 0) problems.push({ field: 'options', message: 'a select field needs at least one option' });
  if (trimmed.some((o) => o === '')) problems.push({ field: 'options', message: 'an option must not be blank' });
  const repeated = trimmed.find((o, i) => trimmed.indexOf(o) !== i);
  if (repeated !== undefined) problems.push({ field: 'options', message: `"${repeated}" is listed twice` });
  return { options: trimmed, problems };
}

const audited = (d: Definition) => {
  const { id: _i, createdAt: _c, updatedAt: _u, ...fields } = d;
  return fields;
};

export async function createCustomField(tx: DbOrTx, actor: Actor, input: CustomFieldCreate): Promise<{ id: string }> {
  requirePermission(actor, 'customFields:create');
  const label = input.label.trim();
  const { options, problems } = optionProblems(input.type, input.options);
  if (!isCustomFieldModule(input.module)) {
    problems.push({ field: 'module', message: `${input.module} records take no custom fields; these do: ${customFieldModules().join(', ')}` });
  }
  if (!label) problems.push({ field: 'label', message: 'must not be blank' });
  if (problems.length) throw invalid(problems);
  const [taken] = await tx.select({ id: customFieldDefinitions.id }).from(customFieldDefinitions)
    .where(and(eq(customFieldDefinitions.module, input.module), eq(customFieldDefinitions.key, input.key)));
  if (taken) throw conflict(`${input.module} already has a custom field with key ${input.key}`);
  const [{ last }] = await tx.select({ last: max(customFieldDefinitions.position) }).from(customFieldDefinitions)
    .where(eq(customFieldDefinitions.module, input.module));
  const [row] = await tx.insert(customFieldDefinitions).values({
    module: input.module, key: input.key, label, type: input.type, options, required: input.required ?? false,
    position: input.position ?? (last === null ? 0 : last + 1),
  }).returning();
  await recordChange(tx, actor, { module: 'customFields', recordType: 'customField', recordId: row.id, action: 'create', before: null, after: audited(row) });
  return { id: row.id };
}

/** How many records hold each of `options` (a single select's value or an element of a multi select's list). */
async function optionUse(db: DbOrTx, definitionId: string, options: string[]): Promise<{ option: string; n: number }[]> {
  if (options.length === 0) return [];
  const holds = (option: string) => sql`${customFieldValues.value} @> ${JSON.stringify(option)}::jsonb`;
  const rows = await db.select({ value: customFieldValues.value }).from(customFieldValues)
    .where(and(eq(customFieldValues.definitionId, definitionId), or(...options.map(holds))));
  return options.map((option) => ({
    option, n: rows.filter((r) => (Array.isArray(r.value) ? (r.value as unknown[]).includes(option) : r.value === option)).length,
  })).filter((u) => u.n > 0);
}

/** Label, options, required and position may change; key, type and module may not (values and integrations depend on them). */
export async function updateCustomField(tx: DbOrTx, actor: Actor, id: string, patch: CustomFieldUpdate): Promise<void> {
  requirePermission(actor, 'customFields:update');
  const { valueCount: _n, ...before } = await loadDefinition(tx, id);
  const problems: FieldProblem[] = [];
  const label = patch.label === undefined ? before.label : patch.label.trim();
  if (!label) problems.push({ field: 'label', message: 'must not be blank' });
  let options = before.options;
  if (patch.options !== undefined) {
    const checked = optionProblems(before.type, patch.options);
    problems.push(...checked.problems);
    options = checked.options;
  }
  if (problems.length) throw invalid(problems);
  const removed = before.options.filter((o) => !options.includes(o));
  const inUse = await optionUse(tx, id, removed);
  if (inUse.length) {
    throw conflict(`Cannot remove ${inUse.map((u) => `"${u.option}" (held by ${u.n} record${u.n === 1 ? '' : 's'})`).join(', ')}; change those records first`);
  }
  const [after] = await tx.update(customFieldDefinitions).set({
    label, options, required: patch.required ?? before.required, position: patch.position ?? before.position, updatedAt: new Date(),
  }).where(eq(customFieldDefinitions.id, id)).returning();
  await recordChange(tx, actor, { module: 'customFields', recordType: 'customField', recordId: id, action: 'update', before: audited(before), after: audited(after) });
}

/**
 * Removes a definition and, with it, every value records hold for it. While values exist this needs `confirm`
 * (409 otherwise, saying how many); the Audit Log entry says how many values went.
 */
export async function deleteCustomField(tx: DbOrTx, actor: Actor, id: string, options: { confirm?: boolean } = {}): Promise<{ valuesRemoved: number }> {
  requirePermission(actor, 'customFields:delete');
  const { valueCount: _n, ...definition } = await loadDefinition(tx, id);
  const [{ n }] = await tx.select({ n: count() }).from(customFieldValues).where(eq(customFieldValues.definitionId, id));
  if (n > 0 && !options.confirm) {
    throw conflict(`Custom field ${definition.key} holds values in ${n} record${n === 1 ? '' : 's'}; deleting it removes them: repeat with confirm=true`);
  }
  await tx.delete(customFieldValues).where(eq(customFieldValues.definitionId, id));
  await tx.delete(customFieldDefinitions).where(eq(customFieldDefinitions.id, id));
  await recordChange(tx, actor, {
    module: 'customFields', recordType: 'customField', recordId: id, action: 'delete', before: audited(definition), after: null,
    details: { valuesRemoved: n },
  });
  return { valuesRemoved: n };
}
