import { beforeAll, describe, expect, test } from 'bun:test';
import { createScimToken, setScimEnabled } from '../../src/modules/people/scim/service';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, unique } from '../helpers/factories';

/**
 * The request sequences Microsoft Entra ID and Okta send when they provision a user and a group, written as they
 * send them (capitalised op names, booleans as strings, path-less replaces, member removal by value list), replayed
 * in order. `{{name}}` is replaced by a value remembered from an earlier answer.
 */
interface Step {
  method: string;
  path: string;
  body?: unknown;
  status: number;
  /** Remember a member of the answer under a name: `{ userId: 'id' }`. */
  remember?: Record<string, string>;
  /** Members of the answer that must hold these values (dotted paths). */
  expect?: Record<string, unknown>;
}

const entraSequence = (email: string, groupName: string): Step[] => [
  { method: 'GET', path: `/Users?filter=userName+eq+%22${encodeURIComponent(email)}%22`, status: 200, expect: { totalResults: 0 } },
  {
    method: 'POST', path: '/Users', status: 201, remember: { userId: 'id' },
    body: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User', 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User'],
      externalId: 'c0ffee00-entra', userName: email, active: true, displayName: 'Alex Wilber',
      emails: [{ primary: true, type: 'work', value: email }],
      meta: { resourceType: 'User' }, name: { formatted: 'Alex Wilber', familyName: 'Wilber', givenName: 'Alex' },
      title: 'Marketing Assistant', preferredLanguage: 'en-US',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Marketing', employeeNumber: '42' },
    },
    expect: { userName: email, displayName: 'Alex Wilber', 'name.givenName': 'Alex', active: true },
  },
  { method: 'GET', path: '/Users/{{userId}}', status: 200, expect: { externalId: 'c0ffee00-entra' } },
  {
    method: 'GET', path: `/Users?filter=${encodeURIComponent(`emails[type eq "work"].value eq "${email}"`)}`, status: 200,
    expect: { totalResults: 1, 'Resources.0.id': '{{userId}}' },
  },
  {
    method: 'PATCH', path: '/Users/{{userId}}', status: 200,
    body: {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
      Operations: [
        { op: 'Replace', path: 'displayName', value: 'Alex W.' },
        { op: 'Replace', path: 'name.familyName', value: 'W.' },
        { op: 'Add', path: 'emails[type eq "work"].value', value: email },
        { op: 'Replace', path: 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department', value: 'Sales' },
      ],
    },
    expect: { displayName: 'Alex W.', 'name.familyName': 'W.' },
  },
  { method: 'GET', path: `/Groups?excludedAttributes=members&filter=displayName+eq+%22${encodeURIComponent(groupName)}%22`, status: 200, expect: { totalResults: 0 } },
  {
    method: 'POST', path: '/Groups', status: 201, remember: { groupId: 'id' },
    body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], externalId: 'g-entra', displayName: groupName, meta: { resourceType: 'Group' } },
  },
  {
    method: 'PATCH', path: '/Groups/{{groupId}}', status: 204,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Add', path: 'members', value: [{ value: '{{userId}}' }] }] },
  },
  { method: 'GET', path: '/Users/{{userId}}', status: 200, expect: { 'groups.0.display': groupName } },
  {
    method: 'PATCH', path: '/Groups/{{groupId}}', status: 204,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Remove', path: 'members', value: [{ value: '{{userId}}' }] }] },
  },
  {
    method: 'PATCH', path: '/Users/{{userId}}', status: 200,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'Replace', path: 'active', value: 'False' }] },
    expect: { active: false },
  },
  { method: 'DELETE', path: '/Users/{{userId}}', status: 204 },
  { method: 'GET', path: '/Users/{{userId}}', status: 404 },
];

