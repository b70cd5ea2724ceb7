import type { AnyElysia } from 'elysia';
import type { TObject } from '@sinclair/typebox';
import type { SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db/client';
import type { Config } from '../config';
import type { AppContext } from './context';
import type { UploadLimit } from './screen-limits';
import type { ImportType } from './csv/import-type';
import type { Actor, Module, Permission } from './permissions';
import type { DueDateKind, RecordEvents } from './notifications/declarations';

/**
 * What the platform needs from a module, in one typed value per module (`src/modules/<module>/index.ts`), listed
 * once in `src/modules/index.ts`. The app, the navigation, the CSV imports, custom fields and counted tables are
 * derived from that list; nothing in `src/platform` imports a module. See docs/adding-a-module.md.
 */

/** Groups of the side navigation, in the order they are shown. */
export const NAV_GROUPS = ['Overview', 'Risk', 'Compliance', 'Governance', 'Assets and vendors', 'Operations', 'Settings'] as const;
export type NavGroup = (typeof NAV_GROUPS)[number];

export interface NavEntry {
  group: NavGroup;
  /** Marks the entry current: screens pass it as their layout's `active`. */
  key: string;
  label: string;
  href: string;
  /** The right that shows the entry (at any level, or only at level all when `level` says so). */
  needs: Permission;
  level?: 'all';
}

/**
 * A record type the search covers (src/platform/search.ts): where its id, title, text and owner are, and its screen.
 * `title` must be the expression whose trigram index the search migration makes (db/migrations/0026_search.sql).
 */
export interface SearchSource {
  kind: string;
  /** Heading of its group on the results page: 'Risks'. */
  label: string;
  /** Its read right: results need `<module>:read`, own level included. */
  module: Module;
  from: PgTable;
  join?: { table: PgTable; on: SQL };
  id: PgColumn;
  title: SQL;
  body: SQL;
  /** The stored tsvector of title and text (the search migration's `search_vector` column). */
  vector: SQL;
  ownerId: PgColumn;
  ownerGroupId: PgColumn;
  href(id: string): string;
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
  listUsers(db: DbOrTx): Promise<{ id: string; name: string; status: string }[]>;
  listGroups(db: DbOrTx): Promise<{ id: string; name: string }[]>;
}

export interface ModuleManifest {
  /** The module's folder under src/modules. */
  name: string;
  /** The permission module its rights and token scopes are named after (`risks:read`); none for exceptions, whose rights are their parent's. */
  permissions?: Module;
  /** REST routes and screens. Order does not matter: the platform registers CSV imports before any `/:id` route. */
  plugins(ctx: AppContext): AnyElysia[];
  /** CSV import types (templates, checks, imports and current-records downloads under `/<area>/import`). */
  imports?: readonly ImportType[];
  nav?: readonly NavEntry[];
  /** The module's records take custom fields (Settings › Custom fields). */
  customFields?: boolean;
  /** Tables whose row-count triggers keep exact list totals (db/migrations/0018_row_count_triggers.sql and later). */
  countedTables?: readonly string[];
  searchSources?: readonly SearchSource[];
  services?: Partial<PlatformServices>;
  /** Routes taking files beyond the usual request limits (evidence uploads), with their own limit and 413 message. */
  uploads?(config: Config): readonly UploadLimit[];
  /**
   * Sections this module adds to other modules' record pages, by their record type (evidence lists what proves a
   * control). Rendered by the register kit's detail page and by pages that call recordSections.
   */
  recordSections?: Readonly<Record<string, RecordSection>>;
  /** Tools the module offers AI assistants on /api/mcp (the assistant module serves them). */
  assistantTools?: readonly AssistantTool[];
  /** Record types whose changes notification rules can mail about (Settings › Notifications; docs/notifications.md). */
  events?: readonly RecordEvents[];
  /** Dates the daily reminder sweep reminds owners of, one set-based query per kind (docs/notifications.md). */
  dueDates?: readonly DueDateKind[];
}

/**
 * One tool of the AI-assistant endpoint: its input is the module's own TypeBox schema (served as the tool's JSON
 * Schema and checked before `run`), and `run` calls the module's services as the assistant's user.
 */
export interface AssistantTool {
  name: string;
  title: string;
  description: string;
  input: TObject;
  /** Reads only (MCP readOnlyHint); a writing tool may still say it never removes anything. */
  readOnly: boolean;
  destructive?: boolean;
  /** `call.origin`: the address the assistant reached the service at (for links it hands to the user). */
  run(ctx: AppContext, actor: Actor, args: Record<string, unknown>, call: { origin: string }): Promise<unknown>;
}

/** Every installed module's search sources. */
export const searchSources = (): SearchSource[] => installed.flatMap((m) => [...(m.searchSources ?? [])]);

/** Every installed module's record types that notification rules can name. */
export const recordEvents = (): RecordEvents[] => installed.flatMap((m) => [...(m.events ?? [])]);

/** Every installed module's kinds of fixed reminder. */
export const dueDateKinds = (): DueDateKind[] => installed.flatMap((m) => [...(m.dueDates ?? [])]);

/** Every installed module's assistant tools. */
export const assistantTools = (): AssistantTool[] => installed.flatMap((m) => [...(m.assistantTools ?? [])]);

export type RecordSection = (ctx: AppContext, recordId: string, viewer: Actor, csrfToken: string) => Promise<JSX.Element | null>;

/** Every installed module's sections for a record page of `recordType`, rendered in module order. */
export async function recordSections(ctx: AppContext, recordType: string, recordId: string, viewer: Actor, csrfToken: string): Promise<string[]> {
  const sections = installed.flatMap((m) => (m.recordSections?.[recordType] ? [m.recordSections[recordType]] : []));
  const rendered = await Promise.all(sections.map((section) => section(ctx, recordId, viewer, csrfToken)));
  return rendered.filter((s): s is string => s !== null);
}

/** Upload limits every installed module declares. */
export const uploadLimits = (config: Config): UploadLimit[] => installed.flatMap((m) => [...(m.uploads?.(config) ?? [])]);

export const defineModule = (manifest: ModuleManifest): ModuleManifest => manifest;

let installed: readonly ModuleManifest[] = [];

/** Called once by the app with the module list; the platform reads what it needs from here. */
export function installModules(modules: readonly ModuleManifest[]): void {
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`module ${m.name} is listed twice`);
    names.add(m.name);
  }
  installed = modules;
}

export const installedModules = (): readonly ModuleManifest[] => installed;

/** The installed module's implementation of a platform service; a clear failure when no module provides it. */
export function platformService<K extends keyof PlatformServices>(name: K): PlatformServices[K] {
  const provider = installed.find((m) => m.services?.[name]);
  if (!provider) throw new Error(`no installed module provides ${name}: the app installs src/modules/index.ts (src/app.ts)`);
  return provider.services![name]!;
}

/** The side navigation: every installed module's entries, grouped in NAV_GROUPS order. */
export function navigation(): { group: NavGroup; entries: NavEntry[] }[] {
  const entries = installed.flatMap((m) => m.nav ?? []);
  return NAV_GROUPS.map((group) => ({ group, entries: entries.filter((e) => e.group === group) })).filter((g) => g.entries.length > 0);
}

export const countedTables = (): string[] => installed.flatMap((m) => [...(m.countedTables ?? [])]);

/** What a module's records are called on the screens: its first navigation entry's label ('Third parties'). */
export const moduleLabel = (module: string): string =>
  installed.find((m) => m.permissions === module)?.nav?.[0]?.label ?? module;

export const customFieldModules = (): Module[] => installed.flatMap((m) => (m.customFields && m.permissions ? [m.permissions] : []));
