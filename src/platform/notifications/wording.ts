import type { Config } from '../../config';

/** An address people can follow from a mail: PUBLIC_URL, else this server's own port on localhost. */
export const mailLink = (config: Pick<Config, 'PUBLIC_URL' | 'PORT'>, path: string): string =>
  `${(config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/$/, '')}${path}`;

/** "on 27 Nov 2026 at 10:05 (Europe/Berlin)": a moment as people in the organisation's time zone read it. */
export function whenIn(at: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone, day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
    .formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `on ${part('day')} ${part('month')} ${part('year')} at ${part('hour')}:${part('minute')} (${timeZone})`;
}

/** The calendar day and hour now in a time zone: when the daily sweep is due. */
export function dayAndHourIn(now: Date, timeZone: string): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', hourCycle: 'h23' }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: `${part('year')}-${part('month')}-${part('day')}`, hour: Number(part('hour')) };
}

/** Days from `today` to `date` (YYYY-MM-DD both): negative when it is past. */
export const daysBetween = (today: string, date: string) => Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);

