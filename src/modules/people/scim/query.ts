import { sql, type SQL } from 'drizzle-orm';
import { ScimSyntaxError, type AttrPath, type CompareOp, type Filter, type FilterValue } from './filter';
import { isUuid } from '../../../platform/core/uuid';

/** How one SCIM attribute is read in SQL. */
export interface SqlAttribute {
  column: SQL;
  type: 'string' | 'boolean' | 'dateTime' | 'id';
  /** userName, displayName and e-mail compare case-insensitively (RFC 7643 caseExact false); ids exactly. */
  caseExact?: boolean;
}

/** A multi-valued attribute: its sub-attributes, and how "some element matches" is written (an EXISTS over a join). */
export interface SqlMultiValued {
  sub: Record<string, SqlAttribute>;
  /** Wraps the element condition; absent when the attribute has exactly one element per row (a user's e-mail). */
  some?: (condition: SQL) => SQL;
}

export interface SqlResource {
  /** The core schema URN, lowercased: a filter may prefix attributes with it. */
  schema: string;
  single: Record<string, SqlAttribute>;
  multi: Record<string, SqlMultiValued>;
}


function describe(path: AttrPath): string {
  return path.sub ? `${path.attr}.${path.sub}` : path.attr;
}

function checkSchema(resource: SqlResource, path: AttrPath): void {
  if (path.uri !== undefined && path.uri !== resource.schema) throw new ScimSyntaxError(`attributes of schema "${path.uri}" cannot be filtered on here`);
}

/** The single attribute or multi-valued sub-attribute a path names, or an invalidFilter error naming it. */
function resolve(resource: SqlResource, path: AttrPath): { attribute: SqlAttribute; multi?: SqlMultiValued } {
  checkSchema(resource, path);
  const single = resource.single[path.sub ? `${path.attr}.${path.sub}` : path.attr];
  if (single) return { attribute: single };
  const multi = resource.multi[path.attr];
  const attribute = multi?.sub[path.sub ?? 'value'];
  if (!multi || !attribute) throw new ScimSyntaxError(`"${describe(path)}" is not an attribute that can be filtered on`);
  return { attribute, multi };
}

function compare(attribute: SqlAttribute, op: CompareOp, value: FilterValue, name: string): SQL {
  const column = attribute.column;
  if (value === null) {
    if (op === 'eq') return sql`(${column} is null)`;
    if (op === 'ne') return sql`(${column} is not null)`;
    throw new ScimSyntaxError(`"${name} ${op} null": null only compares with eq or ne`);
  }
  switch (attribute.type) {
    case 'boolean': {
      if (typeof value !== 'boolean') throw new ScimSyntaxError(`"${name}" is true or false`);
      if (op === 'eq') return sql`(${column} = ${value})`;
      if (op === 'ne') return sql`(${column} <> ${value})`;
      throw new ScimSyntaxError(`"${name}" compares only with eq or ne`);
    }
    case 'dateTime': {
      const at = typeof value === 'string' ? new Date(value) : new Date(Number.NaN);
      if (Number.isNaN(at.getTime())) throw new ScimSyntaxError(`"${name}" compares with a date and time such as "2026-01-31T00:00:00Z"`);
      const iso = at.toISOString();
      const sqlOp = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' }[op as 'eq'];
      if (!sqlOp) throw new ScimSyntaxError(`"${name}" compares with eq, ne, gt, ge, lt or le`);
      return sql`(${column} ${sql.raw(sqlOp)} ${iso}::timestamptz)`;
    }
    case 'id': {
      // Ids are UUIDs: compared as such where possible so the primary key answers; anything else matches nothing.
      const text = String(value);
      if (op === 'eq') return isUuid(text) ? sql`(${column} = ${text}::uuid)` : sql`false`;
      if (op === 'ne') return isUuid(text) ? sql`(${column} <> ${text}::uuid)` : sql`true`;
      return stringCompare(sql`${column}::text`, op, text, true);
    }
    case 'string':
      if (typeof value !== 'string') throw new ScimSyntaxError(`"${name}" compares with a string in double quotes`);
      return stringCompare(column, op, value, attribute.caseExact ?? false);
  }
}

function stringCompare(column: SQL, op: CompareOp, value: string, caseExact: boolean): SQL {
  const left = caseExact ? column : sql`lower(${column})`;
  const right = caseExact ? sql`${value}::text` : sql`lower(${value}::text)`;
  switch (op) {
    case 'eq': return sql`(${left} = ${right})`;
    case 'ne': return sql`(${left} is distinct from ${right})`;
    case 'co': return sql`(strpos(${left}, ${right}) > 0)`;
    case 'sw': return sql`starts_with(${left}, ${right})`;
    case 'ew': return sql`(right(${left}, char_length(${value}::text)) = ${right})`;
    case 'gt': return sql`(${left} > ${right})`;
    case 'ge': return sql`(${left} >= ${right})`;
    case 'lt': return sql`(${left} < ${right})`;
    case 'le': return sql`(${left} <= ${right})`;
  }
}

function present(attribute: SqlAttribute): SQL {
  return attribute.type === 'string' ? sql`(coalesce(${attribute.column}, '') <> '')` : sql`(${attribute.column} is not null)`;
}

/** Compiles a filter over the resource's rows; element filters (`emails[…]`) become EXISTS over the element rows. */
export function filterSql(resource: SqlResource, filter: Filter): SQL {
  switch (filter.kind) {
    case 'and': return sql`(${filterSql(resource, filter.left)} and ${filterSql(resource, filter.right)})`;
    case 'or': return sql`(${filterSql(resource, filter.left)} or ${filterSql(resource, filter.right)})`;
    case 'not': return sql`(not coalesce(${filterSql(resource, filter.filter)}, false))`;
    case 'present': {
      const { attribute, multi } = resolve(resource, filter.path);
      return multi?.some ? multi.some(present(attribute)) : present(attribute);
    }
    case 'compare': {
      const { attribute, multi } = resolve(resource, filter.path);
      const name = describe(filter.path);
      if (multi?.some && filter.op === 'ne') return sql`(not ${multi.some(compare(attribute, 'eq', filter.value, name))})`;
      const condition = compare(attribute, filter.op, filter.value, name);
      return multi?.some ? multi.some(condition) : condition;
    }
    case 'valuePath': {
      checkSchema(resource, filter.path);
      const multi = resource.multi[filter.path.attr];
      if (!multi || filter.path.sub) throw new ScimSyntaxError(`"${describe(filter.path)}" is not a multi-valued attribute`);
      const element: SqlResource = { schema: resource.schema, single: multi.sub, multi: {} };
      const condition = filterSql(element, filter.filter);
      return multi.some ? multi.some(condition) : condition;
    }
  }
}
