import type { auditFindings, auditPlans } from '../../../db/schema';
import { CsrfField, Field, Select, type Option } from '../../../views/components/form';
import type { Page } from '../../platform/http/paging';
import { DataTable, Text } from '../../../views/components/table';
import type { RecordView } from '../../platform/records/records';
import { RESTRICTED_NAME } from '../../platform/records/links';

export type AuditPlanView = RecordView<typeof auditPlans>;

export const readable = (value: string) => value.replaceAll('_', ' ');

/** The plan's findings, with a short form to add one for those who may create findings. */
export function FindingsSection({ plan, findings, controlName, choices, canCreate, csrfToken }: {
  plan: AuditPlanView; findings: Page<RecordView<typeof auditFindings>>; controlName: Map<string, string>; choices: { controls: Option[] }; canCreate: boolean; csrfToken: string;
}): JSX.Element {
  return (
    <section id="findings">
      <h2>Findings</h2>
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
      {findings.total > findings.rows.length && <p class="muted" safe>{`Showing ${findings.rows.length} of ${findings.total} findings.`}</p>}
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
