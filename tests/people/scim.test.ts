import { beforeAll, describe, expect, test } from 'bun:test';
import { and, desc, eq } from 'drizzle-orm';
import SCIMMY from 'scimmy';
import { scimPatch, type ScimPatchOperation } from 'scim-patch';
import { auditLog, sessions } from '../../db/schema';
import { createScimToken, setScimEnabled } from '../../src/modules/people/scim/service';
import { applyPatch } from '../../src/modules/people/scim/patch';
import { ADMIN_EMAIL, ADMIN_PASSWORD, testEnv, type TestEnv } from '../helpers/app';
import { signedInBrowser } from '../helpers/browser';
import { adminActor, bearer, makeToken, unique } from '../helpers/factories';

let env: TestEnv;
let secret: string;
let tokenId: string;

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';

beforeAll(async () => {
  env = await testEnv();
  const admin = await adminActor(env);
  await env.ctx.db.transaction((tx) => setScimEnabled(tx, admin, true));
  ({ secret, id: tokenId } = await env.ctx.db.transaction((tx) => createScimToken(tx, admin, unique('Entra ID'))));
});

type Json = Record<string, any>;

async function scim(method: string, path: string, body?: unknown, token = secret): Promise<{ status: number; json: Json; headers: Headers }> {
  const res = await env.request(`/scim/v2${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, json: text ? JSON.parse(text) : {}, headers: res.headers };
}

const newUser = (userName = `${unique('person')}@scim.example`, extra: Json = {}) => ({
  schemas: [USER], userName, name: { givenName: 'Pat', familyName: 'Lee' }, emails: [{ value: userName, type: 'work', primary: true }], active: true, ...extra,
});

async function createUser(extra: Json = {}, userName?: string): Promise<Json> {
  const res = await scim('POST', '/Users', newUser(userName, extra));
  expect(res.status).toBe(201);
  return res.json;
}

const patch = (...Operations: Json[]) => ({ schemas: [PATCH_OP], Operations });

describe('SCIM switch and tokens', () => {
  test('while provisioning is off the SCIM address answers 404 in SCIM\'s error schema', async () => {
    const admin = await adminActor(env);
    await env.ctx.db.transaction((tx) => setScimEnabled(tx, admin, false));
    try {
      const res = await scim('GET', '/Users');
      expect(res.status).toBe(404);
      expect(res.json.schemas).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
      expect(res.headers.get('content-type')).toContain('application/scim+json');
    } finally {
      await env.ctx.db.transaction((tx) => setScimEnabled(tx, admin, true));
    }
  });

  test('an API token is refused on SCIM and a SCIM token on the REST API, both 401 and audited', async () => {
    const apiToken = await makeToken(env, await adminActor(env), ['risks:read']);
    const onScim = await scim('GET', '/Users', undefined, apiToken);
    expect(onScim.status).toBe(401);
    expect(onScim.headers.get('www-authenticate')).toContain('Bearer');
    const onApi = await env.request('/api/v1/risks', bearer(secret));
    expect(onApi.status).toBe(401);
    const denials = await env.ctx.db.select().from(auditLog).where(eq(auditLog.action, 'permission.denied')).orderBy(desc(auditLog.seq)).limit(10);
    const reasons = denials.map((d) => (d.details as Json).reason);
    expect(reasons).toContain('an API token cannot be used on the SCIM address');
    expect(reasons).toContain('a SCIM token cannot be used on the REST API');
  });

  test('a missing, unknown or revoked SCIM token is refused', async () => {
    expect((await env.request('/scim/v2/Users')).status).toBe(401);
    expect((await scim('GET', '/Users', undefined, 'scim_nonsense')).status).toBe(401);
    const admin = await adminActor(env);
    const other = await env.ctx.db.transaction((tx) => createScimToken(tx, admin, unique('revoked')));
    expect((await scim('GET', '/Users?count=1', undefined, other.secret)).status).toBe(200);
    const { revokeScimToken } = await import('../../src/modules/people/scim/service');
    await env.ctx.db.transaction((tx) => revokeScimToken(tx, admin, other.id));
    expect((await scim('GET', '/Users?count=1', undefined, other.secret)).status).toBe(401);
  });

  test('discovery documents describe users, groups, filtering and PATCH', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.status).toBe(200);
    expect(config.json.patch.supported).toBe(true);
    expect(config.json.filter).toEqual({ supported: true, maxResults: 1000 });
    const types = await scim('GET', '/ResourceTypes');
    expect(types.json.Resources.map((r: Json) => r.id)).toEqual(['User', 'Group']);
    const schemas = await scim('GET', '/Schemas');
    expect(schemas.json.Resources.map((r: Json) => r.id)).toEqual([USER, GROUP]);
    const user = await scim('GET', `/Schemas/${USER}`);
    expect(user.json.attributes.find((a: Json) => a.name === 'userName')).toMatchObject({ required: true, uniqueness: 'server', caseExact: false });
    expect((await scim('GET', '/Schemas/urn:nothing')).status).toBe(404);
  });

  test('Settings › Provisioning: an administrator turns SCIM on and makes a token shown once', async () => {
    const admin = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const page = await (await admin.get('/settings/provisioning')).text();
    expect(page).toContain('/scim/v2');
    const name = unique('Okta');
    const created = await admin.post('/settings/provisioning/tokens', { name });
    expect(created.status).toBe(201);
    const html = await created.text();
    const shown = /class="secret">(scim_[\w-]+)</.exec(html)?.[1];
    expect(shown).toBeDefined();
    expect((await scim('GET', '/Users?count=1', undefined, shown)).status).toBe(200);
    expect(await (await admin.get('/settings/provisioning')).text()).not.toContain(shown!);
    const refused = await admin.post('/settings/provisioning/tokens', { name: '' });
    expect(refused.status).toBe(400);
  });
});

describe('SCIM users', () => {
  test('POST creates a user with Location and meta; a second POST of the same userName is 409 uniqueness', async () => {
    const userName = `${unique('ann')}@scim.example`;
    const res = await scim('POST', '/Users', newUser(userName, { externalId: 'ext-1', displayName: 'Ann Example' }));
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toBe(`http://localhost/scim/v2/Users/${res.json.id}`);
    expect(res.json).toMatchObject({ userName, displayName: 'Ann Example', externalId: 'ext-1', active: true, name: { givenName: 'Pat', familyName: 'Lee' } });
    expect(res.json.meta).toMatchObject({ resourceType: 'User', location: `http://localhost/scim/v2/Users/${res.json.id}` });
    const again = await scim('POST', '/Users', newUser(userName.toUpperCase()));
    expect(again.status).toBe(409);
    expect(again.json.scimType).toBe('uniqueness');
  });

  test('every change is audited as SCIM with the token', async () => {
    const user = await createUser();
    const [entry] = await env.ctx.db.select().from(auditLog)
      .where(and(eq(auditLog.recordId, user.id), eq(auditLog.action, 'create')));
    expect(entry).toMatchObject({ via: 'scim', actorTokenId: tokenId, module: 'settings', recordType: 'user' });
  });

  test('setting active to false ends the user\'s sessions and stops their API tokens at once', async () => {
    const { setUserPassword } = await import('../../src/modules/people/service');
    const { assignRoleToGroup, addGroupMember, createGroup, createRole } = await import('../../src/modules/people/service');
    const { loadUserRights, userActor } = await import('../../src/modules/people/rights');
    const { systemActor } = await import('../../src/platform/permissions/permissions');
    const user = await createUser();
    const system = systemActor();
    await env.ctx.db.transaction(async (tx) => {
      await setUserPassword(tx, system, user.id, 'a long enough password');
      const { id: roleId } = await createRole(tx, system, { name: unique('role'), permissions: [{ permission: 'risks:read', level: 'all' }, { permission: 'apiTokens:create', level: 'own' }] });
      const { id: groupId } = await createGroup(tx, system, { name: unique('group') });
      await assignRoleToGroup(tx, system, groupId, roleId);
      await addGroupMember(tx, system, groupId, user.id);
    });
    await signedInBrowser(env, user.userName, 'a long enough password');
    const token = await makeToken(env, userActor((await loadUserRights(env.ctx.db, user.id))!, 'api'), ['risks:read']);
    expect((await env.request('/api/v1/risks?pageSize=1', bearer(token))).status).toBe(200);
    expect((await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).length).toBe(1);

    // Entra ID writes booleans as strings.
    const res = await scim('PATCH', `/Users/${user.id}`, patch({ op: 'Replace', path: 'active', value: 'False' }));
    expect(res.status).toBe(200);
    expect(res.json.active).toBe(false);
    expect((await env.ctx.db.select().from(sessions).where(eq(sessions.userId, user.id))).length).toBe(0);
    expect((await env.request('/api/v1/risks?pageSize=1', bearer(token))).status).toBe(401);
    const back = await scim('PATCH', `/Users/${user.id}`, patch({ op: 'replace', value: { active: true } }));
    expect(back.json.active).toBe(true);
    expect((await env.request('/api/v1/risks?pageSize=1', bearer(token))).status).toBe(200);
  });

  test('PUT replaces the user\'s attributes; a userName taken by another user is 409', async () => {
    const user = await createUser();
    const other = await createUser();
    const res = await scim('PUT', `/Users/${user.id}`, { schemas: [USER], userName: user.userName, displayName: 'Renamed Person', active: true });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ displayName: 'Renamed Person', userName: user.userName });
    expect(res.json.name.givenName).toBeUndefined();
    const clash = await scim('PUT', `/Users/${user.id}`, { schemas: [USER], userName: other.userName });
    expect(clash.status).toBe(409);
    expect(clash.json.scimType).toBe('uniqueness');
  });

  test('DELETE removes the user from SCIM (404 after), deactivated; provisioning the userName again brings it back', async () => {
    const user = await createUser();
    expect((await scim('DELETE', `/Users/${user.id}`)).status).toBe(204);
    expect((await scim('GET', `/Users/${user.id}`)).status).toBe(404);
    expect((await scim('DELETE', `/Users/${user.id}`)).status).toBe(404);
    const list = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${user.userName}"`)}`);
    expect(list.json.totalResults).toBe(0);
    const again = await scim('POST', '/Users', newUser(user.userName));
    expect(again.status).toBe(201);
    expect(again.json.id).toBe(user.id);
    expect(again.json.active).toBe(true);
  });

  test('attributes and excludedAttributes shape what comes back; id and schemas always do', async () => {
    const user = await createUser();
    const only = await scim('GET', `/Users/${user.id}?attributes=userName,name.givenName`);
    expect(Object.keys(only.json).sort()).toEqual(['id', 'name', 'schemas', 'userName']);
    expect(only.json.name).toEqual({ givenName: 'Pat' });
    const without = await scim('GET', `/Users/${user.id}?excludedAttributes=emails,meta,id`);
    expect(without.json.emails).toBeUndefined();
    expect(without.json.meta).toBeUndefined();
    expect(without.json.id).toBe(user.id);
  });

  test('bad input answers SCIM errors: unknown attribute, non-e-mail userName, malformed JSON, bad paging', async () => {
    const unknown = await scim('POST', '/Users', newUser(undefined, { favouriteColour: 'blue' }));
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ scimType: 'invalidSyntax', status: '400' });
    expect(unknown.json.detail).toContain('favouriteColour');
    const enterprise = await scim('POST', '/Users', newUser(undefined, {
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User': { department: 'Finance' }, title: 'Analyst', preferredLanguage: 'en',
    }));
    expect(enterprise.status).toBe(201);
    expect((await scim('POST', '/Users', newUser('not-an-address'))).json.scimType).toBe('invalidValue');
    const malformed = await scim('POST', '/Users', '{"userName":');
    expect(malformed.status).toBe(400);
    expect(malformed.json.scimType).toBe('invalidSyntax');
    expect((await scim('GET', '/Users?startIndex=abc')).status).toBe(400);
    expect((await scim('GET', '/Users/not-a-uuid')).status).toBe(404);
  });
});

