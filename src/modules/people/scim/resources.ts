/** SCIM resource shapes (RFC 7643) of this service's users and groups, and the discovery documents describing them. */

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
export const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
export const ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';
const CONFIG_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig';
const RESOURCE_TYPE_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:ResourceType';
const SCHEMA_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

/** Listing pages hold at most this many resources (`count` beyond it is lowered, as RFC 7644 §3.4.2.4 allows). */
export const MAX_RESULTS = 1000;
export const DEFAULT_COUNT = 100;

/** What this service keeps of a SCIM user. */
export interface UserFields {
  email: string;
  name: string;
  givenName: string | null;
  familyName: string | null;
  externalId: string | null;
  active: boolean;
}

export interface ScimUserRow extends UserFields {
  id: string;
  createdAt: Date;
  updatedAt: Date;
  groups: { id: string; name: string }[];
}

export interface ScimGroupRow {
  id: string;
  name: string;
  externalId: string | null;
  createdAt: Date;
  updatedAt: Date;
  members: { id: string; name: string }[];
}

export type ScimResource = Record<string, unknown>;

const meta = (resourceType: string, location: string, row: { createdAt: Date; updatedAt: Date }) => ({
  resourceType,
  created: row.createdAt.toISOString(),
  lastModified: row.updatedAt.toISOString(),
  location,
  version: `W/"${row.updatedAt.getTime()}"`,
});

const withoutNulls = (object: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(object).filter(([, v]) => v !== null && v !== undefined));

export function userResource(row: ScimUserRow, base: string): ScimResource {
  return withoutNulls({
    schemas: [USER_SCHEMA],
    id: row.id,
    externalId: row.externalId,
    userName: row.email,
    name: withoutNulls({ formatted: row.name, givenName: row.givenName, familyName: row.familyName }),
    displayName: row.name,
    emails: [{ value: row.email, type: 'work', primary: true }],
    active: row.active,
    groups: row.groups.map((g) => ({ value: g.id, display: g.name, $ref: `${base}/Groups/${g.id}`, type: 'direct' })),
    meta: meta('User', `${base}/Users/${row.id}`, row),
  });
}

export function groupResource(row: ScimGroupRow, base: string): ScimResource {
  return withoutNulls({
    schemas: [GROUP_SCHEMA],
    id: row.id,
    externalId: row.externalId,
    displayName: row.name,
    members: row.members.map((m) => ({ value: m.id, display: m.name, $ref: `${base}/Users/${m.id}`, type: 'User' })),
    meta: meta('Group', `${base}/Groups/${row.id}`, row),
  });
}

/* ---------- Discovery (RFC 7644 §4) ---------- */

interface AttributeDefinition {
  name: string;
  type: 'string' | 'boolean' | 'complex' | 'dateTime' | 'reference';
  multiValued: boolean;
  required: boolean;
  caseExact: boolean;
  mutability: 'readOnly' | 'readWrite' | 'immutable' | 'writeOnly';
  returned: 'always' | 'default' | 'never';
  uniqueness: 'none' | 'server' | 'global';
  description: string;
  subAttributes?: AttributeDefinition[];
  referenceTypes?: string[];
}

const attribute = (name: string, type: AttributeDefinition['type'], description: string, extra: Partial<AttributeDefinition> = {}): AttributeDefinition => ({
  name, type, multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', description, ...extra,
});

const USER_ATTRIBUTES: AttributeDefinition[] = [
  attribute('userName', 'string', 'The sign-in e-mail address; unique, case-insensitive.', { required: true, uniqueness: 'server' }),
  attribute('name', 'complex', 'The person\'s name.', {
    subAttributes: [
      attribute('formatted', 'string', 'The full name as shown on screens.'),
      attribute('givenName', 'string', 'Given name.'),
      attribute('familyName', 'string', 'Family name.'),
    ],
  }),
  attribute('displayName', 'string', 'The name shown on screens (the same as name.formatted).'),
  attribute('emails', 'complex', 'The sign-in address, as the one primary work e-mail.', {
    multiValued: true,
    subAttributes: [
      attribute('value', 'string', 'E-mail address.'),
      attribute('type', 'string', 'Always "work".'),
      attribute('primary', 'boolean', 'Always true.'),
    ],
  }),
  attribute('active', 'boolean', 'false deactivates the user: sessions end and API tokens stop working at once.'),
  attribute('groups', 'complex', 'Groups the user belongs to (change them through Groups).', {
    multiValued: true, mutability: 'readOnly',
    subAttributes: [
      attribute('value', 'string', 'Group id.', { mutability: 'readOnly', caseExact: true }),
      attribute('display', 'string', 'Group name.', { mutability: 'readOnly' }),
      attribute('$ref', 'reference', 'Group address.', { mutability: 'readOnly', referenceTypes: ['Group'] }),
    ],
  }),
];

