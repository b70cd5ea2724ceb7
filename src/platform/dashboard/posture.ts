import type { DbOrTx } from '../../../db/client';
import { isRealDate, todayIso } from '../core/dates';
import { levelOf, type Actor, type Permission } from '../permissions/permissions';

/**
 * Posture at a past date (docs/dashboard.md, "Posture at a past date"): what a module's numbers were at the end of a
 * day, computed from History (every change is there, sealed by the Audit Log's chain), not from snapshots. A module
 * declares its posture in its manifest (`posture`); the Dashboard asks every declaration the viewer may read, for one
 * day ("as of") or for the ends of the last twelve months (the trend). The platform imports no module.
 */

/** One number of a posture, with its words ("33.3% compliant: 1 of 3 applicable requirements"). */
export interface PostureCell {
  /** The count, or the percentage; null when there is nothing to count (no applicable requirement). */
  value: number | null;
  text: string;
}

/** A posture at some days' ends: its columns (bands, packages), then one row of cells per day asked, in that order. */
export interface PostureTable {
  /** 'count' (risks per band) or 'percent' (compliance scores). */
  unit: 'count' | 'percent';
  /** A column's `group` ('Inherent', 'Residual') heads the columns sharing it; the screens show groups side by side. */
  columns: { label: string; href?: string; group?: string }[];
  rows: PostureCell[][];
}

export interface PostureKind {
  /** Stable key: 'riskBands'. */
  key: string;
  /** The card's heading: 'Open risks by inherent band'. */
  title: string;
  /** The right that shows it (at any level); the counts are of what the viewer may read. */
  needs: Permission;
  /** When the first History entry this posture reads was written; null when there is none yet. */
  firstEntry(db: DbOrTx, viewer: Actor): Promise<Date | null>;
  /** The posture at the end (24:00 UTC) of each day given (YYYY-MM-DD), one row per day, in the order given. */
  at(db: DbOrTx, viewer: Actor, days: readonly string[]): Promise<PostureTable>;
}

let kinds: readonly PostureKind[] = [];

/** Called by installModules with every module's posture declarations, in module order. */
export function installPosture(declared: readonly PostureKind[]): void {
  const keys = new Set<string>();
  for (const k of declared) {
    if (keys.has(k.key)) throw new Error(`posture key ${k.key} is declared twice`);
    keys.add(k.key);
  }
  kinds = declared;
}

/** The posture declarations this viewer may read, in module order. */
export const postureKindsFor = (viewer: Actor): PostureKind[] => kinds.filter((k) => levelOf(viewer, k.needs) !== null);

/** The instant a day ends (the next day's 00:00 UTC): History entries before it are in the day's posture. */
export const dayEnd = (day: string): Date => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000);

/** The ends of `months` months up to `day`: the last day of each earlier month, then `day` itself; oldest first. */
export function monthEnds(day: string, months = 12): string[] {
  const [y, m] = day.split('-').map(Number);
  const ends: string[] = [];
  for (let back = months - 1; back >= 1; back--) {
    // Day 0 of a month is the last day of the month before it.
    ends.push(new Date(Date.UTC(y, m - back, 0)).toISOString().slice(0, 10));
  }
  ends.push(day);
  return ends;
}

/** "as of" as the person typed it: blank (today), a day, or a problem said in words. */
export type AsOf = { day: null } | { day: string } | { problem: string; typed: string };

/**
 * Checks an "as of" date: a real date, not after today (UTC), not before the day of the first History entry
 * (`first`; null when there is none yet, when every date is before it). The messages are the screens'.
 */
export function readAsOf(typed: string | undefined, first: Date | null, today = todayIso()): AsOf {
  const value = (typed ?? '').trim();
  if (value === '') return { day: null };
  if (!isRealDate(value)) return { problem: 'Enter a real date, such as 2026-03-31.', typed: value };
  if (value > today) return { problem: `The date must not be after today (${today}): the posture of a day to come is not known yet.`, typed: value };
  if (first === null) return { problem: 'Nothing has been recorded yet, so there is no past posture to show.', typed: value };
  const firstDay = first.toISOString().slice(0, 10);
  if (value < firstDay) return { problem: `History starts on ${firstDay}: choose that day or a later one.`, typed: value };
  return { day: value };
}

/** The earliest first entry of several postures (null when none has any). */
export function earliest(dates: readonly (Date | null)[]): Date | null {
  const known = dates.filter((d): d is Date => d !== null);
  return known.length ? new Date(Math.min(...known.map((d) => d.getTime()))) : null;
}
