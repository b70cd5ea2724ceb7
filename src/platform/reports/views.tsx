import type { ReportCell } from './declarations';
import { When } from '../../../views/components/table';
import { BrandMark } from '../../../views/layout';
import { FilterBar, type FilterSelect } from '../../../views/components/filter-bar';
import { ErrorSummary } from '../../../views/components/form';

export interface ReportEntry {
  key: string;
  title: string;
  description: string;
  listHref?: string;
}

/** The Report Center: every report the viewer may read, each with its printable page and its CSV. */
export function ReportList({ reports, schedules }: { reports: ReportEntry[]; schedules?: boolean }): JSX.Element {
  if (!reports.length) return <p class="muted">Your roles give you no report to read.</p>;
  return (
    <>
    {schedules ? <p><a href="/reports/schedules">Scheduled reports</a>: reports mailed to people and groups, daily, weekly or monthly.</p> : ''}
    <div class="table-wrap">
      <table class="data reports">
        <caption class="visually-hidden">Reports you may read</caption>
        <thead>
          <tr>
            <th scope="col">Report</th>
            <th scope="col">What it holds</th>
            <th scope="col">Open</th>
          </tr>
        </thead>
        <tbody>
          {reports.map((r) => (
            <tr>
              <th scope="row"><a href={`/reports/${r.key}`} safe>{r.title}</a></th>
              <td safe>{r.description}</td>
              <td class="report-links">
                <a href={`/reports/${r.key}`} aria-label={`${r.title}, printable`}>Printable</a>
                {' · '}
                <a href={`/reports/${r.key}/csv`} download="" aria-label={`${r.title}, CSV download`}>CSV</a>
                {r.listHref ? <>{' · '}<a href={r.listHref} aria-label={`${r.title}, on screen with filters`}>On screen</a></> : ''}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
    </>
  );
}

/** One report as a printable document: its title, when and for whom it was made, how many rows the viewer may read and the first of them. */
export function PrintableReport(p: {
  entry: ReportEntry; headers: string[];
  /** The first rows (at most PRINTABLE_LIMIT), and how many the report holds for this viewer: the CSV has them all. */
  rows: ReportCell[][]; total: number; madeAt: string; madeFor: string;
  /** The report's filters with the chosen values, the chosen ones in words, and as a query for the CSV link. */
  filters?: FilterSelect[]; filtered?: string; query?: string;
  /** Filters refused (400): shown above the bar, each linked to its field; the report's rows are not read. */
  problems?: { field: string; message: string }[];
}): JSX.Element {
  const csv = `/reports/${p.entry.key}/csv${p.query ? `?${p.query}` : ''}`;
  return (
    <div class="report-document" id="report-document">
      <div class="report-brand"><BrandMark link={false} /></div>
      <p class="no-print report-actions">
        <a href="/reports">All reports</a>{' · '}
        <a href={csv} download="">Download CSV</a>
        {p.entry.listHref ? <>{' · '}<a href={p.entry.listHref}>On screen with filters</a></> : ''}
        {' · '}Print with your browser (A4 or Letter): the menus are left out of the printout.
      </p>
      {p.problems?.length ? <p class="muted" safe>{p.entry.description}</p> : (
        <p class="muted">
          <span safe>{`${p.entry.description} Made `}</span><When value={p.madeAt} local />
          <span safe>{` for ${p.madeFor}: ${p.total.toLocaleString('en')} ${p.total === 1 ? 'row' : 'rows'} you may read.`}</span>
        </p>
      )}
      <ErrorSummary title="The report cannot be filtered that way" problems={(p.problems ?? []).map((problem) => (p.filters?.some((f) => f.name === problem.field)
        ? { message: problem.message, href: `#filter-${problem.field}` } : { message: `${problem.field}: ${problem.message}` }))} />
      {p.filters?.length ? (
        <div class="no-print">
          <FilterBar action={`/reports/${p.entry.key}`} label={`Filter ${p.entry.title}`} target="#report-document" filters={p.filters} filtered={Boolean(p.filtered || p.problems?.length)} plain />
        </div>
      ) : ''}
      {p.filtered ? <p safe>{`Filtered by ${p.filtered}.`}</p> : ''}
      {p.total > p.rows.length
        ? <p role="status">{`First ${p.rows.length.toLocaleString('en')} of ${p.total.toLocaleString('en')} rows; `}<a href={csv} download="">download the CSV</a> for all.</p> : ''}
      {p.problems?.length ? ''
        : p.rows.length === 0
        ? <p class="muted">Nothing you may read is in this report.</p>
        : (
          <div class="table-wrap">
            <table class="data report">
              <caption class="visually-hidden" safe>{p.entry.title}</caption>
              <thead><tr>{p.headers.map((h) => <th scope="col" safe>{h}</th>)}</tr></thead>
              <tbody>
                {p.rows.map((row) => <tr>{row.map((cell) => <td safe>{cell === null || cell === undefined || cell === '' ? '—' : String(cell)}</td>)}</tr>)}
              </tbody>
            </table>
          </div>
        )}
    </div>
  );
}