describe('SCIM filters', () => {
  const run = unique('f');
  const domain = `${run}.example`;
  let resources: Json[];

  beforeAll(async () => {
    const people = [
      { userName: `ann@${domain}`, name: { givenName: 'Ann', familyName: 'Archer' }, externalId: 'A-1', active: true },
      { userName: `bob@${domain}`, name: { givenName: 'Bob', familyName: 'Baker' }, externalId: 'B-2', active: false },
      { userName: `cyd@${domain}`, name: { givenName: 'Cyd', familyName: 'Archer' }, active: true },
      { userName: `dee@${domain}`, name: { givenName: 'Dee' }, externalId: 'D-4', active: true },
    ];
    resources = [];
    for (const person of people) {
      const res = await scim('POST', '/Users', { schemas: [USER], ...person });
      expect(res.status).toBe(201);
      resources.push(res.json);
    }
  });

  const FILTERS = [
    'userName eq "ann@DOMAIN"',
    'userName ne "ann@DOMAIN"',
    'userName sw "b"',
    'userName co "yd@"',
    'name.familyName eq "Archer"',
    'name.givenName pr',
    'name.familyName pr',
    'externalId pr',
    'externalId eq "B-2"',
    'active eq false',
    'not (active eq false)',
    'name.familyName eq "Archer" and active eq true',
    'externalId eq "A-1" or externalId eq "D-4"',
    'emails[type eq "work" and value sw "c"]',
    'emails.value eq "dee@DOMAIN"',
    '(name.familyName eq "Archer" or name.givenName eq "Dee") and active eq true',
    'meta.lastModified gt "2000-01-01T00:00:00Z"',
    'meta.created lt "2000-01-01T00:00:00Z"',
  ];

  for (const template of FILTERS) {
    test(`${template} matches what SCIMMY's filter matches`, async () => {
      const filter = template.replaceAll('DOMAIN', domain);
      const scoped = `(${filter}) and userName ew "@${domain}"`;
      const res = await scim('GET', `/Users?count=100&filter=${encodeURIComponent(scoped)}`);
      expect(res.status).toBe(200);
      const expected = new SCIMMY.Types.Filter(filter).match(resources).map((r: Json) => r.userName).sort();
      expect(res.json.Resources.map((r: Json) => r.userName).sort()).toEqual(expected);
      expect(res.json.totalResults).toBe(expected.length);
    });
  }

  // Cases SCIMMY's matcher gets wrong (a "not" after "and") or does not read (URN-prefixed paths), checked by hand.
  test('a "not" group after "and", and URN-prefixed attribute paths', async () => {
    const names = async (filter: string) =>
      (await scim('GET', `/Users?filter=${encodeURIComponent(`(${filter}) and userName ew "@${domain}"`)}`)).json.Resources.map((r: Json) => r.userName.split('@')[0]).sort();
    expect(await names('(name.familyName eq "Archer" or name.givenName eq "Dee") and not (userName sw "cyd")')).toEqual(['ann', 'dee']);
    expect(await names(`urn:ietf:params:scim:schemas:core:2.0:User:userName eq "bob@${domain}"`)).toEqual(['bob']);
    expect((await scim('GET', `/Users?filter=${encodeURIComponent('urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "x"')}`)).status).toBe(400);
  });

  test('startIndex and count page the results with an exact total', async () => {
    const filter = encodeURIComponent(`userName ew "@${domain}"`);
    const first = await scim('GET', `/Users?filter=${filter}&startIndex=1&count=3`);
    const second = await scim('GET', `/Users?filter=${filter}&startIndex=4&count=3`);
    expect(first.json).toMatchObject({ totalResults: 4, startIndex: 1, itemsPerPage: 3 });
    expect(second.json).toMatchObject({ totalResults: 4, startIndex: 4, itemsPerPage: 1 });
    const totalOnly = await scim('GET', `/Users?filter=${filter}&count=0`);
    expect(totalOnly.json).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
  });

  const MALFORMED = ['userName eq', 'userName bad "x"', '(userName eq "a"', 'userName eq x', 'nosuch eq "a"', 'active eq "yes"', 'meta.created gt "not a date"', 'emails[type eq "work"', 'userName eq "a" and'];
  for (const filter of MALFORMED) {
    test(`"${filter}" is refused with 400 invalidFilter`, async () => {
      const res = await scim('GET', `/Users?filter=${encodeURIComponent(filter)}`);
      expect(res.status).toBe(400);
      expect(res.json.scimType).toBe('invalidFilter');
    });
  }
});

