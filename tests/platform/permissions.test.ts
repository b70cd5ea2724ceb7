import { describe, expect, test } from 'bun:test';
import { PgDialect } from 'drizzle-orm/pg-core';
import { projects } from '../../db/schema';
import { AppError } from '../../src/platform/core/errors';
import { ownershipCondition, requireOwnLevelKeepsOwnership } from '../../src/platform/permissions/ownership';
import {
  ALL_PERMISSIONS, canTouch, holdsEveryRight, isPermission, levelOf, MODULES, ownsRecord, requireOnRecord, requirePermission, rightsOf,
  systemActor, type Actor, type Level, type Permission,
} from '../../src/platform/permissions/permissions';

// The rules every service decides with, without a database: who holds which level, who owns a record, and why a
// refusal is a 403 or a 404. The same rules met through the API: tests/platform/ownership.test.ts.

const ME = '00000000-0000-4000-8000-000000000001';
const SOMEONE = '00000000-0000-4000-8000-000000000002';
const MY_GROUP = '00000000-0000-4000-8000-0000000000a1';
const OTHER_GROUP = '00000000-0000-4000-8000-0000000000b2';

const user = (rights: Partial<Record<Permission, Level>>, extra: Partial<Actor> = {}): Actor => ({
  kind: 'user', userId: ME, email: 'me@test.example', groupIds: [MY_GROUP], rights: new Map(Object.entries(rights) as [Permission, Level][]),
  via: 'api', ...extra,
});

/** What a call threw, as the HTTP layer sees it. */
function refusal(run: () => unknown): { code: string; message: string; deniedReason?: string } | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return { code: error.code, message: error.message, ...(error.deniedReason !== undefined ? { deniedReason: error.deniedReason } : {}) };
  }
}

describe('the list of permissions', () => {
  test('review exists only for risks, compliance, policies and data privacy; settings and tokens have no delete', () => {
    expect(rightsOf('risks')).toEqual(['read', 'create', 'update', 'delete', 'review']);
    expect(rightsOf('controls')).toEqual(['read', 'create', 'update', 'delete']);
    expect(rightsOf('settings')).toEqual(['read', 'create', 'update']);
    expect(rightsOf('apiTokens')).toEqual(['read', 'create', 'update']);
    expect(MODULES.filter((module) => rightsOf(module).includes('review'))).toEqual(['risks', 'policies', 'compliance', 'dataPrivacy']);
    // four rights each, three for settings and API tokens, plus review on four modules
    expect(ALL_PERMISSIONS).toHaveLength((MODULES.length - 2) * 4 + 2 * 3 + 4);
    expect(ALL_PERMISSIONS.slice(0, 5)).toEqual(['risks:read', 'risks:create', 'risks:update', 'risks:delete', 'risks:review']);
    expect(isPermission('controls:delete')).toBe(true);
    expect(isPermission('controls:review')).toBe(false);
    expect(isPermission('settings:delete')).toBe(false);
  });

  test('every right at level all is what holds every right; one right at level own is not', () => {
    const all = new Map(ALL_PERMISSIONS.map((p) => [p, 'all' as Level]));
    expect(holdsEveryRight(user({}, { rights: all }))).toBe(true);
    expect(holdsEveryRight(user({}, { rights: new Map(all).set('risks:read', 'own') }))).toBe(false);
    const missingOne = new Map(all);
    missingOne.delete('apiTokens:update');
    expect(holdsEveryRight(user({}, { rights: missingOne }))).toBe(false);
    expect(holdsEveryRight(systemActor())).toBe(true);
  });
});

