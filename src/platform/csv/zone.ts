/**
 * Times in a download, in the reader's zone. People have no stored zone (docs/decisions.md, "Times in the reader's
 * zone, by the browser"): an Export link marked `data-reader-zone` gets the browser's zone as `tz` when clicked
 * (static/app.js); without scripts, or with a zone this runtime does not know, the file is written in UTC.
 */

const knownZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-CA', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

/** The zone a download is written in: `tz` of its address when this runtime knows it, UTC otherwise. */
export function readerZone(tz: string | undefined): string {
  const zone = (tz ?? '').trim();
  return zone && zone.length <= 64 && knownZone(zone) ? zone : 'UTC';
}

/** A column header naming the zone its times are in: 'Created (Europe/Paris)'. */
export const zonedHeader = (label: string, zone: string): string => `${label} (${zone})`;

/** An instant as 'YYYY-MM-DD HH:MM' (with `seconds`, ':SS') in the zone (the header names the zone); blank for none. */
export function zonedTime(at: Date | string | null | undefined, zone: string, options: { seconds?: boolean } = {}): string {
  if (at === null || at === undefined || at === '') return '';
  const date = new Date(at);
  if (Number.isNaN(date.getTime())) return '';
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23',
    ...(options.seconds ? { second: '2-digit' as const } : {}),
  }).formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}${options.seconds ? `:${part('second')}` : ''}`;
}
