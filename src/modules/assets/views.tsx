import type { assets } from '../../../db/schema';
import type { Page } from '../../platform/http/paging';
import type { RecordView } from '../../platform/records/records';

/** The assets assigned to a business unit, on the unit's page. */
export function UnitAssets({ page }: { page: Page<RecordView<typeof assets>> }): JSX.Element {
  return (
    <section>
      <h2>Assets</h2>
      {page.rows.length === 0
        ? <p class="muted">No assets in this unit.</p>
        : <ul>{page.rows.map((a) => <li><a href={`/assets/${a.id}`} safe>{a.name}</a></li>)}</ul>}
      {page.total > page.rows.length && <p class="muted" safe>{`Showing ${page.rows.length} of ${page.total}.`}</p>}
    </section>
  );
}