const GROUP_ATTRIBUTES: AttributeDefinition[] = [
  attribute('displayName', 'string', 'Group name; unique.', { required: true, uniqueness: 'server' }),
  attribute('members', 'complex', 'Users in the group (roles stay managed in this service).', {
    multiValued: true,
    subAttributes: [
      attribute('value', 'string', 'User id.', { mutability: 'immutable', caseExact: true }),
      attribute('display', 'string', 'User name.', { mutability: 'readOnly' }),
      attribute('$ref', 'reference', 'User address.', { mutability: 'immutable', referenceTypes: ['User'] }),
      attribute('type', 'string', 'Always "User".', { mutability: 'immutable' }),
    ],
  }),
];

export const schemaDefinitions = (base: string) => [
  { schemas: [SCHEMA_SCHEMA], id: USER_SCHEMA, name: 'User', description: 'User account', attributes: USER_ATTRIBUTES, meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA}` } },
  { schemas: [SCHEMA_SCHEMA], id: GROUP_SCHEMA, name: 'Group', description: 'Group of users', attributes: GROUP_ATTRIBUTES, meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA}` } },
];

export const resourceTypes = (base: string) => [
  { schemas: [RESOURCE_TYPE_SCHEMA], id: 'User', name: 'User', endpoint: '/Users', description: 'User account', schema: USER_SCHEMA, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` } },
  { schemas: [RESOURCE_TYPE_SCHEMA], id: 'Group', name: 'Group', endpoint: '/Groups', description: 'Group', schema: GROUP_SCHEMA, meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` } },
];

export const serviceProviderConfig = (base: string) => ({
  schemas: [CONFIG_SCHEMA],
  documentationUri: '/api/v1/docs',
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: MAX_RESULTS },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{
    type: 'oauthbearertoken', name: 'SCIM token', primary: true,
    description: 'A bearer token made in Settings › Provisioning (scim_…). API tokens are not accepted here.',
  }],
  meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
});

/* ---------- attributes / excludedAttributes (RFC 7644 §3.4.2.5) ---------- */

const ALWAYS_RETURNED = new Set(['id', 'schemas']);

/** Parses a comma-separated attribute list into lowercased `attr` or `attr.sub` names (URN prefixes dropped). */
export function attributeList(value: string | undefined): string[] {
  if (!value) return [];
  return value.split(',').map((part) => part.trim()).filter(Boolean).map((part) => {
    const name = part.slice(part.lastIndexOf(':') + 1);
    return name.toLowerCase();
  });
}

/** Applies `attributes` (only these, plus id and schemas) or `excludedAttributes` to a resource. */
export function project(resource: ScimResource, include: string[], exclude: string[]): ScimResource {
  if (include.length) {
    const result: ScimResource = {};
    for (const [key, value] of Object.entries(resource)) {
      const lower = key.toLowerCase();
      if (ALWAYS_RETURNED.has(lower) || include.includes(lower)) result[key] = value;
      else {
        const subs = include.filter((name) => name.startsWith(`${lower}.`)).map((name) => name.slice(lower.length + 1));
        if (subs.length) result[key] = pickSubs(value, subs);
      }
    }
    return result;
  }
  if (!exclude.length) return resource;
  const result: ScimResource = {};
  for (const [key, value] of Object.entries(resource)) {
    const lower = key.toLowerCase();
    if (!ALWAYS_RETURNED.has(lower) && exclude.includes(lower)) continue;
    const subs = exclude.filter((name) => name.startsWith(`${lower}.`)).map((name) => name.slice(lower.length + 1));
    result[key] = subs.length ? dropSubs(value, subs) : value;
  }
  return result;
}

const pickFrom = (object: unknown, subs: string[]) =>
  Object.fromEntries(Object.entries(object as Record<string, unknown>).filter(([k]) => subs.includes(k.toLowerCase())));
const dropFrom = (object: unknown, subs: string[]) =>
  Object.fromEntries(Object.entries(object as Record<string, unknown>).filter(([k]) => !subs.includes(k.toLowerCase())));

function pickSubs(value: unknown, subs: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => pickFrom(item, subs));
  return value && typeof value === 'object' ? pickFrom(value, subs) : value;
}

function dropSubs(value: unknown, subs: string[]): unknown {
  if (Array.isArray(value)) return value.map((item) => dropFrom(item, subs));
  return value && typeof value === 'object' ? dropFrom(value, subs) : value;
}
