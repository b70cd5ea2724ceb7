import { valueLabel } from '../../platform/core/value-labels';
import { FilterBar, matchingCount } from '../../../views/components/filter-bar';
import type { Option } from '../../../views/components/form';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text } from '../../../views/components/table';
import { clockText } from './breaches';
import { BREACH_CLOCK_STATES, type BreachEntryView } from './schema';

export const BREACHES_PATH = '/data-privacy/breaches';

/** A stored instant as the privacy screens show theirs: date and minute, UTC. */
const shownAt = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

/** The 72-hour clock's states as the filter offers them. */
const CLOCK_OPTIONS: Record<(typeof BREACH_CLOCK_STATES)[number], string> = {
  overdue: 'Overdue: not notified in 72 hours',
  running: 'Clock running',
  notified_in_time: 'Notified in time',
  notified_late: 'Notified late',
  no_awareness_date: 'No awareness date',
};

/** The breaches' columns as the CSV export writes them: the screen's, in its words. */
export const BREACH_CSV_COLUMNS: { header: string; text: (b: BreachEntryView) => string }[] = [
  { header: 'Incident', text: (b) => b.title },
  { header: 'Aware on', text: (b) => b.awareOn ?? '' },
  { header: '72-hour deadline', text: (b) => (b.deadline ? shownAt(b.deadline) : '') },
  { header: 'Authority notified on', text: (b) => b.authorityNotifiedOn ?? 'Not notified' },
  { header: '72-hour clock', text: (b) => clockText(b) },
  { header: 'Data subjects told on', text: (b) => b.subjectsNotifiedOn ?? '' },
  { header: 'Approx. subjects', text: (b) => (b.approximateSubjects === null ? '' : String(b.approximateSubjects)) },
  { header: 'Incident status', text: (b) => valueLabel(b.status) },
  { header: 'Owner', text: (b) => b.owner ?? '' },
];

/** The list's filters, sort and page as the address holds them (blank: not set). */
export interface BreachFilters {
  q: string;
  status: string;
  clock: string;
  ownerId: string;
  sort: string;
}

const isFiltered = (f: BreachFilters) => Boolean(f.q || f.status || f.clock || f.ownerId);

/** The list's address with its filters and sort (and a page, an export path), blanks left out. */
export function breachesHref(f: BreachFilters, change: { sort?: string; page?: number } = {}, path = BREACHES_PATH): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries({ ...f, sort: change.sort ?? f.sort })) if (value) params.set(name, value);
  if (change.page && change.page > 1) params.set('page', String(change.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

export interface BreachesProps {
  rows: BreachEntryView[];
  total: number;
  page: number;
  pageSize: number;
  filters: BreachFilters;
  owners: Option[];
}

const clockClass = (b: BreachEntryView) =>
  (b.clock === 'overdue' || b.clock === 'notified_late' ? 'status-bad' : b.clock === 'running' ? '' : 'status-ok');

/** The count, Export (following the filters), the sortable table and the pager; htmx swaps this alone. */
export function BreachResults({ rows, total, page, pageSize, filters }: BreachesProps): JSX.Element {
  const filtered = isFiltered(filters);
  const count = `${total.toLocaleString('en')} breach${total === 1 ? '' : 'es'}`;
  return (
    <section id="breach-results" aria-live="polite" aria-label="Personal-data breaches">
      <p class="results-bar">
        <span class="muted" safe>{filtered ? matchingCount(count, total) : count}</span>
        {total > 0 && <a class="button secondary small" href={breachesHref(filters, {}, `${BREACHES_PATH}.csv`)} download="">Export CSV</a>}
      </p>
      <DataTable<BreachEntryView>
        rows={rows}
        empty={filtered ? 'No breaches match these filters.' : 'No personal-data breaches recorded on incidents you may read.'}
        sort={{ current: filters.sort, href: (sort) => breachesHref(filters, { sort }), target: '#breach-results', form: 'breach-filters' }}
        columns={[
          { header: 'Incident', sort: 'title', cell: (b) => <a href={`/incidents/${b.incidentId}`} safe>{b.title}</a> },
          { header: 'Aware on', sort: 'awareOn', cell: (b) => <Text value={b.awareOn ?? '—'} /> },
          // The deadline under the clock's state: one column fewer, so the list fits a 1366 px window.
          {
            header: '72-hour clock', sort: 'clock',
            cell: (b) => (
              <>
                <span class={clockClass(b)} safe>{clockText(b)}</span>
                {b.deadline && <><br /><span class="muted" safe>{`Deadline ${shownAt(b.deadline)}`}</span></>}
              </>
            ),
          },
          { header: 'Authority notified', sort: 'authorityNotifiedOn', cell: (b) => <Text value={b.authorityNotifiedOn ?? 'Not notified'} /> },
          { header: 'Subjects told', cell: (b) => <Text value={b.subjectsNotifiedOn ?? '—'} /> },
          { header: 'Approx. subjects', sort: 'approximateSubjects', class: 'num', cell: (b) => <Text value={b.approximateSubjects === null ? '—' : b.approximateSubjects.toLocaleString('en')} /> },
          { header: 'Status', sort: 'status', cell: (b) => <Text value={valueLabel(b.status)} /> },
          { header: 'Owner', sort: 'owner', cell: (b) => <Text value={b.owner ?? '—'} /> },
        ]}
      />
      <Pager page={page} pageSize={pageSize} total={total} href={(n) => breachesHref(filters, { page: n })} target="#breach-results" />
    </section>
  );
}

/** The personal-data breaches the reader may see, each with its 72-hour clock (GDPR Art. 33(1)): the one filter bar, then the results. */
export function BreachesScreen(p: BreachesProps & { mayRead: boolean }): JSX.Element {
  if (!p.mayRead) return <p>Breaches are kept on incidents: reading them needs read access to incidents.</p>;
  return (
    <>
      <p class="muted">
        The incidents recorded as personal-data breaches that you may read. The supervisory authority is to be notified
        within 72 hours of awareness (Art. 33(1)); incidents hold the day of awareness, so the clock starts at the
        beginning of that day (UTC).
      </p>
      <FilterBar action={BREACHES_PATH} label="Filter personal-data breaches" target="#breach-results" filtered={isFiltered(p.filters)}
        id="breach-filters" search={{ value: p.filters.q, label: 'Search incidents' }}
        filters={[
          { name: 'status', label: 'Incident status', selected: p.filters.status, options: [{ value: 'open', label: valueLabel('open') }, { value: 'closed', label: valueLabel('closed') }] },
          { name: 'clock', label: 'Notification', selected: p.filters.clock, options: BREACH_CLOCK_STATES.map((value) => ({ value, label: CLOCK_OPTIONS[value] })) },
          { name: 'ownerId', label: 'Owner', selected: p.filters.ownerId, options: p.owners, any: 'Anyone' },
        ]} />
      <BreachResults {...p} />
    </>
  );
}
