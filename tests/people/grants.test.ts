import { beforeAll, describe, expect, test } from 'bun:test';
import { and, eq, like } from 'drizzle-orm';
import { groupRoles, groups, referenceSeeds, rolePermissions, roles } from '../../db/schema';
import type { DbOrTx } from '../../db/client';
import { sessionIdOf, startSession } from '../../src/platform/http/sessions';
import { ADMINISTRATORS_GROUP, ADMINISTRATOR_ROLE, applyReferenceData } from '../../src/platform/modules/reference-data';
import { assignRoleToGroup, addGroupMember, createPasswordResetLink, createRole, endSession, removeGroupMember, removeRoleFromGroup, setUserPassword, setUserStatus, updateRole, updateUser } from '../../src/modules/people/service';
import { resetTwoFactor } from '../../src/modules/people/two-factor/service';
import { loadUserRightsByEmail } from '../../src/modules/people/rights';
import { ADMIN_EMAIL } from '../helpers/app';
import { ALL_PERMISSIONS, systemActor } from '../../src/platform/permissions/permissions';
import { AppError } from '../../src/platform/core/errors';
import { startTestEnv, testEnv, type TestEnv } from '../helpers/app';
import { LAST_ADMINISTRATOR } from '../../src/modules/people/sign-in/break-glass';
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

  test('nor takes over or locks out an account holding more: its password, reset link, e-mail, second factor and deactivation need every right it holds', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:create': 'all', 'settings:update': 'all', 'risks:read': 'own' });
    const actor = await manager.actor();
    const stronger = await makeUser(env, { 'risks:delete': 'all' });
    const administrator = (await loadUserRightsByEmail(env.ctx.db, ADMIN_EMAIL))!.userId;
    const attempts = (userId: string) => ({
      'reset link': () => env.ctx.db.transaction((tx) => createPasswordResetLink(tx, actor, userId, 'http://localhost')),
      password: () => env.ctx.db.transaction((tx) => setUserPassword(tx, actor, userId, 'another long enough password')),
      'e-mail': () => env.ctx.db.transaction((tx) => updateUser(tx, actor, userId, { name: 'Taken over', email: `${unique('mine')}@attacker.example` })),
      'second factor': () => env.ctx.db.transaction((tx) => resetTwoFactor(tx, actor, userId)),
      deactivation: () => env.ctx.db.transaction((tx) => setUserStatus(tx, actor, userId, 'deactivated')),

    });
    for (const userId of [stronger.id, administrator]) {
      for (const [what, attempt] of Object.entries(attempts(userId))) {
        const refused = await refusal(attempt);
        expect(refused?.code, what).toBe('FORBIDDEN');
        expect(refused?.deniedReason, what).toContain('rights beyond your own');
      }
    }
    // Nor bring back such an account once deactivated.
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), stronger.id, 'deactivated'));
    const back = await refusal(() => env.ctx.db.transaction((tx) => setUserStatus(tx, actor, stronger.id, 'active')));
    expect(back?.deniedReason).toContain('rights beyond your own');
    await env.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), stronger.id, 'active'));
    // Within their rights, and the name of anyone, they can still change.
    const peer = await makeUser(env, { 'risks:read': 'own' });
    expect((await env.ctx.db.transaction((tx) => createPasswordResetLink(tx, actor, peer.id, 'http://localhost'))).link).toContain('/reset-password/');
    await env.ctx.db.transaction((tx) => updateUser(tx, actor, peer.id, { name: 'Renamed', email: `${unique('peer')}@test.example` }));
    await env.ctx.db.transaction((tx) => updateUser(tx, actor, stronger.id, { name: 'Renamed too', email: stronger.email }));
  });

  test('the built-in Administrator role is given every right, also one added after its database was made', async () => {
    const [role] = await env.ctx.db.select({ id: roles.id }).from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
    const newest = ALL_PERMISSIONS[ALL_PERMISSIONS.length - 1];
    // As a database made before that right existed would be.
    await env.ctx.db.delete(rolePermissions).where(and(eq(rolePermissions.roleId, role.id), eq(rolePermissions.permission, newest)));
    await env.ctx.db.delete(referenceSeeds).where(like(referenceSeeds.key, 'administrator-every-right:%'));
    expect((await applyReferenceData(env.ctx.db)).some((key) => key.startsWith('administrator-every-right:'))).toBe(true);
    const held = await env.ctx.db.select().from(rolePermissions).where(eq(rolePermissions.roleId, role.id));
    expect(held.filter((g) => g.level === 'all').map((g) => g.permission).sort()).toEqual([...ALL_PERMISSIONS].sort());
  });

  test('nor strips one who holds more: removing them from a group, taking its role, emptying the role, or ending their session is refused', async () => {
    const manager = await makeUser(env, { 'settings:read': 'all', 'settings:create': 'all', 'settings:update': 'all' });
    const actor = await manager.actor();
    const admin = await adminActor(env);
    const stronger = await makeUser(env, { 'risks:delete': 'all' });
    const [{ roleId }] = await env.ctx.db.select({ roleId: groupRoles.roleId }).from(groupRoles).where(eq(groupRoles.groupId, stronger.groupId));
    const [administrators] = await env.ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
    const administrator = (await loadUserRightsByEmail(env.ctx.db, ADMIN_EMAIL))!.userId;
    const session = await env.ctx.db.transaction((tx) => startSession(tx, administrator, ADMIN_EMAIL, 1, {}));
    const attempts: Record<string, (tx: DbOrTx) => Promise<void>> = {
      'leave a group': (tx) => removeGroupMember(tx, actor, stronger.groupId, stronger.id),
      'leave Administrators': (tx) => removeGroupMember(tx, actor, administrators.id, administrator),
      'lose a role': (tx) => removeRoleFromGroup(tx, actor, stronger.groupId, roleId),
      'an emptied role': (tx) => updateRole(tx, actor, roleId, { name: unique('emptied'), permissions: [] }),
      'a session ended': (tx) => endSession(tx, actor, sessionIdOf(session.secret)),
    };
    for (const [what, attempt] of Object.entries(attempts)) {
      const refused = await refusal(() => env.ctx.db.transaction((tx) => attempt(tx)));
      expect(refused?.code, what).toBe('FORBIDDEN');
    }
    // An administrator still can.
    await env.ctx.db.transaction((tx) => endSession(tx, admin, sessionIdOf(session.secret)));
  });

  test('the last active administrator stays: leaving Administrators or deactivation is refused (409), whoever asks', async () => {
    const own = await startTestEnv();
    try {
      const admin = await adminActor(own);
      const [administrators] = await own.ctx.db.select({ id: groups.id }).from(groups).where(eq(groups.name, ADMINISTRATORS_GROUP));
      const left = await refusal(() => own.ctx.db.transaction((tx) => removeGroupMember(tx, admin, administrators.id, admin.userId!)));
      expect(left?.status).toBe(409);
      expect(left?.message).toBe(LAST_ADMINISTRATOR);
      const gone = await refusal(() => own.ctx.db.transaction((tx) => setUserStatus(tx, systemActor(), admin.userId!, 'deactivated')));
      expect(gone?.message).toBe(LAST_ADMINISTRATOR);
      // With a second administrator, the first may leave.
      const second = await makeUser(own, {});
      await own.ctx.db.transaction((tx) => addGroupMember(tx, admin, administrators.id, second.id));
      await own.ctx.db.transaction((tx) => removeGroupMember(tx, admin, administrators.id, admin.userId!));
    } finally {
      await own.ctx.close();
    }
  });
});

