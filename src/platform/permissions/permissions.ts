import { AppError, forbidden } from '../core/errors';

/** Modules as the specification names them; permissions and token scopes are `<module>:<right>`. */
export const MODULES = [
  'risks', 'controls', 'assets', 'businessUnits', 'policies', 'thirdParties', 'incidents', 'projects', 'audits',
  'compliance', 'evidence', 'awareness', 'dataPrivacy', 'accountReviews', 'assessments', 'customFields',
  'settings', 'apiTokens',
] as const;
export type Module = (typeof MODULES)[number];

export const RIGHTS = ['read', 'create', 'update', 'delete', 'review'] as const;
export type Right = (typeof RIGHTS)[number];
export type Level = 'own' | 'all';
export type Permission = `${Module}:${Right}`;

const MODULES_WITH_REVIEW: ReadonlySet<Module> = new Set(['risks', 'compliance', 'policies', 'dataPrivacy']);
const RESTRICTED_RIGHTS: Partial<Record<Module, readonly Right[]>> = {
  settings: ['read', 'create', 'update'],
  apiTokens: ['read', 'create', 'update'],
};

export function rightsOf(module: Module): readonly Right[] {
  const restricted = RESTRICTED_RIGHTS[module];
  if (restricted) return restricted;
  return MODULES_WITH_REVIEW.has(module) ? RIGHTS : RIGHTS.filter((r) => r !== 'review');
}

/** Every permission that exists, in a stable order (scope pickers, the Administrator role, OpenAPI). */
export const ALL_PERMISSIONS: readonly Permission[] = MODULES.flatMap((m) =>
  rightsOf(m).map((r) => `${m}:${r}` as Permission),
);
const KNOWN = new Set<string>(ALL_PERMISSIONS);

/**
 * Holds every right at level all (the Administrator role's). Needed where seeing or choosing something lets one become
 * anyone: the Outbox (it holds password reset links), the identity provider and the directory people sign in with.
 */
export const holdsEveryRight = (actor: { kind: string; rights: ReadonlyMap<Permission, Level> }): boolean =>
  actor.kind === 'system' || ALL_PERMISSIONS.every((permission) => actor.rights.get(permission) === 'all');
export const isPermission = (value: string): value is Permission => KNOWN.has(value);

export type Rights = ReadonlyMap<Permission, Level>;

/** Who is acting, as every service sees it: the same shape from a screen, a token, the CLI or an import. */
export interface Actor {
  kind: 'user' | 'token' | 'system';
  userId: string | null;
  email: string | null;
  groupIds: readonly string[];
  /** The user's current rights through roles and groups. */
  rights: Rights;
  /** For a token: its scopes. A request passes only when scope AND right both hold. */
  tokenId?: string;
  scopes?: ReadonlySet<Permission>;
  /** Door the action came through, written to the Audit Log and History. */
  via: 'screen' | 'api' | 'cli' | 'import' | 'system' | 'mcp' | 'scim' | 'loader';
  /** Extra provenance for History, e.g. "CSV import of risks.csv". */
  source?: string;
  /**
   * The writes are a rehearsal (an import's Check file) in a transaction that is always rolled back: the records are
   * written, so every database rule still answers, but recordChanges leaves out the Audit Log and History entries.
   */
  rehearsal?: boolean;
  /**
   * The time the write is recorded at in the Audit Log and History, instead of now: for the demo loader and tests that
   * write the past (posture at a past date). Honoured only for the system actor, which no user door builds; callers
   * write in ascending time so the chain's times stay in order.
   */
  writtenAt?: Date;
}

/** When a write by this actor is recorded: now, or the system actor's chosen time. */
export const recordedAt = (actor: Actor): Date => (actor.kind === 'system' && actor.writtenAt ? actor.writtenAt : new Date());

export function levelOf(actor: Actor, permission: Permission): Level | null {
  if (actor.kind === 'system') return 'all';
  if (actor.scopes && !actor.scopes.has(permission)) return null;
  return actor.rights.get(permission) ?? null;
}

/** The level the actor holds, or a 403 whose reason says whether the token scope or the user's right is missing. */
export function requirePermission(actor: Actor, permission: Permission): Level {
  if (actor.kind === 'system') return 'all';
  if (actor.scopes && !actor.scopes.has(permission)) throw forbidden(`token scope ${permission} missing`);
  const level = actor.rights.get(permission);
  if (!level) throw forbidden(`${actor.tokenId ? "token creator's" : 'user'} right ${permission} missing`);
  return level;
}

export interface Owned {
  ownerId: string | null;
  ownerGroupId: string | null;
}

export function ownsRecord(actor: Actor, record: Owned): boolean {
  if (actor.userId && record.ownerId === actor.userId) return true;
  return record.ownerGroupId !== null && actor.groupIds.includes(record.ownerGroupId);
}

export function canTouch(actor: Actor, permission: Permission, record: Owned): boolean {
  const level = levelOf(actor, permission);
  return level === 'all' || (level === 'own' && ownsRecord(actor, record));
}

/**
 * A record the actor may not read is reported as not found (its existence is not disclosed);
 * one they may read but not change is a 403.
 */
export function requireOnRecord(actor: Actor, permission: Permission, record: Owned, what: string): void {
  const readPermission = `${permission.split(':')[0]}:read` as Permission;
  if (!canTouch(actor, readPermission, record)) {
    throw new AppError('NOT_FOUND', `${what} not found`, [], `no ${readPermission} on ${what}`);
  }
  const level = requirePermission(actor, permission);
  if (level === 'own' && !ownsRecord(actor, record)) throw forbidden(`${permission} is at level own and ${what} is not owned`);
}

export const systemActor = (via: Actor['via'] = 'system'): Actor => ({
  kind: 'system', userId: null, email: null, groupIds: [], rights: new Map(), via,
});
