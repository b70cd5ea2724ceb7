import type { Db, DbOrTx } from '../../../db/client';
import type { Config } from '../../config';
import type { Actor, Module, Permission, PermissionArea } from '../permissions/permissions';
import type { UploadLimit } from './screen-limits';

/**
 * What the installed modules hand the layers below the manifests (navigation, the people and token services, counted
 * tables, custom field modules, upload limits). `installModules` (src/platform/modules/module.ts) fills it once at start;
 * these layers read it here, so none of them imports the manifest and its types (no import circle through it).
 */

/** Groups of the side navigation, in the order they are shown. */
export const NAV_GROUPS = ['Overview', 'Risk', 'Compliance', 'Governance', 'Assets and vendors', 'Operations', 'Privacy', 'Settings'] as const;
export type NavGroup = (typeof NAV_GROUPS)[number];

export interface NavEntry {
  group: NavGroup;
  /** Marks the entry current: screens pass it as their layout's `active`. */
  key: string;
  label: string;
  href: string;
  /** The right that shows the entry (at any level, or only at level all when `level` says so); absent: every signed-in person (the Dashboard). */
  needs?: Permission;
  level?: 'all';
}

/** What the platform asks of the people and token modules, provided through their manifests. */
export interface PlatformServices {
  /** The actor of a bearer API token; throws 401 when it is not a valid one. */
  authenticateToken(db: DbOrTx, secret: string): Promise<Actor>;
  /** The actor of a signed-in user on the screens; null when the user is gone or deactivated. */
  screenActor(db: DbOrTx, userId: string): Promise<Actor | null>;
  /** Creates the first administrator on an empty database (the generated password when none was configured). */
  ensureFirstAdministrator(db: Db, email: string, password?: string): Promise<{ generatedPassword?: string }>;
  /** People pickers. */
  listUsers(db: DbOrTx): Promise<{ id: string; name: string; email: string; status: string }[]>;
  listGroups(db: DbOrTx): Promise<{ id: string; name: string }[]>;
}

/** One installed module as the lower layers see it. */
export interface InstalledParts<A extends string = Module> {
  name: string;
  /** The module's permission area and its rights (`permissionArea`), when it has one; modules may share one (settings). */
  permissions?: PermissionArea<A>;
  nav?: readonly NavEntry[];
  customFields?: boolean;
  countedTables?: readonly string[];
  services?: Partial<PlatformServices>;
  uploads?(config: Config): readonly UploadLimit[];
  /** The OpenAPI tags the module's REST operations are grouped under, each with the description the document shows. */
  apiTags?: Readonly<Record<string, string>>;
}

let parts: readonly InstalledParts[] = [];

export function installParts(modules: readonly InstalledParts[]): void {
  parts = modules;
}

/** The installed module's implementation of a platform service; a clear failure when no module provides it. */
export function platformService<K extends keyof PlatformServices>(name: K): PlatformServices[K] {
  const provider = parts.find((m) => m.services?.[name]);
  if (!provider) throw new Error(`no installed module provides ${name}: the app installs src/modules/index.ts (src/app.ts)`);
  return provider.services![name]!;
}

/** The side navigation: every installed module's entries, grouped in NAV_GROUPS order. */
export function navigation(): { group: NavGroup; entries: NavEntry[] }[] {
  const entries = parts.flatMap((m) => m.nav ?? []);
  return NAV_GROUPS.map((group) => ({ group, entries: entries.filter((e) => e.group === group) })).filter((g) => g.entries.length > 0);
}

export const countedTables = (): string[] => parts.flatMap((m) => [...(m.countedTables ?? [])]);

export const customFieldModules = (): Module[] => parts.flatMap((m) => (m.customFields && m.permissions ? [m.permissions.name] : []));

/** What a module's records are called on the screens: its first navigation entry's label ('Third parties'). */
export const moduleLabel = (module: string): string => parts.find((m) => m.permissions?.name === module)?.nav?.[0]?.label ?? module;

/** Permission areas whose first screen does not name them: settings (shared by people and labels), privacy. */
const AREA_LABELS: Readonly<Record<string, string>> = { settings: 'Settings', dataPrivacy: 'Privacy' };

/** A permission area as people read it in rights and scopes: 'Risks', 'Settings'. */
export const areaLabel = (area: string): string => AREA_LABELS[area] ?? moduleLabel(area);

/** Every installed module's OpenAPI tags with their descriptions, in module order. */
export const apiTags = (): { name: string; description: string }[] =>
  parts.flatMap((m) => Object.entries(m.apiTags ?? {}).map(([name, description]) => ({ name, description })));

/** Upload limits every installed module declares. */
export const uploadLimits = (config: Config): UploadLimit[] => parts.flatMap((m) => [...(m.uploads?.(config) ?? [])]);
