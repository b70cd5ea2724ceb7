import { eq, sql } from 'drizzle-orm';
import { createHash } from 'node:crypto';
import type { Db, DbOrTx } from '../../../db/client';
import {
  groups, referenceSeeds, riskBands, riskClassifications, riskImpactLevels, riskLikelihoodLevels,
  riskScaleCells, rolePermissions, roles,
} from '../../../db/schema';
import { ALL_PERMISSIONS, MODULES, rightsOf, type Permission } from '../permissions/permissions';

export const ADMINISTRATOR_ROLE = 'Administrator';
export const ADMINISTRATORS_GROUP = 'Administrators';

const readAll = (exclude: string[] = []) =>
  MODULES.filter((m) => !exclude.includes(m)).map((m) => ({ permission: `${m}:read` as Permission, level: 'all' as const }));
const registerModules = () => MODULES.filter((m) => m !== 'settings' && m !== 'apiTokens');

/** Built-in roles. None but Administrator holds API token rights (spec: only administrators issue tokens by default). */
const builtInRoles = (): { name: string; description: string; permissions: { permission: Permission; level: 'own' | 'all' }[] }[] => [
  {
    name: ADMINISTRATOR_ROLE,
    description: 'Every permission at level all.',
    permissions: ALL_PERMISSIONS.map((permission) => ({ permission, level: 'all' })),
  },
  {
    name: 'Risk Manager',
    description: 'Runs the risk register; reads everything else.',
    permissions: [
      ...readAll(['apiTokens', 'settings', 'risks']),
      ...rightsOf('risks').map((r) => ({ permission: `risks:${r}` as Permission, level: 'all' as const })),
    ],
  },
  {
    name: 'Contributor',
    description: 'Reads every register; creates and updates the records they or their groups own.',
    permissions: registerModules().flatMap((m) => [
      { permission: `${m}:read` as Permission, level: 'all' as const },
      { permission: `${m}:create` as Permission, level: 'own' as const },
      { permission: `${m}:update` as Permission, level: 'own' as const },
    ]),
  },
  { name: 'Auditor', description: 'Reads every register.', permissions: readAll(['apiTokens', 'settings']) },
];

const LIKELIHOOD = ['Rare', 'Unlikely', 'Possible', 'Likely', 'Almost certain'];
const IMPACT = ['Insignificant', 'Minor', 'Moderate', 'Major', 'Severe'];
const BANDS = [
  { name: 'Low', minScore: 1, maxScore: 4, color: '#2e7d32' },
  { name: 'Medium', minScore: 5, maxScore: 9, color: '#f9a825' },
  { name: 'High', minScore: 10, maxScore: 16, color: '#ef6c00' },
  { name: 'Critical', minScore: 17, maxScore: 25, color: '#c62828' },
];
const CLASSIFICATIONS = ['Strategic', 'Operational', 'Financial', 'Compliance', 'Information security'];

/**
 * Each seed runs once per database (recorded in reference_seeds), so a restart never re-adds what an administrator
 * removed and never changes what exists. Inserts use ON CONFLICT DO NOTHING so they cannot clash with user data.
 */
/** Made when applied: the permission list is the installed modules'. */
const seeds = (): { key: string; apply: (tx: DbOrTx) => Promise<void> }[] => [
  {
    key: 'roles-v1',
    apply: async (tx) => {
      for (const role of builtInRoles()) {
        await tx.insert(roles).values({ name: role.name, description: role.description, builtIn: true }).onConflictDoNothing();
        const [row] = await tx.select({ id: roles.id }).from(roles).where(eq(roles.name, role.name));
        await tx.insert(rolePermissions).values(role.permissions.map((p) => ({ roleId: row.id, ...p }))).onConflictDoNothing();
      }
    },
  },
  {
    // The built-in Administrator role holds every right, also rights added after a database was made (whoever may
    // change sign-in settings or read the Outbox must hold every right). Keyed by the list, so a new right runs it again.
    key: `administrator-every-right:${createHash('sha256').update(ALL_PERMISSIONS.join(',')).digest('hex').slice(0, 16)}`,
    apply: async (tx) => {
      const [row] = await tx.select({ id: roles.id }).from(roles).where(eq(roles.name, ADMINISTRATOR_ROLE));
      if (!row) return;
      await tx.insert(rolePermissions).values(ALL_PERMISSIONS.map((permission) => ({ roleId: row.id, permission, level: 'all' as const })))
        .onConflictDoNothing();
    },
  },
  {
    key: 'administrators-group-v1',
    apply: async (tx) => {
      await tx.insert(groups).values({ name: ADMINISTRATORS_GROUP, description: 'Holds the Administrator role.' }).onConflictDoNothing();
      await tx.execute(sql`insert into group_roles (group_id, role_id)
        select g.id, r.id from groups g, roles r where g.name = ${ADMINISTRATORS_GROUP} and r.name = ${ADMINISTRATOR_ROLE}
        on conflict do nothing`);
    },
  },
  {
    key: 'risk-scale-5x5-v1',
    apply: async (tx) => {
      const [{ count }] = await tx.select({ count: sql<number>`count(*)::int` }).from(riskLikelihoodLevels);
      if (count > 0) return;
      await tx.insert(riskLikelihoodLevels).values(LIKELIHOOD.map((name, i) => ({ value: i + 1, name })));
      await tx.insert(riskImpactLevels).values(IMPACT.map((name, i) => ({ value: i + 1, name })));
      await tx.insert(riskScaleCells).values(
        LIKELIHOOD.flatMap((_, l) => IMPACT.map((__, i) => ({ likelihood: l + 1, impact: i + 1, score: (l + 1) * (i + 1) }))),
      );
      await tx.insert(riskBands).values(BANDS).onConflictDoNothing();
    },
  },
  {
    key: 'risk-classifications-v1',
    apply: async (tx) => {
      await tx.insert(riskClassifications).values(CLASSIFICATIONS.map((name) => ({ name }))).onConflictDoNothing();
    },
  },
];

export async function applyReferenceData(db: Db): Promise<string[]> {
  const applied: string[] = [];
  for (const seed of seeds()) {
    await db.transaction(async (tx) => {
      const inserted = await tx.insert(referenceSeeds).values({ key: seed.key }).onConflictDoNothing().returning();
      if (inserted.length === 0) return;
      await seed.apply(tx);
      applied.push(seed.key);
    });
  }
  return applied;
}

