import type { FieldProblem } from './errors';

/** YYYY-MM-DD naming a day that exists (2026-02-30 and 2026-13-01 do not). */
export function isRealDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const day = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().startsWith(value);
}

/** The field problem for a date that is given but not a real YYYY-MM-DD date; none for blank. */
export const dateProblems = (field: string, value: string | null | undefined): FieldProblem[] =>
  value && !isRealDate(value) ? [{ field, message: 'must be a real date written YYYY-MM-DD' }] : [];

export const todayIso = (now = new Date()) => now.toISOString().slice(0, 10);

/**
 * The latest day any time zone has reached (UTC+14, Kiribati's Line Islands): a day a person may call today wherever
 * they are. People have no stored time zone, so "not in the future" admits it rather than refuse someone east of UTC.
 */
export const latestTodayIso = (now = new Date()) => todayIso(new Date(now.getTime() + 14 * 3_600_000));

/** Adds months in UTC, clamping to the month's last day (Jan 31 + 1 month = Feb 28/29). */
export function addMonths(isoDate: string, months: number): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  const target = new Date(Date.UTC(y, m - 1 + months, 1));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, lastDay));
  return target.toISOString().slice(0, 10);
}
