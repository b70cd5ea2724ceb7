/**
 * SCIM PATCH (RFC 7644 §3.5.2) applied to a resource's JSON: the result is then saved like a PUT, so one set of
 * checks and one diff serve both. Also accepts what Microsoft Entra ID and Okta send in practice: capitalised op
 * names, dotted or URN keys in a path-less value, and `remove` of members given as a value list.
 */
import { matches, member, parsePatchPath, ScimSyntaxError, type Filter, type PatchPath } from './filter';
import type { ScimResource } from './resources';

export class ScimPatchError extends Error {
  constructor(readonly scimType: 'invalidPath' | 'noTarget' | 'invalidValue' | 'invalidSyntax', message: string) {
    super(message);
  }
}

export interface PatchOperation {
  op: string;
  path?: string;
  value?: unknown;
}


type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => value !== null && typeof value === 'object' && !Array.isArray(value);

function keyOf(object: Json, name: string): string | undefined {
  return Object.keys(object).find((k) => k.toLowerCase() === name);
}

/** Sets the member named `name` (any case), keeping an existing key's spelling or adding it as written. */
function setMember(object: Json, name: string, value: unknown): void {
  object[keyOf(object, name.toLowerCase()) ?? name] = value;
}

function deleteMember(object: Json, name: string): void {
  const key = keyOf(object, name.toLowerCase());
  if (key !== undefined) delete object[key];
}

const sameValue = (a: unknown, b: unknown) => isObject(a) && isObject(b) && member(a, 'value') !== undefined
  && String(member(a, 'value')) === String(member(b, 'value'));

export interface PatchSchema {
  /** The resource's core schema URN, lowercased; attributes of other (extension) schemas are not kept here. */
  core: string;
  /** Lowercased names of the multi-valued attributes (emails, members, groups). */
  multiValued: ReadonlySet<string>;
  /** Lowercased names that may not be changed (id, meta, groups of a user). */
  readOnly: ReadonlySet<string>;
}

/** Applies the operations in order to a copy of `resource`; an operation that cannot apply fails the whole PATCH. */
export function applyPatch(resource: ScimResource, operations: PatchOperation[], schema: PatchSchema): ScimResource {
  const result = structuredClone(resource) as Json;
  operations.forEach((operation, index) => {
    const op = typeof operation?.op === 'string' ? operation.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw new ScimPatchError('invalidSyntax', `Operations[${index}].op must be add, replace or remove`);
    }
    if (operation.path === undefined || operation.path === '') {
      if (op === 'remove') throw new ScimPatchError('noTarget', `Operations[${index}]: remove needs a path`);
      if (!isObject(operation.value)) throw new ScimPatchError('invalidValue', `Operations[${index}]: without a path the value must be an object of attributes`);
      for (const [key, value] of Object.entries(operation.value)) {
        applyAt(result, op, key, value, schema);
      }
      return;
    }
    if (typeof operation.path !== 'string') throw new ScimPatchError('invalidPath', `Operations[${index}].path must be a string`);
    applyAt(result, op, operation.path, operation.value, schema);
  });
  return result;
}

function parse(path: string): PatchPath {
  try {
    return parsePatchPath(path);
  } catch (error) {
    if (error instanceof ScimSyntaxError) throw new ScimPatchError('invalidPath', `path "${path}": ${error.message}`);
    throw error;
  }
}

function applyAt(resource: Json, op: 'add' | 'replace' | 'remove', pathText: string, value: unknown, schema: PatchSchema): void {
  const target = parse(pathText);
  // An extension attribute (Entra ID's enterprise department, manager, …): accepted, and not kept, like on create.
  if (target.path.uri !== undefined && target.path.uri !== schema.core) return;
  const attr = target.path.attr;
  if (schema.readOnly.has(attr)) {
    // Okta renames a group with `{ op: "replace", value: { id: "<its id>", displayName: "…" } }`: repeating a read-only
    // attribute's current value changes nothing and is accepted; another value is refused.
    const unchanged = op !== 'remove' && !target.filter && !target.path.sub && JSON.stringify(member(resource, attr)) === JSON.stringify(value);
    if (unchanged) return;
    throw new ScimPatchError('invalidPath', `"${pathText}" cannot be changed`);
  }
  const multi = schema.multiValued.has(attr);
  const written = target.path.written;
  if (target.filter) return applyToElements(resource, op, target, value, pathText, multi);
  if (target.path.sub) return applyToSubAttribute(resource, op, written.attr, written.sub!, value, multi);
  if (op === 'remove') {
    if (multi && value !== undefined) return removeListedElements(resource, attr, value);
    return deleteMember(resource, written.attr);
  }
  if (value === undefined) throw new ScimPatchError('invalidValue', `${op} "${pathText}" needs a value`);
  if (multi) {
    const incoming = Array.isArray(value) ? value : [value];
    const current = member(resource, attr);
    const existing = op === 'add' && Array.isArray(current) ? current : [];
    setMember(resource, written.attr, [...existing.filter((e) => !incoming.some((n) => sameValue(e, n))), ...incoming]);
    return;
  }
  const current = member(resource, attr);
  // A complex attribute is merged: sub-attributes not named keep their values (RFC 7644 §3.5.2.1 and .3).
  setMember(resource, written.attr, isObject(current) && isObject(value) ? { ...current, ...value } : value);
}

