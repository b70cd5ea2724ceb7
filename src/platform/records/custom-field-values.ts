import { and, asc, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { t } from 'elysia';
import type { DbOrTx } from '../../../db/client';
import { customFieldDefinitions, customFieldValues } from '../../../db/schema';
import type { FieldProblem } from '../core/errors';
import { isRealDate } from '../core/dates';
import { customFieldModules } from '../http/installed';
import type { Module } from '../permissions/permissions';

/**
 * Custom field values of records: validation by type, loading for a page of records in one query, writing the
 * changes, and the `customFields.<key>` entries History and the Audit Log keep. The register kit (records.ts) and
 * the bespoke risk service both call these, so every register behaves the same.
 */

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'date', 'singleSelect', 'multiSelect', 'boolean'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

/** Modules whose records take custom fields: those whose manifest says so (the spec's CSV import table, "Custom fields: Yes"). */
export const isCustomFieldModule = (module: string): module is Module => (customFieldModules() as string[]).includes(module);

export type CustomFieldValue = string | number | boolean | string[];
export type CustomFieldMap = Record<string, CustomFieldValue>;

export const TEXT_MAX = 10_000;

/** The write shape: `{ key: value }`; `null` clears. Types are checked by the service so every problem is listed together. */
export const CustomFieldsInput = t.Record(t.String(), t.Unknown(), {
  description: 'Custom field values by key (see /api/v1/custom-fields); null clears a value. Partial on update.',
});
/** The read shape: the record's set values by key; unset fields are left out. */
export const CustomFieldsView = t.Record(t.String(), t.Unknown(), { description: 'Custom field values by key' });

export type Definition = typeof customFieldDefinitions.$inferSelect;

/** A module's definitions in display order (no permission check: they are part of that module's records). */
export function definitionsFor(db: DbOrTx, module: string): Promise<Definition[]> {
  if (!isCustomFieldModule(module)) return Promise.resolve([]);
  return db.select().from(customFieldDefinitions).where(eq(customFieldDefinitions.module, module))
    .orderBy(asc(customFieldDefinitions.position), asc(customFieldDefinitions.label), asc(customFieldDefinitions.key));
}


/** Checks one value against its definition: the stored form, or the problem's message. */
export function checkValue(definition: Pick<Definition, 'type' | 'options'>, value: unknown): { value: CustomFieldValue } | { message: string } {
  switch (definition.type) {
    case 'text':
      if (typeof value !== 'string') return { message: 'must be text' };
      return value.length > TEXT_MAX ? { message: `must be at most ${TEXT_MAX} characters` } : { value };
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? { value } : { message: 'must be a finite number' };
    case 'date':
      return typeof value === 'string' && isRealDate(value) ? { value } : { message: 'must be a real date written YYYY-MM-DD' };
    case 'boolean':
      return typeof value === 'boolean' ? { value } : { message: 'must be true or false' };
    case 'singleSelect':
      return typeof value === 'string' && definition.options.includes(value)
        ? { value } : { message: `must be one of: ${definition.options.join(', ')}` };
    case 'multiSelect': {
      if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) return { message: 'must be a list of options' };
      const list = value as string[];
      const unknown = list.filter((v) => !definition.options.includes(v));
      if (unknown.length) return { message: `"${unknown[0]}" is not one of: ${definition.options.join(', ')}` };
      if (new Set(list).size !== list.length) return { message: 'must not repeat an option' };
      return { value: list };
    }
  }
}

/**
 * The record's values after a write, and every problem with the input: unknown keys, wrong types, a required field
 * missing on create or cleared on update. `current` holds the stored values (empty on create).
 */
