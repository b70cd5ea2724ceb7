import type { PoamItem } from '../schema';
import { Pager } from '../../../../views/components/pager';
import { Select } from '../../../../views/components/form';
import { DataTable, Text } from '../../../../views/components/table';

export const POAM_SOURCE_LABELS: Record<string, string> = { compliance: 'Compliance analysis', audit: 'Audit finding', controlTest: 'Control test' };
const SEVERITY_LABELS: Record<string, string> = { high: 'High', medium: 'Medium', low: 'Low' };
const STATUS_LABELS: Record<string, string> = { open: 'Open', in_remediation: 'In remediation' };

/** The words the screen shows for a POA&M item's keys; the CSV download writes the same. */
export const POAM_LABELS = { source: POAM_SOURCE_LABELS, severity: SEVERITY_LABELS, status: STATUS_LABELS } as const;

export interface PoamFilters {
  status: string;
  severity: string;
  source: string;
  overdue: string;
}

export const poamQueryString = (f: PoamFilters) =>
  new URLSearchParams(Object.entries(f).filter(([, v]) => v !== '')).toString();

const options = (labels: Record<string, string>) => [{ value: '', label: 'Any' }, ...Object.entries(labels).map(([value, label]) => ({ value, label }))];

/** The results table and pager; htmx swaps this alone when a filter changes. */
export function PoamResults({ rows, total, page, pageSize, filters }: { rows: PoamItem[]; total: number; page: number; pageSize: number; filters: PoamFilters }): JSX.Element {
  const query = poamQueryString(filters);
  return (
    <section id="poam-results" aria-live="polite">
      <p class="actions"><a class="button" href={`/compliance/poam.csv${query ? `?${query}` : ''}`} download="poam.csv">Download CSV</a></p>
      <DataTable<PoamItem>
        rows={rows}
        empty="No open weaknesses match."
        columns={[
          { header: 'Source', cell: (i) => <Text value={POAM_SOURCE_LABELS[i.source]} /> },
          { header: 'Weakness', cell: (i) => <a href={i.link} safe>{i.title}</a> },
          { header: 'Reference', cell: (i) => <Text value={i.reference} /> },
          { header: 'Severity', cell: (i) => <Text value={SEVERITY_LABELS[i.severity]} /> },
          { header: 'Status', cell: (i) => <Text value={STATUS_LABELS[i.status]} /> },
          {
            header: 'Due',
            cell: (i) => (i.overdue
              ? <span><span safe>{i.dueDate ?? ''}</span> <span class="tag tag-late">Overdue</span></span>
              : <Text value={i.dueDate ?? '—'} />),
          },
          { header: 'Owner', cell: (i) => <Text value={i.owner ?? '—'} /> },
        ]}
      />
      <Pager page={page} pageSize={pageSize} total={total} href={(n) => `/compliance/poam?${query}${query ? '&' : ''}page=${n}`} target="#poam-results" />
    </section>
  );
}

/** The POA&M register: filters as a plain GET form (htmx swaps the results and keeps the URL), read only. */
export function PoamPage(p: { rows: PoamItem[]; total: number; page: number; pageSize: number; filters: PoamFilters }): JSX.Element {
  return (
    <>
      <p class="muted">Open weaknesses from non-compliant analyses, audit findings not closed and controls whose latest test failed.</p>
      <form method="get" action="/compliance/poam" class="filters" id="poam-filters" hx-get="/compliance/poam" hx-target="#poam-results"
        hx-select="#poam-results" hx-swap="outerHTML" hx-push-url="true" hx-trigger="change, submit">
        <label>Status <Select name="status" id="f-status" selected={p.filters.status} options={options(STATUS_LABELS)} /></label>
        <label>Severity <Select name="severity" id="f-severity" selected={p.filters.severity} options={options(SEVERITY_LABELS)} /></label>
        <label>Source <Select name="source" id="f-source" selected={p.filters.source} options={options(POAM_SOURCE_LABELS)} /></label>
        <label>Overdue <Select name="overdue" id="f-overdue" selected={p.filters.overdue} options={[{ value: '', label: 'Any' }, { value: 'true', label: 'Overdue only' }, { value: 'false', label: 'Not overdue' }]} /></label>
        <noscript><button type="submit">Apply</button></noscript>
      </form>
      <PoamResults {...p} />
    </>
  );
}
