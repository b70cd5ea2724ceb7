import type { AnyElysia } from 'elysia';
import type { DbOrTx } from '../../../db/client';
import type { AppContext } from '../http/context';
import { installParts, type InstalledParts } from '../http/installed';
import { installImportRefusals, type ImportRefusal, type ImportType } from '../csv/import-type';
import { installHistoryDescriptions } from '../records/history-format';
import { settingsHistoryDescriptions } from '../notifications/report-schedules';
import { historyTypeOf, installRecordTypes, type RecordTypeDeclaration, type SectionProvider } from '../records/record-types';
import { installNotifications, type DueDateDeclaration, type DueDateKind, type RecordEvents } from '../notifications/declarations';
import type { AssistantTool } from './tools';
import { installPermissionAreas, type Module } from '../permissions/permissions';

import { installDashboard, type DashboardWidget, type DueSoonKind } from '../dashboard/declarations';
import { installReports, type InstalledReport } from '../reports/declarations';
import { installPosture, type PostureKind } from '../dashboard/posture';

/**
 * What the platform needs from a module, in one typed value per module (`src/modules/<module>/index.ts`), listed
 * once in `src/modules/index.ts`. The app, the navigation, the CSV imports, custom fields, counted tables, record types
 * (evidence links, search, the assistant, sections on record pages) are derived from that list; nothing in
 * `src/platform` imports a module. See docs/adding-a-module.md.
 */
export interface ModuleManifest<A extends string = never> extends InstalledParts<A> {
  /** The module's folder under src/modules. */
  name: string;
  /** REST routes and screens. Order does not matter: the platform registers CSV imports before any `/:id` route. */
  plugins(ctx: AppContext): AnyElysia[];
  /** CSV import types (templates, checks, imports and current-records downloads under `/<area>/import`). */
  imports?: readonly ImportType[];
  /** Columns of other modules' CSV imports refused with a reason: fields this module keeps on their records (docs/csv-import.md). */
  importRefusals?: readonly ImportRefusal[];
  /** The record types the module owns (src/platform/records/record-types.ts): each declared once, here. */
  recordTypes?: readonly RecordTypeDeclaration[];
  /** Sections this module adds to the pages of other record types (evidence lists what proves a control). */
  sections?: SectionProvider;
  /**
   * Tools the module offers AI assistants on /api/mcp (the assistant module serves them). A function, called once
   * the modules are installed, so a tool's schema may name the installed record types.
   */
  assistantTools?(): readonly AssistantTool[];
  /** Record types whose changes notification rules can name (Settings › Notifications; docs/notifications.md). */
  events?: readonly RecordEvents[];
  /**
   * The module's records are privacy records (spec: Settings › AI assistants › Include privacy records): while that
   * setting is off, the assistant endpoint acts without the module's rights, so no tool returns or accepts them.
   */
  privacyRecords?: boolean;
  /** Dates the daily reminder sweep reminds owners of, one set-based query per kind (docs/notifications.md). */
  dueDates?: readonly DueDateDeclaration[];
  /** Widgets of the Dashboard at `/`, each shown to viewers holding its right (docs/dashboard.md). */
  dashboard?: readonly DashboardWidget[];
  /** Dates that come due, gathered into the Dashboard's "Overdue and due in the next 30 days" (docs/dashboard.md). */
  dueSoon?: readonly DueSoonKind[];
  /** Posture at a past date, computed from History: the Dashboard's "as of" and its 12-month trend (docs/dashboard.md). */
  posture?: readonly PostureKind[];
  /** Reports of the Report Center at `/reports`: list, printable page and CSV, rendered by the platform (docs/reports.md). */
  reports?: readonly InstalledReport[];
  /**
   * Work of the background sweep, in its transaction under its advisory lock, once per interval among all instances
   * (a recurring program's next round): it must be cheap when nothing is due.
   */
  sweep?(tx: DbOrTx): Promise<unknown>;
}