export function applyCustomFields(
  definitions: Definition[], input: unknown, current: CustomFieldMap, mode: 'create' | 'update',
): { next: CustomFieldMap; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  const next: CustomFieldMap = { ...current };
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  if (input !== undefined && input !== null && (typeof input !== 'object' || Array.isArray(input))) {
    return { next, problems: [{ field: 'customFields', message: 'must be an object of values by key' }] };
  }
  const given = (input ?? {}) as Record<string, unknown>;
  for (const [key, raw] of Object.entries(given)) {
    const field = `customFields.${key}`;
    const definition = byKey.get(key);
    if (!definition) {
      problems.push({ field, message: 'no such custom field' });
      continue;
    }
    if (raw === null || raw === undefined) {
      delete next[key];
      continue;
    }
    const checked = checkValue(definition, raw);
    if ('message' in checked) problems.push({ field, message: checked.message });
    else if (Array.isArray(checked.value) && checked.value.length === 0) delete next[key]; // an empty multi select is no value
    else next[key] = checked.value;
  }
  for (const definition of definitions) {
    if (!definition.required) continue;
    const missing = next[definition.key] === undefined;
    const field = `customFields.${definition.key}`;
    // Required binds new records and explicit clearing; records stored before the field existed can still be edited.
    const enforced = mode === 'create' || definition.key in given;
    if (missing && enforced && !problems.some((p) => p.field === field)) problems.push({ field, message: 'is required' });
  }
  return { next, problems };
}

/**
 * A list column holding each row's custom field values, so a page reads them in its own query instead of a second
 * round trip after it: one index lookup (module, record id) per row, aggregated into `{ key: value }`; null when the row has none.
 * The per-row lookup only runs when the module has a definition at all (checked once per query): for 200 rows it
 * costs about a millisecond even when there is nothing to find.
 */
export function customFieldsColumn(module: Module, recordId: AnyColumn): SQL<CustomFieldMap | null> {
  return sql`(case when exists (select 1 from ${customFieldDefinitions} where ${customFieldDefinitions.module} = ${module})
    then (select json_object_agg(d.key, v.value)::text
      from ${customFieldValues} v join ${customFieldDefinitions} d on d.id = v.definition_id
     where v.module = ${module} and v.record_id = ${recordId}) end)`
    .mapWith((text: string) => JSON.parse(text) as CustomFieldMap);
}

/** The values of many records of a module in one query, by record id (records without values get `{}`). */
export async function loadCustomFields(db: DbOrTx, module: string, recordIds: readonly string[]): Promise<Map<string, CustomFieldMap>> {
  const result = new Map<string, CustomFieldMap>(recordIds.map((id) => [id, {}]));
  if (recordIds.length === 0 || !isCustomFieldModule(module)) return result;
  const rows = await db.select({ recordId: customFieldValues.recordId, key: customFieldDefinitions.key, value: customFieldValues.value })
    .from(customFieldValues)
    .innerJoin(customFieldDefinitions, eq(customFieldDefinitions.id, customFieldValues.definitionId))
    .where(and(eq(customFieldValues.module, module), inArray(customFieldValues.recordId, [...recordIds])));
  for (const row of rows) result.get(row.recordId)![row.key] = row.value as CustomFieldValue;
  return result;
}

/** Writes the difference between `before` and `next` for one record: upserts changed keys, deletes cleared ones. */
export async function saveCustomFields(
  tx: DbOrTx, module: string, recordId: string, definitions: Definition[], before: CustomFieldMap, next: CustomFieldMap,
): Promise<void> {
  const byKey = new Map(definitions.map((d) => [d.key, d]));
  const cleared = Object.keys(before).filter((key) => next[key] === undefined && byKey.has(key)).map((key) => byKey.get(key)!.id);
  if (cleared.length) {
    await tx.delete(customFieldValues).where(and(eq(customFieldValues.recordId, recordId), inArray(customFieldValues.definitionId, cleared)));
  }
  const changed = Object.entries(next)
    .filter(([key, value]) => byKey.has(key) && JSON.stringify(before[key]) !== JSON.stringify(value))
    .map(([key, value]) => ({ definitionId: byKey.get(key)!.id, module, recordId, value }));
  if (changed.length) {
    await tx.insert(customFieldValues).values(changed).onConflictDoUpdate({
      target: [customFieldValues.definitionId, customFieldValues.recordId],
      set: { value: sql`excluded.value` },
    });
  }
}

/** Removes every value a deleted record held (values have no foreign key to the many register tables). */
export async function deleteCustomFields(tx: DbOrTx, module: string, recordId: string): Promise<void> {
  if (!isCustomFieldModule(module)) return;
  await tx.delete(customFieldValues).where(and(eq(customFieldValues.module, module), eq(customFieldValues.recordId, recordId)));
}

