import type { auditFindings, auditPlans } from '../../../db/schema';
import { valueLabel } from '../../platform/core/value-labels';
import { CsrfField, Field, Select, type Option } from '../../../views/components/form';
import type { Page } from '../../platform/http/paging';
import { DataTable, Text } from '../../../views/components/table';
import type { RecordView } from '../../platform/records/records';
import { RESTRICTED_NAME } from '../../platform/records/links';

export type AuditPlanView = RecordView<typeof auditPlans>;

/** A stored value in words, from the one labels table ('in_remediation' reads 'In remediation'). */
export const readable = valueLabel;

/** The plan's findings, with a short form to add one for those who may create findings. */
export function FindingsSection({ plan, findings, controlName, choices, canCreate, csrfToken }: {
  plan: AuditPlanView; findings: Page<RecordView<typeof auditFindings>>; controlName: Map<string, string>; choices: { controls: Option[] }; canCreate: boolean; csrfToken: string;
}): JSX.Element {
  return (
    <section id="findings">
      <h2>Findings</h2>
      {findings.total > 0 && (
        <p class="results-bar">
          <span class="muted" safe>{findings.total > findings.rows.length
            ? `Showing ${findings.rows.length} of ${findings.total} findings.`
            : `${findings.total} finding${findings.total === 1 ? '' : 's'}.`}</span>
          <span>
            <a href={`/audits/findings?auditPlanId=${plan.id}`}>Filter and sort them in Audit findings</a>{' '}
            <a class="button secondary small" href={`/audits/findings/export.csv?auditPlanId=${plan.id}`} download="" aria-label="Export CSV of this plan's findings">Export CSV</a>
          </span>
        </p>
      )}
      <DataTable
        rows={findings.rows}
        empty="No findings for this plan."
        columns={[
          { header: 'Finding', cell: (f) => <a href={`/audits/findings/${f.id}`} safe>{f.title}</a> },
          { header: 'Status', cell: (f) => <Text value={readable(f.status)} /> },
          { header: 'Deadline', cell: (f) => <Text value={f.deadline ?? '—'} /> },
          { header: 'Control', cell: (f) => <Text value={f.controlId ? (controlName.get(f.controlId) ?? RESTRICTED_NAME) : '—'} /> },
          { header: 'Owner', cell: (f) => <Text value={f.owner?.name ?? f.ownerGroup?.name ?? '—'} /> },
        ]}
      />
      {canCreate && (
        <details>
          <summary>Add a finding</summary>
          <form method="post" action="/audits/findings" class="card form">
            <CsrfField token={csrfToken} />
            <input type="hidden" name="auditPlanId" value={plan.id} />
            <Field label="Title" name="title" required maxlength={300} />
            <Field label="Description" name="description" type="textarea" />
            <Field label="Deadline" name="deadline" type="date" />
            <Field label="Control" name="controlId">
              <Select name="controlId" options={[{ value: '', label: '—' }, ...choices.controls]} />
            </Field>
            <button type="submit">Add finding (open)</button>
          </form>
        </details>
      )}
    </section>
  );
}