describe('levels: a token needs its scope and its creator the right', () => {
  test('a user holds the level their roles give, nothing for a right they lack', () => {
    const actor = user({ 'risks:read': 'all', 'risks:update': 'own' });
    expect(levelOf(actor, 'risks:read')).toBe('all');
    expect(levelOf(actor, 'risks:update')).toBe('own');
    expect(levelOf(actor, 'risks:delete')).toBeNull();
    expect(requirePermission(actor, 'risks:update')).toBe('own');
    expect(refusal(() => requirePermission(actor, 'risks:delete'))).toEqual({ code: 'FORBIDDEN', message: 'forbidden', deniedReason: 'user right risks:delete missing' });
  });

  test('a token passes only with the scope and the right, and the refusal says which is missing', () => {
    const token = user({ 'risks:read': 'all', 'risks:update': 'all' }, { kind: 'token', tokenId: 'tok-1', scopes: new Set<Permission>(['risks:read', 'risks:delete']) });
    expect(levelOf(token, 'risks:read')).toBe('all');
    expect(levelOf(token, 'risks:update')).toBeNull();
    expect(levelOf(token, 'risks:delete')).toBeNull();
    expect(refusal(() => requirePermission(token, 'risks:update'))).toMatchObject({ code: 'FORBIDDEN', deniedReason: 'token scope risks:update missing' });
    expect(refusal(() => requirePermission(token, 'risks:delete'))).toMatchObject({ code: 'FORBIDDEN', deniedReason: "token creator's right risks:delete missing" });
  });

  test('the system acts at level all on everything, with no rights of its own', () => {
    const system = systemActor('cli');
    expect(system).toEqual({ kind: 'system', userId: null, email: null, groupIds: [], rights: new Map(), via: 'cli' });
    expect(systemActor().via).toBe('system');
    expect(levelOf(system, 'settings:update')).toBe('all');
    expect(requirePermission(system, 'settings:update')).toBe('all');
  });
});

describe('ownership: a record is owned by its owner and by the members of its owner group', () => {
  const actor = user({ 'projects:read': 'own', 'projects:update': 'own', 'projects:delete': 'all' });

  test('owned by me, by my group, or by both', () => {
    expect(ownsRecord(actor, { ownerId: ME, ownerGroupId: null })).toBe(true);
    expect(ownsRecord(actor, { ownerId: null, ownerGroupId: MY_GROUP })).toBe(true);
    expect(ownsRecord(actor, { ownerId: SOMEONE, ownerGroupId: MY_GROUP })).toBe(true);
    expect(ownsRecord(actor, { ownerId: ME, ownerGroupId: OTHER_GROUP })).toBe(true);
  });

  test('not owned: someone else with another group, another group alone, or nobody', () => {
    expect(ownsRecord(actor, { ownerId: SOMEONE, ownerGroupId: OTHER_GROUP })).toBe(false);
    expect(ownsRecord(actor, { ownerId: null, ownerGroupId: OTHER_GROUP })).toBe(false);
    expect(ownsRecord(actor, { ownerId: SOMEONE, ownerGroupId: null })).toBe(false);
    expect(ownsRecord(actor, { ownerId: null, ownerGroupId: null })).toBe(false);
    // The system has no user id: a record without an owner is not "owned" by a null id.
    expect(ownsRecord(systemActor(), { ownerId: null, ownerGroupId: null })).toBe(false);
    expect(ownsRecord(user({}, { userId: null, groupIds: [] }), { ownerId: null, ownerGroupId: OTHER_GROUP })).toBe(false);
  });

  test('canTouch: level all touches every record, level own only owned ones, no level none', () => {
    const theirs = { ownerId: SOMEONE, ownerGroupId: OTHER_GROUP };
    const ours = { ownerId: null, ownerGroupId: MY_GROUP };
    expect(canTouch(actor, 'projects:delete', theirs)).toBe(true);
    expect(canTouch(actor, 'projects:update', ours)).toBe(true);
    expect(canTouch(actor, 'projects:update', theirs)).toBe(false);
    expect(canTouch(actor, 'projects:create', ours)).toBe(false);
  });
});