/** The entries History and the Audit Log keep for custom fields: `customFields.<key>` beside the record's own fields. */
export const auditedCustomFields = (values: CustomFieldMap): Record<string, unknown> =>
  Object.fromEntries(Object.entries(values).map(([key, value]) => [`customFields.${key}`, value]));

/** The result of validating custom fields for a write, carried to the save after the record's own insert or update. */
export interface CustomFieldWrite {
  module: string;
  definitions: Definition[];
  before: CustomFieldMap;
  next: CustomFieldMap;
  problems: FieldProblem[];
}

/** Loads definitions (and the stored values on update) and checks the input: one call before the record is written. */
export async function prepareCustomFields(
  db: DbOrTx, module: string, recordId: string | null, input: unknown,
): Promise<CustomFieldWrite> {
  const definitions = await definitionsFor(db, module);
  const before = recordId ? ((await loadCustomFields(db, module, [recordId])).get(recordId) ?? {}) : {};
  const { next, problems } = applyCustomFields(definitions, input, before, recordId ? 'update' : 'create');
  return { module, definitions, before, next, problems };
}

export const saveCustomFieldWrite = (tx: DbOrTx, write: CustomFieldWrite, recordId: string) =>
  saveCustomFields(tx, write.module, recordId, write.definitions, write.before, write.next);

/* ---------- Screens: form inputs named `cf.<key>` ---------- */

/** What a form holds for custom fields: strings as typed, a list for a multi select. */
export type CustomFieldFormValues = Record<string, string | string[]>;

const formField = (body: unknown, name: string): unknown =>
  body && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
const formStrings = (body: unknown, name: string): string[] =>
  [formField(body, name)].flat().filter((v): v is string => typeof v === 'string');

/** The custom field inputs of a submitted form, as typed (to show a refused form again). */
export function customFieldFormValues(definitions: Definition[], body: unknown): CustomFieldFormValues {
  return Object.fromEntries(definitions.map((d) => {
    const sent = formStrings(body, `cf.${d.key}`);
    return [d.key, d.type === 'multiSelect' ? sent.filter((v) => v !== '') : (sent[0] ?? '')];
  }));
}

/** A record's stored values as form values. */
export function customFieldFormValuesOf(definitions: Definition[], values: Record<string, unknown> | undefined): CustomFieldFormValues {
  return Object.fromEntries(definitions.map((d) => {
    const value = values?.[d.key];
    if (d.type === 'multiSelect') return [d.key, Array.isArray(value) ? value.map(String) : []];
    return [d.key, value === undefined ? '' : String(value)];
  }));
}

/**
 * Form strings to the REST `customFields` shape: numbers and booleans are converted when they parse (otherwise left
 * as typed, so the service names the problem); a blank is left out on create and clears (null) on update.
 */
export function customFieldsFromForm(definitions: Definition[], body: unknown, mode: 'create' | 'update'): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  const values = customFieldFormValues(definitions, body);
  for (const d of definitions) {
    const raw = values[d.key];
    const blank = Array.isArray(raw) ? raw.length === 0 : raw.trim() === '';
    if (blank) {
      if (mode === 'update') input[d.key] = null;
      continue;
    }
    if (Array.isArray(raw)) input[d.key] = raw;
    else if (d.type === 'number') input[d.key] = /^\s*-?\d+(\.\d+)?([eE][-+]?\d+)?\s*$/.test(raw) ? Number(raw) : raw;
    else if (d.type === 'boolean') input[d.key] = raw === 'true' ? true : raw === 'false' ? false : raw;
    else input[d.key] = d.type === 'text' ? raw.replace(/\s+$/, '') : raw.trim();
  }
  return input;
}

/** A value as the detail page shows it. */
export function shownCustomValue(definition: Pick<Definition, 'type'>, value: unknown): string {
  if (value === undefined || value === null || value === '') return '—';
  if (definition.type === 'boolean') return value === true ? 'Yes' : value === false ? 'No' : String(value);
  if (Array.isArray(value)) return value.length ? value.join(', ') : '—';
  return String(value);
}