function applyToSubAttribute(resource: Json, op: 'add' | 'replace' | 'remove', attr: string, sub: string, value: unknown, multi: boolean): void {
  const current = member(resource, attr.toLowerCase());
  if (multi) {
    for (const element of Array.isArray(current) ? current : []) {
      if (!isObject(element)) continue;
      if (op === 'remove') deleteMember(element, sub);
      else setMember(element, sub, value);
    }
    return;
  }
  if (op === 'remove') {
    if (isObject(current)) deleteMember(current, sub);
    return;
  }
  const object = isObject(current) ? current : {};
  setMember(object, sub, value);
  setMember(resource, attr, object);
}

/** `members[value eq "…"]` or `emails[type eq "work"].value`. */
function applyToElements(resource: Json, op: 'add' | 'replace' | 'remove', target: PatchPath, value: unknown, pathText: string, multi: boolean): void {
  if (!multi) throw new ScimPatchError('invalidPath', `"${pathText}": a value filter needs a multi-valued attribute`);
  const attr = target.path.written.attr;
  const current = member(resource, target.path.attr);
  const elements = Array.isArray(current) ? [...current] : [];
  const matching = (element: unknown) => matches(element, target.filter!);
  if (op === 'remove') {
    if (target.sub) {
      for (const element of elements) if (isObject(element) && matching(element)) deleteMember(element, target.sub);
      setMember(resource, attr, elements);
    } else {
      setMember(resource, attr, elements.filter((element) => !matching(element)));
    }
    return;
  }
  if (value === undefined) throw new ScimPatchError('invalidValue', `${op} "${pathText}" needs a value`);
  let matched = false;
  const updated = elements.map((element) => {
    if (!isObject(element) || !matching(element)) return element;
    matched = true;
    if (target.sub) return { ...element, [keyOf(element, target.sub) ?? target.writtenSub!]: value };
    if (!isObject(value)) throw new ScimPatchError('invalidValue', `"${pathText}": the value must be an object`);
    return { ...element, ...value };
  });
  if (!matched) {
    // Identity providers set `emails[type eq "work"].value` on a user with no such element yet: the element is made
    // from the filter's equalities. A filter that does not say what the element is cannot make one.
    const made = elementFromFilter(target.filter!);
    if (!made) throw new ScimPatchError('noTarget', `"${pathText}" matches no value`);
    const element = target.sub ? { ...made, [target.writtenSub!]: value } : { ...made, ...(isObject(value) ? value : {}) };
    updated.push(element);
  }
  setMember(resource, attr, updated);
}

/** `type eq "work" and primary eq true` → `{ type: 'work', primary: true }`; anything else → null. */
function elementFromFilter(filter: Filter): Json | null {
  if (filter.kind === 'compare' && filter.op === 'eq' && !filter.path.sub) return { [filter.path.written.attr]: filter.value };
  if (filter.kind === 'and') {
    const left = elementFromFilter(filter.left);
    const right = elementFromFilter(filter.right);
    return left && right ? { ...left, ...right } : null;
  }
  return null;
}

/** Entra ID removes group members as `{ op: "Remove", path: "members", value: [{ value: "<id>" }] }`. */
function removeListedElements(resource: Json, attr: string, value: unknown): void {
  const listed = Array.isArray(value) ? value : [value];
  const current = member(resource, attr);
  if (!Array.isArray(current)) return;
  setMember(resource, attr, current.filter((element) => !listed.some((item) => sameValue(element, item))));
}