const oktaSequence = (email: string, groupName: string): Step[] => [
  { method: 'GET', path: `/Users?filter=userName%20eq%20%22${encodeURIComponent(email)}%22&startIndex=1&count=100`, status: 200, expect: { totalResults: 0 } },
  {
    method: 'POST', path: '/Users', status: 201, remember: { userId: 'id' },
    body: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: email, name: { givenName: 'Isaac', familyName: 'Brock' },
      emails: [{ primary: true, value: email, type: 'work' }], displayName: 'Isaac Brock', locale: 'en-US', externalId: '00ujl29u0le5T6Aj10h7',
      groups: [], password: '1mz050nq', active: true,
    },
    expect: { displayName: 'Isaac Brock', active: true },
  },
  {
    method: 'PUT', path: '/Users/{{userId}}', status: 200,
    body: {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], id: '{{userId}}', userName: email,
      name: { givenName: 'Isaac', familyName: 'Brock-Smith' }, emails: [{ primary: true, value: email, type: 'work' }],
      displayName: 'Isaac Brock-Smith', active: true,
    },
    expect: { 'name.familyName': 'Brock-Smith' },
  },
  {
    method: 'POST', path: '/Groups', status: 201, remember: { groupId: 'id' },
    body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName: groupName, members: [] },
  },
  {
    method: 'PATCH', path: '/Groups/{{groupId}}', status: 204,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'add', path: 'members', value: [{ value: '{{userId}}', display: email }] }] },
  },
  {
    method: 'PATCH', path: '/Groups/{{groupId}}', status: 204,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'remove', path: 'members[value eq "{{userId}}"]' }] },
  },
  {
    // Okta's group rename: a path-less replace repeating the group's unchanged id.
    method: 'PATCH', path: '/Groups/{{groupId}}', status: 204,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { id: '{{groupId}}', displayName: `${groupName} (renamed)` } }] },
  },
  { method: 'GET', path: '/Groups/{{groupId}}', status: 200, expect: { displayName: `${groupName} (renamed)` } },
  {
    method: 'PATCH', path: '/Users/{{userId}}', status: 200,
    body: { schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'], Operations: [{ op: 'replace', value: { active: false } }] },
    expect: { active: false },
  },
  { method: 'DELETE', path: '/Groups/{{groupId}}', status: 204 },
];

let env: TestEnv;
let secret: string;

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => setScimEnabled(tx, admin, true));
  ({ secret } = await env.ctx.db.transaction((tx) => createScimToken(tx, admin, unique('provider'))));
});

const fill = (value: unknown, memory: Record<string, string>): unknown =>
  JSON.parse(JSON.stringify(value).replace(/\{\{(\w+)\}\}/g, (_, name: string) => memory[name]));

const at = (object: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (value as Record<string, unknown> | undefined)?.[key], object);

async function replay(steps: Step[]): Promise<void> {
  const memory: Record<string, string> = {};
  for (const [index, step] of steps.entries()) {
    const path = fill(step.path, memory) as string;
    const res = await env.request(`/scim/v2${path}`, {
      method: step.method,
      headers: { authorization: `Bearer ${secret}`, ...(step.body ? { 'content-type': 'application/scim+json; charset=utf-8' } : {}) },
      body: step.body ? JSON.stringify(fill(step.body, memory)) : undefined,
    });
    const text = await res.text();
    expect({ step: index, method: step.method, path, status: res.status, body: res.status === step.status ? undefined : text })
      .toEqual({ step: index, method: step.method, path, status: step.status, body: undefined });
    const json = text ? JSON.parse(text) : {};
    for (const [name, member] of Object.entries(step.remember ?? {})) memory[name] = json[member];
    for (const [member, value] of Object.entries(step.expect ?? {})) expect({ step: index, member, value: at(json, member) }).toEqual({ step: index, member, value: fill(value, memory) });
  }
}

describe('identity providers\' request sequences', () => {
  test('Microsoft Entra ID: find, create, update, group membership, deactivate, delete', async () => {
    await replay(entraSequence(`${unique('alexw')}@contoso.example`, unique('Entra Marketing')));
  });

  test('Okta: find, create (with a password it does not keep), replace, group push, deactivate', async () => {
    await replay(oktaSequence(`${unique('isaac')}@okta.example`, unique('Okta Engineering')));
  });
});
