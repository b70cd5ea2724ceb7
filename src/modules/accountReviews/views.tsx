import { CsrfField, Field, type FieldErrors } from '../../../views/components/form';
import { Flash } from '../../../views/components/flash';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text, When } from '../../../views/components/table';
import type { Page } from '../../platform/paging';
import { DECISIONS, type ItemView } from './schema';

export interface ItemsSectionProps {
  programId: string;
  page: Page<ItemView>;
  counts: Record<'pending' | 'keep' | 'revoke' | 'modify', number>;
  /** The viewer may change items and the program is open. */
  canDecide: boolean;
  closed: boolean;
  csrfToken: string;
  /** Shown with the add form after a refused submission. */
  errors?: FieldErrors;
  error?: string;
  values?: Record<string, string>;
  /** The Import CSV control, when the viewer may import into this program. */
  importControl?: JSX.Element;
}

const decisionOptions = [{ value: '', label: 'Choose…' }, ...DECISIONS.map((d) => ({ value: d, label: d }))];

function DecisionForm({ programId, item, csrfToken }: { programId: string; item: ItemView; csrfToken: string }): JSX.Element {
  return (
    <form method="post" action={`/account-reviews/${programId}/items/${item.id}/decision`} class="actions">
      <CsrfField token={csrfToken} />
      <select name="decision" required aria-label={`Decision for ${item.account} on ${item.system}`}>
        {decisionOptions.map((o) => <option value={o.value} selected={o.value === (item.decision ?? '')} safe>{o.label}</option>)}
      </select>
      <button type="submit">{item.decision ? 'Change' : 'Decide'}</button>
    </form>
  );
}

/** The items of a review program with paging and, for those who may, decision forms and the add form. */
export function ItemsSection(p: ItemsSectionProps): JSX.Element {
  const target = `items-${p.programId}`;
  const { counts } = p;
  return (
    <section id={target}>
      <h2>Accounts to review</h2>
      <p class="muted" safe>{`${counts.pending} pending · ${counts.keep} keep · ${counts.revoke} revoke · ${counts.modify} modify`}</p>
      {p.closed && <p class="muted">This program is closed: decisions and new items are refused until it is reopened.</p>}
      {p.importControl}
      <DataTable
        rows={p.page.rows}
        empty="No accounts in this program yet."
        columns={[
          { header: 'Account', cell: (i) => <Text value={i.account} /> },
          { header: 'System', cell: (i) => <Text value={i.system} /> },
          { header: 'Owner', cell: (i) => <Text value={i.owner?.name ?? ''} /> },
          { header: 'Decision', cell: (i) => <Text value={i.decision ?? 'pending'} /> },
          { header: 'Reviewer', cell: (i) => <Text value={i.reviewer?.name ?? ''} /> },
          { header: 'Reviewed', cell: (i) => <When value={i.reviewedAt} /> },
          ...(p.canDecide ? [{ header: 'Record decision', cell: (i: ItemView) => <DecisionForm programId={p.programId} item={i} csrfToken={p.csrfToken} /> }] : []),
        ]}
      />
      <Pager page={p.page.page} pageSize={p.page.pageSize} total={p.page.total}
        href={(n) => `/account-reviews/${p.programId}/items?page=${n}`} target={target} />
      {p.canDecide && (
        <form method="post" action={`/account-reviews/${p.programId}/items`} class="card form">
          <h3>Add an account</h3>
          <Flash kind="error" message={p.error} />
          <CsrfField token={p.csrfToken} />
          <Field label="Account" name="account" required value={p.values?.account} error={p.errors?.account} />
          <Field label="System" name="system" required value={p.values?.system} error={p.errors?.system} />
          <Field label="Owner email" name="owner" type="email" value={p.values?.owner} error={p.errors?.owner} hint="An active user; optional" />
          <Field label="Notes" name="notes" type="textarea" value={p.values?.notes} error={p.errors?.notes} />
          <button type="submit">Add account</button>
        </form>
      )}
    </section>
  );
}
