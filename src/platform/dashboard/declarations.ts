import type { SQL } from 'drizzle-orm';
import type { AppContext } from '../http/context';
import type { Actor, Permission } from '../permissions/permissions';

/**
 * What modules declare in their manifests for the Dashboard (`/`): widgets they render themselves (the risk heat map,
 * compliance scores), and dates that come due (reviews, tests, treatments, expiring exceptions) which the platform
 * gathers into one "Overdue and due soon" table. The platform never imports a module: a module without a right the
 * viewer holds shows nothing, and every count is of what the viewer may read at their own/all level.
 */

export interface DashboardWidget {
  /** Stable key, also the card's anchor: 'riskHeatMap'. */
  key: string;
  /** The card's heading. */
  title: string;
  /** The right that shows the widget (at any level); the widget itself counts only what the viewer may read. */
  needs: Permission;
  /** 'wide' takes the whole row (the heat map); a half row by default. */
  width?: 'wide' | 'half';
  /**
   * The card's content for this viewer (read through the module's services, with the viewer's level). `shared` runs a
   * load once per page, so two widgets of one module reading the same counts (the heat map and the bands) share them.
   */
  render(ctx: AppContext, viewer: Actor, shared: SharedLoad): Promise<JSX.Element>;
}

/** Runs `load` once per Dashboard page under `key`; later calls with the key answer the same promise. */
export type SharedLoad = <T>(key: string, load: () => Promise<T>) => Promise<T>;

/** A fresh SharedLoad for one page. */
export function sharedLoads(): SharedLoad {
  const loads = new Map<string, Promise<unknown>>();
  return <T>(key: string, load: () => Promise<T>): Promise<T> => {
    if (!loads.has(key)) loads.set(key, load());
    return loads.get(key) as Promise<T>;
  };
}

/**
 * A kind of date that comes due, for the Dashboard's "Overdue and due in the next 30 days". `query` is ONE select with
 * the columns `record_id` (text), `title` (text) and `due_on` (date): the records the actor may read (the module's
 * own/all condition is part of the query) whose date is on or before `until`. The platform counts the overdue and the
 * coming ones and names the first few, all in one statement per kind.
 */
export interface DueSoonKind {
  /** Stable key: 'riskReviews'. */
  key: string;
  /** The row's label: 'Risk reviews'. */
  label: string;
  /** Reading these records needs this right (at any level). */
  needs: Permission;
  /** The register the row links to. */
  href: string;
  /** The screen of one listed record. */
  itemHref(id: string): string;
  query(actor: Actor, until: SQL): SQL;
  /**
   * Optional: ONE select of `overdue` and `soon` (int) over counts the module keeps (per owner and day), for kinds with
   * thousands of records due, where counting `query`'s rows would cost the page. Without it the platform counts them.
   */
  counts?(actor: Actor, today: SQL, until: SQL): SQL;
  /**
   * Optional, with `counts`: a select of the first `n` rows of `query` in the order (due_on, title, record_id), or of a
   * few more from which the platform takes them; for a kind whose `query` no index can read in that order (a date
   * computed from two columns), written as parts each read from an index in order and cut at `n`.
   */
  first?(actor: Actor, today: SQL, until: SQL, n: number): SQL;
}

let widgets: readonly DashboardWidget[] = [];
let dueKinds: readonly DueSoonKind[] = [];

/** Called by installModules with every module's declarations, in module order. */
export function installDashboard(w: readonly DashboardWidget[], due: readonly DueSoonKind[]): void {
  const keys = new Set<string>();
  for (const key of [...w.map((x) => x.key), ...due.map((x) => x.key)]) {
    if (keys.has(key)) throw new Error(`dashboard key ${key} is declared twice`);
    keys.add(key);
  }
  widgets = w;
  dueKinds = due;
}

export const dashboardWidgets = (): readonly DashboardWidget[] => widgets;
export const dueSoonKinds = (): readonly DueSoonKind[] => dueKinds;