/**
 * A module's manifest, typed with its literal permission area: `export const manifest: ModuleManifest<'projects'> =
 * defineModule({ permissions: permissionArea('projects'), … })` (a module without one: `ModuleManifest`). The module
 * list derives the `Module` and `Permission` types from those literals; the annotation lets it do so without a circle
 * (a manifest's own fields name permissions).
 */
export const defineModule = <A extends string = never>(manifest: ModuleManifest<A>): ModuleManifest<A> => manifest;

/** A manifest as the platform holds it once installed: whichever area it declares. */
export type InstalledModule = ModuleManifest<Module>;

/** The areas a module list declares, for `InstalledAreas` (src/platform/permissions/permissions.ts). */
export type AreasOf<L extends readonly { permissions?: { name: string } }[]> = { [K in NonNullable<L[number]['permissions']>['name']]: true };

let installed: readonly InstalledModule[] = [];
let tools: readonly AssistantTool[] | null = null;

/** Called once by the app with the module list; the platform reads what it needs from here. */
export function installModules(modules: readonly InstalledModule[]): void {
  const names = new Set<string>();
  for (const m of modules) {
    if (names.has(m.name)) throw new Error(`module ${m.name} is listed twice`);
    names.add(m.name);
  }
  installed = modules;
  tools = null;
  installPermissionAreas(modules.flatMap((m) => (m.permissions ? [m.permissions] : [])));
  installParts(modules);
  installImportRefusals(modules.flatMap((m) => [...(m.importRefusals ?? [])]));
  const types = modules.flatMap((m) => [...(m.recordTypes ?? [])]);
  const events = withScreens(modules.flatMap((m) => [...(m.events ?? [])]), types);
  installNotifications(events, modules.flatMap((m) => (m.dueDates ?? []).map((d) => ('recordType' in d ? dueDateOf(d, types) : d))));
  installHistoryDescriptions([...events, ...settingsHistoryDescriptions()]);
  installDashboard(modules.flatMap((m) => [...(m.dashboard ?? [])]), modules.flatMap((m) => [...(m.dueSoon ?? [])]));
  installPosture(modules.flatMap((m) => [...(m.posture ?? [])]));
  installReports(modules.flatMap((m) => [...(m.reports ?? [])]));
  installRecordTypes(types, modules.flatMap((m) => (m.sections ? [m.sections] : [])));
}

/**
 * A record type's events link to its screen as its declaration does (a record with a page of its own), unless they
 * name a screen of their own: `kindEvents(kind, {})` repeats no href.
 */
const withScreens = (events: readonly RecordEvents[], types: readonly RecordTypeDeclaration[]): RecordEvents[] =>
  events.map((e) => {
    const type = e.href ? undefined : types.find((t) => historyTypeOf(t) === e.recordType && !t.parent);
    return type ? { ...e, href: (id: string) => type.href(id, null) } : e;
  });

/** A due date of a declared record type, with the type's permission area and screen. */
function dueDateOf({ recordType, ...due }: Extract<DueDateDeclaration, { recordType: string }>, types: readonly RecordTypeDeclaration[]): DueDateKind {
  const type = types.find((t) => historyTypeOf(t) === recordType && !t.parent);
  if (!type) throw new Error(`due date ${due.key} names ${recordType}, which no installed module declares as a record type with a page`);
  return { ...due, module: type.module, href: (id) => type.href(id, null) };
}

export const installedModules = (): readonly InstalledModule[] => installed;

/** The permission areas of the modules holding privacy records (`privacyRecords`). */
export const privacyAreas = (): Module[] => installed.flatMap((m) => (m.privacyRecords && m.permissions ? [m.permissions.name] : []));

/** Every installed module's assistant tools (made once, after installation). */
export function assistantTools(): readonly AssistantTool[] {
  tools ??= installed.flatMap((m) => [...(m.assistantTools?.() ?? [])]);
  return tools;
}
