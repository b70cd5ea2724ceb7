import { valueLabel } from '../../platform/core/value-labels';
import { clockText } from './breaches';
import type { BreachEntryView } from './schema';

/** A stored instant as the privacy screens show theirs: date and minute, UTC. */
const shownAt = (iso: string) => `${iso.slice(0, 16).replace('T', ' ')} UTC`;

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
];

/** The personal-data breaches the reader may see, each with its 72-hour clock (GDPR Art. 33(1)). */
export function BreachesScreen({ breaches, mayRead }: { breaches: BreachEntryView[]; mayRead: boolean }): JSX.Element {
  if (!mayRead) return <p>Breaches are kept on incidents: reading them needs read access to incidents.</p>;
  return (
    <>
      <p class="muted">
        The incidents recorded as personal-data breaches that you may read. The supervisory authority is to be notified
        within 72 hours of awareness (Art. 33(1)); incidents hold the day of awareness, so the clock starts at the
        beginning of that day (UTC).
      </p>
      {breaches.length > 0 && (
        <p class="results-bar">
          <span class="muted" safe>{`${breaches.length} breach${breaches.length === 1 ? '' : 'es'}`}</span>
          <a class="button secondary small" href="/data-privacy/breaches.csv" download="">Export CSV</a>
        </p>
      )}
      {breaches.length === 0
        ? <p>No personal-data breaches recorded on incidents you may read.</p>
        : (
          <div class="table-wrap">
            <table class="data">
              <caption class="visually-hidden">Personal-data breaches</caption>
              <thead>
                <tr>
                  <th scope="col">Incident</th><th scope="col">Aware on</th><th scope="col">72-hour deadline</th>
                  <th scope="col">Authority notified on</th><th scope="col">72-hour clock</th><th scope="col">Data subjects told on</th>
                  <th scope="col">Approx. subjects</th><th scope="col">Incident status</th>
                </tr>
              </thead>
              <tbody>
                {breaches.map((b) => (
                  <tr>
                    <th scope="row"><a href={`/incidents/${b.incidentId}`} safe>{b.title}</a></th>
                    <td safe>{b.awareOn ?? '—'}</td>
                    <td safe>{b.deadline ? shownAt(b.deadline) : '—'}</td>
                    <td safe>{b.authorityNotifiedOn ?? 'Not notified'}</td>
                    <td><span class={b.clock === 'overdue' || b.clock === 'notified_late' ? 'status-bad' : b.clock === 'running' ? '' : 'status-ok'} safe>{clockText(b)}</span></td>
                    <td safe>{b.subjectsNotifiedOn ?? '—'}</td>
                    <td safe>{b.approximateSubjects === null ? '—' : String(b.approximateSubjects)}</td>
                    <td safe>{valueLabel(b.status)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
    </>
  );
}