describe('SCIM PATCH', () => {
  const base: Json = {
    schemas: [USER], id: '2819c223-7f76-453a-919d-413861904646', userName: 'kim@example.com', displayName: 'Kim Park',
    name: { formatted: 'Kim Park', givenName: 'Kim', familyName: 'Park' },
    emails: [{ value: 'kim@example.com', type: 'work', primary: true }, { value: 'kim@home.example', type: 'home' }],
    active: true,
  };
  const schema = { core: USER.toLowerCase(), multiValued: new Set(['emails']), readOnly: new Set(['id', 'meta']) };

  const CASES: [string, Json[]][] = [
    ['replace a simple attribute', [{ op: 'replace', path: 'displayName', value: 'Kim P.' }]],
    ['replace a sub-attribute', [{ op: 'replace', path: 'name.givenName', value: 'Kimberly' }]],
    ['replace without a path', [{ op: 'replace', value: { displayName: 'K', active: false } }]],
    ['add a sub-attribute', [{ op: 'add', path: 'name.middleName', value: 'J' }]],
    ['remove a sub-attribute', [{ op: 'remove', path: 'name.familyName' }]],
    ['remove a simple attribute', [{ op: 'remove', path: 'displayName' }]],
    ['replace the value of a filtered element', [{ op: 'replace', path: 'emails[type eq "work"].value', value: 'kim@new.example' }]],
    ['remove filtered elements', [{ op: 'remove', path: 'emails[type eq "home"]' }]],
    ['add an element to a multi-valued attribute', [{ op: 'add', path: 'emails', value: [{ value: 'k@other.example', type: 'other' }] }]],
    ['replace a whole multi-valued attribute', [{ op: 'replace', path: 'emails', value: [{ value: 'only@example.com', type: 'work' }] }]],
    ['several operations in order', [{ op: 'replace', path: 'displayName', value: 'A' }, { op: 'replace', path: 'displayName', value: 'B' }, { op: 'remove', path: 'name.givenName' }]],
  ];

  for (const [name, operations] of CASES) {
    test(`${name}: the same result as scim-patch`, () => {
      const ours = applyPatch(base, operations as never, schema);
      const theirs = scimPatch(structuredClone(base) as never, operations as ScimPatchOperation[]);
      expect(ours).toEqual(theirs as unknown as Json);
    });
  }

  test('over HTTP, a PATCH of stored attributes answers the patched user and keeps it', async () => {
    const user = await createUser({ displayName: 'Before' });
    const ops = [{ op: 'replace', path: 'name.familyName', value: 'After' }, { op: 'replace', path: 'displayName', value: 'After Name' }, { op: 'add', path: 'externalId', value: 'ext-9' }];
    const res = await scim('PATCH', `/Users/${user.id}`, patch(...ops));
    expect(res.status).toBe(200);
    const expected = scimPatch(structuredClone(user) as never, ops as ScimPatchOperation[]) as unknown as Json;
    expect(res.json).toMatchObject({ displayName: expected.displayName, externalId: expected.externalId, name: { familyName: expected.name.familyName } });
    expect((await scim('GET', `/Users/${user.id}`)).json.displayName).toBe('After Name');
  });

  test('bad PATCH bodies: invalid path, unknown op, remove without a path, a read-only attribute, the wrong schema', async () => {
    const user = await createUser();
    const cases: [Json, string][] = [
      [patch({ op: 'replace', path: 'emails[type eq', value: 'x' }), 'invalidPath'],
      [patch({ op: 'move', path: 'displayName', value: 'x' }), 'invalidSyntax'],
      [patch({ op: 'remove' }), 'noTarget'],
      [patch({ op: 'replace', path: 'id', value: 'x' }), 'invalidPath'],
      [patch({ op: 'replace', path: 'nosuch', value: 'x' }), 'invalidSyntax'],
      [{ schemas: ['wrong'], Operations: [{ op: 'replace', path: 'displayName', value: 'x' }] }, 'invalidSyntax'],
    ];
    for (const [body, scimType] of cases) {
      const res = await scim('PATCH', `/Users/${user.id}`, body);
      expect({ status: res.status, scimType: res.json.scimType }).toEqual({ status: 400, scimType });
    }
    expect((await scim('GET', `/Users/${user.id}`)).json.displayName).toBe(user.displayName);
  });
});

