import { t, type Static } from 'elysia';
import { ALL_PERMISSIONS } from '../../platform/permissions/permissions';
import { stringEnum } from '../../platform/http/schema-helpers';
import { once } from '../../platform/core/once';

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

/** A role's grants name the installed permission areas, so the shape is made once the modules are installed. */
export const roleCreateSchema = once(() => t.Object({
  name: t.String({ minLength: 1, maxLength: 120 }),
  description: t.Optional(t.String({ maxLength: 2000 })),
  permissions: t.Array(t.Object({
    permission: stringEnum(ALL_PERMISSIONS),
    level: t.Union([t.Literal('own'), t.Literal('all')]),
  })),
}));
export type RoleCreate = Static<ReturnType<typeof roleCreateSchema>>;
