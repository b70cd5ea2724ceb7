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