describe('SCIM groups', () => {
  test('a group is created with members, which it lists; users list their groups', async () => {
    const [a, b] = [await createUser(), await createUser()];
    const res = await scim('POST', '/Groups', { schemas: [GROUP], displayName: unique('Finance'), externalId: 'g-1', members: [{ value: a.id }, { value: b.id }] });
    expect(res.status).toBe(201);
    expect(res.json.members.map((m: Json) => m.value).sort()).toEqual([a.id, b.id].sort());
    const user = await scim('GET', `/Users/${a.id}`);
    expect(user.json.groups).toEqual([expect.objectContaining({ value: res.json.id, display: res.json.displayName })]);
    const byMember = await scim('GET', `/Groups?filter=${encodeURIComponent(`members[value eq "${b.id}"]`)}&excludedAttributes=members`);
    expect(byMember.json.Resources.map((g: Json) => g.id)).toEqual([res.json.id]);
    expect(byMember.json.Resources[0].members).toBeUndefined();
    const dup = await scim('POST', '/Groups', { schemas: [GROUP], displayName: res.json.displayName });
    expect(dup.status).toBe(409);
    expect(dup.json.scimType).toBe('uniqueness');
    const badMember = await scim('POST', '/Groups', { schemas: [GROUP], displayName: unique('G'), members: [{ value: crypto.randomUUID() }] });
    expect(badMember.status).toBe(400);
  });

  test('members join a group that gives rights here (the token acts with its creator\'s rights, not only its settings scopes)', async () => {
    const { assignRoleToGroup, createRole } = await import('../../src/modules/people/service');
    const admin = await adminActor(env);
    const person = await createUser();
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: unique('Risk owners') })).json;
    await env.ctx.db.transaction(async (tx) => {
      const { id: roleId } = await createRole(tx, admin, { name: unique('Risk owner'), permissions: [{ permission: 'risks:update', level: 'all' }] });
      await assignRoleToGroup(tx, admin, group.id, roleId);
    });
    expect((await scim('PATCH', `/Groups/${group.id}`, patch({ op: 'add', path: 'members', value: [{ value: person.id }] }))).status).toBe(204);
    expect((await scim('GET', `/Groups/${group.id}`)).json.members.map((m: Json) => m.value)).toEqual([person.id]);
  });

  test('provisioning does not make administrators: no member joins a group holding the Administrator role, no administrator\'s userName changes', async () => {
    const person = await createUser();
    const admins = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Administrators"')}&excludedAttributes=members`);
    const adminsId = admins.json.Resources[0].id;
    const refused = await scim('PATCH', `/Groups/${adminsId}`, patch({ op: 'add', path: 'members', value: [{ value: person.id }] }));
    expect(refused.status).toBe(403);
    expect(refused.json.detail).toContain('Administrator role');
    expect((await scim('GET', `/Groups/${adminsId}`)).json.members.map((m: Json) => m.value)).not.toContain(person.id);
    const administrator = (await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${ADMIN_EMAIL}"`)}`)).json.Resources[0];
    const moved = await scim('PATCH', `/Users/${administrator.id}`, patch({ op: 'replace', path: 'userName', value: `${unique('mine')}@attacker.example` }));
    expect(moved.status).toBe(403);
    expect((await scim('GET', `/Users/${administrator.id}`)).json.userName).toBe(ADMIN_EMAIL);
  });

  test('members are added and removed by PATCH, each audited; the built-in Administrators group cannot be deleted', async () => {
    const [a, b, c] = [await createUser(), await createUser(), await createUser()];
    const group = (await scim('POST', '/Groups', { schemas: [GROUP], displayName: unique('Ops'), members: [{ value: a.id }] })).json;
    expect((await scim('PATCH', `/Groups/${group.id}`, patch({ op: 'add', path: 'members', value: [{ value: b.id }, { value: c.id }] }))).status).toBe(204);
    expect((await scim('PATCH', `/Groups/${group.id}`, patch({ op: 'remove', path: `members[value eq "${a.id}"]` }))).status).toBe(204);
    // Entra ID's form of removal: a value list on the members path.
    expect((await scim('PATCH', `/Groups/${group.id}`, patch({ op: 'Remove', path: 'members', value: [{ value: b.id }] }))).status).toBe(204);
    const now = await scim('GET', `/Groups/${group.id}`);
    expect(now.json.members.map((m: Json) => m.value)).toEqual([c.id]);
    const changes = await env.ctx.db.select().from(auditLog).where(and(eq(auditLog.recordId, group.id), eq(auditLog.via, 'scim')));
    expect(changes.map((e) => e.action).sort()).toEqual(['create', 'member.add', 'member.add', 'member.add', 'member.remove', 'member.remove'].sort());
    const renamed = await scim('PATCH', `/Groups/${group.id}?attributes=displayName`, patch({ op: 'replace', value: { displayName: `${group.displayName} renamed` } }));
    expect(renamed.status).toBe(200);
    expect(renamed.json.displayName).toBe(`${group.displayName} renamed`);
    expect((await scim('DELETE', `/Groups/${group.id}`)).status).toBe(204);
    expect((await scim('GET', `/Groups/${group.id}`)).status).toBe(404);
    const admins = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Administrators"')}&excludedAttributes=members`);
    expect((await scim('DELETE', `/Groups/${admins.json.Resources[0].id}`)).status).toBe(409);
  });
});

describe('SCIM request size', () => {
  test('a body over 1 MB is refused 413 in the SCIM error schema, before it is read, and creates nobody', async () => {
    const userName = `${unique('huge')}@scim.example`;
    const res = await scim('POST', '/Users', newUser(userName, { displayName: 'x'.repeat(1_100_000) }));
    expect(res.status).toBe(413);
    expect(res.headers.get('content-type')).toContain('application/scim+json');
    expect(res.json).toEqual({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '413', detail: 'SCIM request bodies are limited to 1 MB' });
    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);
    expect(found.json.totalResults).toBe(0);
  });
});
