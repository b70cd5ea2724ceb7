import { t, type Static } from 'elysia';
import { ALL_PERMISSIONS } from '../../platform/permissions/permissions';
import { stringEnum } from '../../platform/http/schema-helpers';

export const Email = t.String({ format: 'email', maxLength: 254, description: 'Sign-in address; unique, case-insensitive' });
export const Password = t.String({ minLength: 12, maxLength: 200, description: 'At least 12 characters' });

export const UserCreate = t.Object({
  email: Email,
  name: t.String({ minLength: 1, maxLength: 200 }),
  password: t.Optional(Password),
  groupIds: t.Optional(t.Array(t.String({ format: 'uuid' }))),
});
export type UserCreate = Static<typeof UserCreate>;

export const UserUpdate = t.Object({
  email: Email,
  name: t.String({ minLength: 1, maxLength: 200 }),
});
export type UserUpdate = Static<typeof UserUpdate>;

export const UserView = t.Object({
  id: t.String(),
  email: t.String(),
  name: t.String(),
  status: t.Union([t.Literal('active'), t.Literal('deactivated')]),
  createdAt: t.String(),
});
export type UserView = Static<typeof UserView>;

export const GroupCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 120 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
});
export type GroupCreate = Static<typeof GroupCreate>;

export const PermissionGrant = t.Object({
  permission: stringEnum(ALL_PERMISSIONS),
  level: t.Union([t.Literal('own'), t.Literal('all')]),
});
export const RoleCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 120 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  permissions: t.Array(PermissionGrant),
});
export type RoleCreate = Static<typeof RoleCreate>;