describe('requireOnRecord: not readable is 404, readable but not changeable is 403', () => {
  const theirs = { ownerId: SOMEONE, ownerGroupId: OTHER_GROUP };
  const mine = { ownerId: ME, ownerGroupId: null };

  test('a record the actor may not read is not found, and the audited reason names the read right', () => {
    const actor = user({ 'projects:read': 'own', 'projects:update': 'all' });
    expect(refusal(() => requireOnRecord(actor, 'projects:update', theirs, 'Project 42'))).toEqual({
      code: 'NOT_FOUND', message: 'Project 42 not found', deniedReason: 'no projects:read on Project 42',
    });
  });

  test('readable, but the right is at level own and the record is not owned: 403 saying so', () => {
    const actor = user({ 'projects:read': 'all', 'projects:update': 'own' });
    expect(refusal(() => requireOnRecord(actor, 'projects:update', theirs, 'Project 42'))).toEqual({
      code: 'FORBIDDEN', message: 'forbidden', deniedReason: 'projects:update is at level own and Project 42 is not owned',
    });
    expect(refusal(() => requireOnRecord(actor, 'projects:update', mine, 'Project 42'))).toBeUndefined();
  });

  test('readable without the right at all: 403 naming the missing right', () => {
    const actor = user({ 'projects:read': 'all' });
    expect(refusal(() => requireOnRecord(actor, 'projects:delete', mine, 'Project 42'))).toMatchObject({
      code: 'FORBIDDEN', deniedReason: 'user right projects:delete missing',
    });
  });

  test('level all passes on any record; reading needs only the read right', () => {
    const actor = user({ 'projects:read': 'all', 'projects:update': 'all' });
    expect(refusal(() => requireOnRecord(actor, 'projects:update', theirs, 'Project 42'))).toBeUndefined();
    expect(refusal(() => requireOnRecord(user({ 'projects:read': 'own' }), 'projects:read', mine, 'Project 42'))).toBeUndefined();
  });
});

describe('ownership in lists and writes', () => {
  const dialect = new PgDialect();
  const where = (actor: Actor) => {
    const condition = ownershipCondition(actor, 'projects:read', projects.ownerId, projects.ownerGroupId);
    return condition && dialect.sqlToQuery(condition);
  };

  test('level all adds no condition; no right at all is a 403', () => {
    expect(where(user({ 'projects:read': 'all' }))).toBeUndefined();
    expect(refusal(() => where(user({})))).toMatchObject({ code: 'FORBIDDEN', deniedReason: 'user right projects:read missing' });
  });

  test('level own: owned by me or by one of my groups', () => {
    const query = where(user({ 'projects:read': 'own' }, { groupIds: [MY_GROUP, OTHER_GROUP] }))!;
    expect(query.sql).toBe('("projects"."owner_id" = $1 or "projects"."owner_group_id" in ($2, $3))');
    expect(query.params).toEqual([ME, MY_GROUP, OTHER_GROUP]);
  });

  test('level own without groups, or without a user id, keeps only the part that applies; with neither, nothing', () => {
    const mineOnly = where(user({ 'projects:read': 'own' }, { groupIds: [] }))!;
    expect({ sql: mineOnly.sql, params: mineOnly.params }).toEqual({ sql: '"projects"."owner_id" = $1', params: [ME] });
    const groupOnly = where(user({ 'projects:read': 'own' }, { userId: null }))!;
    expect({ sql: groupOnly.sql, params: groupOnly.params }).toEqual({ sql: '"projects"."owner_group_id" in ($1)', params: [MY_GROUP] });
    const nothing = where(user({ 'projects:read': 'own' }, { userId: null, groupIds: [] }))!;
    expect(nothing.sql).toBe('false');
  });

  test('at level own a record must stay owned by the actor or their groups', () => {
    const actor = user({ 'projects:create': 'own' });
    expect(refusal(() => requireOwnLevelKeepsOwnership(actor, 'projects:create', 'own', { ownerId: SOMEONE, ownerGroupId: null }))).toEqual({
      code: 'FORBIDDEN', message: 'forbidden',
      deniedReason: 'projects:create is at level own: the record must be owned by you or one of your groups',
    });
    expect(refusal(() => requireOwnLevelKeepsOwnership(actor, 'projects:create', 'own', { ownerId: null, ownerGroupId: MY_GROUP }))).toBeUndefined();
    expect(refusal(() => requireOwnLevelKeepsOwnership(actor, 'projects:create', 'all', { ownerId: SOMEONE, ownerGroupId: null }))).toBeUndefined();
  });
});
