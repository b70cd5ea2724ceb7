import { AppError, forbidden } from '../core/errors';

export const RIGHTS = ['read', 'create', 'update', 'delete', 'review'] as const;
export type Right = (typeof RIGHTS)[number];
export type Level = 'own' | 'all';

/**
 * A permission area (`<module>:<right>`, the token scopes too) as the module owning it declares it in its manifest:
 * its name and its rights. `permissionArea('risks', { review: true })`; `rights` for an area with fewer (settings).
 */
export interface PermissionArea<A extends string = string> {
  readonly name: A;
  readonly rights: readonly Right[];
}

export const permissionArea = <const A extends string>(name: A, options: { review?: boolean; rights?: readonly Right[] } = {}): PermissionArea<A> => ({
  name,
  rights: options.rights ?? (options.review ? RIGHTS : RIGHTS.filter((r) => r !== 'review')),
});

/**
 * The areas the specification names, in its order: the permission list follows it. Reserved: an area here that no
 * installed module declares (assessments, until its module lands) keeps read, create, update and delete, so roles
 * and tokens naming it stay valid. Nothing else is kept here: an area's rights come from the manifest declaring it,
 * and a module's area outside this list is added after it, in module order (docs/adding-a-module.md).
 */
export const SPECIFICATION_AREAS = [
  'risks', 'controls', 'assets', 'businessUnits', 'policies', 'thirdParties', 'incidents', 'projects', 'audits',
  'compliance', 'evidence', 'awareness', 'dataPrivacy', 'accountReviews', 'assessments', 'customFields',
  'settings', 'apiTokens',
] as const;

/**
 * The areas the installed modules declare, filled in by the module list (`src/modules/index.ts` augments this
 * interface from its manifests' literal areas), so the types below know a module's area without the platform
 * importing it.
 */
export interface InstalledAreas {}

/** A permission area: the specification's and the installed modules'. */
export type Module = (typeof SPECIFICATION_AREAS)[number] | Extract<keyof InstalledAreas, string>;
export type Permission = `${Module}:${Right}`;

let areas: readonly PermissionArea<Module>[] = [];

/** Every permission area, in a stable order: the specification's, then the installed modules' own (filled at start). */
export let MODULES: readonly Module[] = [];
/** Every permission that exists, in a stable order (scope pickers, the Administrator role, OpenAPI). */
export let ALL_PERMISSIONS: readonly Permission[] = [];
let known: ReadonlySet<string> = new Set();

/**
 * Called by `installModules` with the installed modules' declarations (before any route or schema naming permissions
 * is made). Two modules may share an area (people and labels: settings) only with the same rights.
 */
export function installPermissionAreas(declared: readonly PermissionArea<Module>[]): void {
  const byName = new Map<Module, PermissionArea<Module>>();
  for (const area of declared) {
    const other = byName.get(area.name);
    if (other && other.rights.join() !== area.rights.join()) throw new Error(`permission area ${area.name} is declared with different rights`);
    byName.set(area.name, area);
  }
  const order: Module[] = [...SPECIFICATION_AREAS, ...byName.keys()];
  areas = [...new Set(order)].map((name) => byName.get(name) ?? permissionArea(name));
  MODULES = areas.map((a) => a.name);
  ALL_PERMISSIONS = areas.flatMap((a) => a.rights.map((r): Permission => `${a.name}:${r}`));
  known = new Set(ALL_PERMISSIONS);
}
installPermissionAreas([]);

export function rightsOf(module: Module): readonly Right[] {
  return areas.find((a) => a.name === module)?.rights ?? [];
}

/**
 * Holds every right at level all (the Administrator role's). Needed where seeing or choosing something lets one become
 * anyone: the Outbox (it holds password reset links), the identity provider and the directory people sign in with.
 */
export const holdsEveryRight = (actor: { kind: string; rights: ReadonlyMap<Permission, Level> }): boolean =>
  actor.kind === 'system' || ALL_PERMISSIONS.every((permission) => actor.rights.get(permission) === 'all');
export const isPermission = (value: string): value is Permission => known.has(value);

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
