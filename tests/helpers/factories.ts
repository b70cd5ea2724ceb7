import { eq } from 'drizzle-orm';
import { riskClassifications } from '../../db/schema';
import { createToken } from '../../src/modules/apiTokens/service';
import { loadUserRights, userActor } from '../../src/modules/people/rights';
import { addGroupMember, assignRoleToGroup, createGroup, createRole, createUser } from '../../src/modules/people/service';
import { createRisk } from '../../src/modules/risks/service';
import type { RiskCreate } from '../../src/modules/risks/schema';
import type { Actor, Level, Permission } from '../../src/platform/permissions/permissions';
import { systemActor } from '../../src/platform/permissions/permissions';
import type { TestEnv } from './app';
import { ADMIN_EMAIL } from './app';

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export interface TestUser {
  id: string;
  email: string;
  groupId: string;
  password: string;
  actor(via?: Actor['via']): Promise<Actor>;
}

/** A user in a group of their own whose role grants exactly `rights`. */
export async function makeUser(env: TestEnv, rights: Partial<Record<Permission, Level>>, name = unique('user')): Promise<TestUser> {
  const system = systemActor();
  const email = `${name}@test.example`;
  const password = 'a long enough password';
  return env.ctx.db.transaction(async (tx) => {
    const { id: roleId } = await createRole(tx, system, {
      name: unique('role'),
      permissions: Object.entries(rights).map(([permission, level]) => ({ permission: permission as Permission, level: level as Level })),
    });
    const { id: groupId } = await createGroup(tx, system, { name: unique('group') });
    await assignRoleToGroup(tx, system, groupId, roleId);
    const { id } = await createUser(tx, system, { email, name, password });
    await addGroupMember(tx, system, groupId, id);
    return {
      id, email, groupId, password,
      actor: async (via: Actor['via'] = 'screen') => userActor((await loadUserRights(env.ctx.db, id))!, via),
    };
  });
}

export async function adminActor(env: TestEnv): Promise<Actor> {
  const { loadUserRightsByEmail } = await import('../../src/modules/people/rights');
  return userActor((await loadUserRightsByEmail(env.ctx.db, ADMIN_EMAIL))!, 'screen');
}

export async function makeToken(env: TestEnv, actor: Actor, scopes: Permission[], name = unique('token')): Promise<string> {
  const { secret } = await env.ctx.db.transaction((tx) => createToken(tx, actor, { name, scopes }));
  return secret;
}

export async function classificationId(env: TestEnv, name = 'Operational'): Promise<string> {
  const [row] = await env.ctx.db.select({ id: riskClassifications.id }).from(riskClassifications).where(eq(riskClassifications.name, name));
  return row.id;
}

export async function makeRisk(env: TestEnv, actor: Actor, overrides: Partial<RiskCreate> = {}): Promise<string> {
  const input: RiskCreate = {
    title: unique('Risk'), classificationId: await classificationId(env), inherentLikelihood: 3, inherentImpact: 4, ...overrides,
  };
  const { id } = await env.ctx.db.transaction((tx) => createRisk(tx, actor, input));
  return id;
}

export const bearer = (secret: string, init: RequestInit = {}): RequestInit => ({
  ...init,
  headers: { authorization: `Bearer ${secret}`, ...(init.body ? { 'content-type': 'application/json' } : {}), ...init.headers },
});
