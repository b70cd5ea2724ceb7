import type { SoaRow } from '../soa-service';
import { DataTable, Text } from '../../../../views/components/table';
import { ANALYSIS_STATUS_LABELS } from './tree';

/** The Statement of Applicability of one package: a table meant to be printed (the print stylesheet hides the shell). */
export function SoaPage({ name, packageId, rows }: { name: string; packageId: string; rows: SoaRow[] }): JSX.Element {
  const applicable = rows.filter((r) => r.applicable).length;
  return (
    <>
      <p class="actions no-print">
        <a href={`/compliance/packages/${packageId}`} safe>{`← ${name}`}</a>
        <a href={`/compliance/packages/${packageId}/soa.csv`} download="">Download CSV</a>
        <span class="muted">Print this page from the browser (Ctrl+P) for a paper or PDF copy.</span>
      </p>
      <h2 safe>{`Statement of Applicability: ${name}`}</h2>
      <p safe>{`${rows.length} requirements; ${applicable} applicable, ${rows.length - applicable} not applicable.`}</p>
      <DataTable<SoaRow> id="soa" rows={rows} empty="This package has no requirements you can read." columns={[
        { header: 'Code', cell: (r) => <a href={`/compliance/analyses/${r.analysisId}`} safe>{r.code}</a> },
        { header: 'Requirement', cell: (r) => <Text value={r.name} /> },
        { header: 'Applicable', cell: (r) => <Text value={r.applicable ? 'Yes' : 'No'} /> },
        { header: 'Justification', cell: (r) => <Text value={r.justification || '—'} />, class: 'prewrap' },
        { header: 'Implementation status', cell: (r) => <Text value={ANALYSIS_STATUS_LABELS[r.status] ?? r.status} /> },
        { header: 'Controls', cell: (r) => <Text value={r.controls.join('; ') || '—'} /> },
        { header: 'Policies', cell: (r) => <Text value={r.policies.join('; ') || '—'} /> },
        { header: 'Evidence', cell: (r) => <Text value={String(r.evidenceCount)} />, class: 'num' },
      ]} />
    </>
  );
}
