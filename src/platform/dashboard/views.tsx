import type { PostureCell, PostureTable } from './posture';
import type { DueSoonRow } from './due-soon';
import { DUE_SOON_DAYS } from './due-soon';

export interface WidgetView {
  key: string;
  title: string;
  width: 'wide' | 'half';
  content: JSX.Element;
}

/** "1 item", "3 items". */
const count = (n: number, one: string, many: string) => `${n.toLocaleString('en')} ${n === 1 ? one : many}`;

/** One card of the Dashboard: a landmark region named by its heading. */
function WidgetCard({ widget }: { widget: WidgetView }): JSX.Element {
  const headingId = `widget-${widget.key}`;
  return (
    <section class={`card dashboard-widget ${widget.width === 'wide' ? 'wide' : ''}`} aria-labelledby={headingId}>
      <h2 id={headingId} safe>{widget.title}</h2>
      {widget.content}
    </section>
  );
}

/** What comes due, per kind: counts of overdue and coming records (each the viewer may read) and the first few named. */
export function DueSoonTable({ rows, today }: { rows: DueSoonRow[]; today: string }): JSX.Element {
  if (rows.every((r) => r.overdue === 0 && r.soon === 0)) {
    return <p class="muted">{`Nothing you may read is overdue or due in the next ${DUE_SOON_DAYS} days.`}</p>;
  }
  return (
    <div class="table-wrap">
      <table class="data due-soon">
        <caption class="visually-hidden">{`Overdue, and due from ${today} to the next ${DUE_SOON_DAYS} days, by kind`}</caption>
        <thead>
          <tr>
            <th scope="col">What</th>
            <th scope="col" class="num">Overdue</th>
            <th scope="col" class="num">{`Due in ${DUE_SOON_DAYS} days`}</th>
            <th scope="col">First due</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr>
              <th scope="row"><a href={r.kind.href} safe>{r.kind.label}</a></th>
              <td class="num">{r.overdue > 0 ? <strong class="tag tag-late" safe>{`${r.overdue} overdue`}</strong> : <span>0</span>}</td>
              <td class="num" safe>{String(r.soon)}</td>
              <td>
                {r.items.length === 0
                  ? <span class="muted">—</span>
                  : (
                    <ul class="plain">
                      {r.items.map((item) => (
                        <li>
                          <a href={r.kind.itemHref(item.id)} safe>{item.title}</a>{' '}
                          <span class={item.due < today ? 'tag tag-late' : 'muted'} safe>{item.due < today ? `overdue since ${item.due}` : `due ${item.due}`}</span>
                        </li>
                      ))}
                      {r.overdue + r.soon > r.items.length && (
                        <li class="muted" safe>{`and ${count(r.overdue + r.soon - r.items.length, 'more', 'more')}`}</li>
                      )}
                    </ul>
                  )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The Dashboard: the widgets the viewer's rights show, in module order, then what comes due. */
export function Dashboard({ widgets }: { widgets: WidgetView[] }): JSX.Element {
  if (widgets.length === 0) {
    return <p class="muted">Your roles show nothing on the dashboard. The menu lists the pages you may open; ask an administrator for more access.</p>;
  }
  return <div class="dashboard">{widgets.map((w) => <WidgetCard widget={w} />)}</div>;
}

/** The "as of" form: a day from when History starts to today; a refused date is kept, its reason beside it. */
export function AsOfForm({ action, typed, error, hint }: { action: string; typed?: string; error?: string; hint: string }): JSX.Element {
  const describedBy = ['f-asOf-hint', error ? 'f-asOf-error' : ''].filter(Boolean).join(' ');
  return (
    <form method="get" action={action} class="as-of">
      <div class={error ? 'field invalid' : 'field'}>
        <label for="f-asOf">As of</label>
        <input id="f-asOf" name="asOf" type="date" value={typed ?? ''} aria-describedby={describedBy} aria-invalid={error ? 'true' : undefined} required />
        <span class="hint" id="f-asOf-hint" safe>{hint}</span>
        {error && <span class="error" id="f-asOf-error" role="alert" safe>{error}</span>}
      </div>
      <button type="submit">Show</button>
    </form>
  );
}

const shownValue = (unit: PostureTable['unit'], cell: PostureCell) =>
  cell.value === null ? '—' : unit === 'percent' ? `${cell.value}%` : cell.value.toLocaleString('en');

/** The groups of a posture's columns in order ('Inherent', 'Residual'); [] when its columns have none. */
const groupsOf = (table: PostureTable) => [...new Set(table.columns.flatMap((c) => (c.group ? [c.group] : [])))];

/**
 * One posture as it stood at the end of a day. Grouped columns (bands, inherent and residual) read as a grid: a row per
 * label, a column per group; others as a row per column with the number and its words.
 */
export function PostureAsOf({ table, day }: { table: PostureTable; day: string }): JSX.Element {
  const row = table.rows[table.rows.length - 1] ?? [];
  if (table.columns.length === 0) return <p class="muted">Nothing you may read to show.</p>;
  const caption = <caption class="visually-hidden" safe>{`As it stood at the end of ${day} (UTC)`}</caption>;
  const groups = groupsOf(table);
  if (groups.length) {
    const labels = [...new Set(table.columns.map((c) => c.label))];
    const cellOf = (label: string, group: string) => table.columns.findIndex((c) => c.label === label && c.group === group);
    return (
      <div class="table-wrap">
        <table class="data">
          {caption}
          <thead><tr><th scope="col">Band</th>{groups.map((g) => <th scope="col" class="num" safe>{g}</th>)}</tr></thead>
          <tbody>
            {labels.map((label) => (
              <tr>
                <th scope="row" safe>{label}</th>
                {groups.map((g) => {
                  const i = cellOf(label, g);
                  if (i < 0) return <td class="num">—</td>;
                  // No link: the lists behind these numbers are of today, not of the day shown.
                  return <td class="num" title={row[i].text} safe>{shownValue(table.unit, row[i])}</td>;
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    );
  }
  return (
    <div class="table-wrap">
      <table class="data">
        {caption}
        <thead><tr><th scope="col">What</th><th scope="col" class="num">Score</th><th scope="col">In words</th></tr></thead>
        <tbody>
          {table.columns.map((column, i) => (
            <tr>
              <th scope="row">{column.href ? <a href={column.href} safe>{column.label}</a> : <span safe>{column.label}</span>}</th>
              <td class="num" safe>{shownValue(table.unit, row[i])}</td>
              <td safe>{row[i].text}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** A posture at the ends of the last months: one row per month end, a column per band or package (under its group), numbers as text. */
export function PostureTrend({ table, days, title }: { table: PostureTable; days: readonly string[]; title: string }): JSX.Element {
  if (table.columns.length === 0) return <p class="muted">Nothing you may read to show.</p>;
  const groups = groupsOf(table);
  return (
    <div class="table-wrap">
      <table class="data trend">
        <caption class="visually-hidden" safe>{`${title}, at the end of each month from ${days[0]} to ${days[days.length - 1]}`}</caption>
        <thead>
          {groups.length > 0 && (
            <tr>
              <td />
              {groups.map((g) => <th scope="colgroup" colspan={String(table.columns.filter((c) => c.group === g).length)} class="group" safe>{g}</th>)}
            </tr>
          )}
          <tr><th scope="col">End of</th>{table.columns.map((c) => <th scope="col" class="num" safe>{c.label}</th>)}</tr>
        </thead>
        <tbody>
          {table.rows.map((row, i) => (
            <tr>
              <th scope="row"><a href={`/?asOf=${days[i]}`} safe>{days[i]}</a></th>
              {row.map((cell) => <td class="num" title={cell.text} safe>{shownValue(table.unit, cell)}</td>)}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
