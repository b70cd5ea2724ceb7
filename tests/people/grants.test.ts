import { beforeAll, describe, expect, test } from 'bun:test';
import { assignRoleToGroup, addGroupMember, createRole } from '../../src/modules/people/service';
import { AppError } from '../../src/platform/errors';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeUser, unique } from '../helpers/factories';

let env: TestEnv;
beforeAll(async () => {
  env = await testEnv();
});

const refusal = async (work: () => Promise<unknown>) => {
  try {
    await work();
    return null;
  } catch (error) {
    return error instanceof AppError ? error : null;
  }
};

describe('nobody grants more than they hold', () => {
  test('a settings manager cannot create a role, give a role, or join a group beyond their own rights', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:create': 'all', 'settings:update': 'all', 'risks:read': 'own' });
    const actor = await manager.actor();

    const tooMuch = await refusal(() => env.ctx.db.transaction((tx) =>
      createRole(tx, actor, { name: unique('escalate'), permissions: [{ permission: 'apiTokens:create', level: 'all' }] })));
    expect(tooMuch?.code).toBe('FORBIDDEN');
    const higherLevel = await refusal(() => env.ctx.db.transaction((tx) =>
      createRole(tx, actor, { name: unique('escalate'), permissions: [{ permission: 'risks:read', level: 'all' }] })));
    expect(higherLevel?.code).toBe('FORBIDDEN');
    const within = await env.ctx.db.transaction((tx) =>
      createRole(tx, actor, { name: unique('fine'), permissions: [{ permission: 'risks:read', level: 'own' }] }));
    expect(within.id).toBeString();

    const admin = await adminActor(env);
    const strong = await env.ctx.db.transaction((tx) =>
      createRole(tx, admin, { name: unique('strong'), permissions: [{ permission: 'risks:delete', level: 'all' }] }));
    expect((await refusal(() => env.ctx.db.transaction((tx) => assignRoleToGroup(tx, actor, manager.groupId, strong.id))))?.code).toBe('FORBIDDEN');

    const adminGroup = (await makeUser(env, { 'risks:delete': 'all' })).groupId;
    expect((await refusal(() => env.ctx.db.transaction((tx) => addGroupMember(tx, actor, adminGroup, manager.id))))?.code).toBe('FORBIDDEN');
  });
});
