import { CsrfField, Field, type FieldErrors } from '../../../views/components/form';
import { Flash } from '../../../views/components/flash';
import { Pager } from '../../../views/components/pager';
import { DataTable, Text, When } from '../../../views/components/table';
import type { ImportResult, RowResult } from '../../platform/csv/engine';
import type { Page } from '../../platform/http/paging';
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
      <p class="muted" safe>{`${counts.pending} pending · ${counts.keep} to keep · ${counts.revoke} to revoke · ${counts.modify} to modify`}</p>
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

export interface ItemImportProps {
  programId: string;
  programName: string;
  csrfToken: string;
  /** The check or import result, when a file was sent. */
  result?: ImportResult;
  /** The checked file, carried to Import rows so exactly that file is imported. */
  csv?: string;
  /** A file refused as a whole. */
  refusal?: string;
}

const OUTCOME_LABEL: Record<RowResult['outcome'], string> = { error: 'Error', create: 'Create', update: 'Update', unchanged: 'Unchanged' };

function RowDetails({ row }: { row: RowResult }): JSX.Element {
  if (row.errors?.length) return <ul>{row.errors.map((e) => <li safe>{e.column ? `${e.column}: ${e.message}` : e.message}</li>)}</ul>;
  if (row.changes?.length) return <ul>{row.changes.map((c) => <li safe>{`${c.column}: ${c.old || '(blank)'} -> ${c.new || '(blank)'}`}</li>)}</ul>;
  return <></>;
}

/** Import CSV on a review program: choose a file, Check file, then Import rows when the check found no errors. */
export function ItemImport(p: ItemImportProps): JSX.Element {
  const base = `/account-reviews/${p.programId}/items/import`;
  const r = p.result;
  const sorted = r ? [...r.rows].sort((a, b) => (a.outcome === 'error' ? 0 : 1) - (b.outcome === 'error' ? 0 : 1) || a.line - b.line) : [];
  return (
    <section>
      <p class="actions">
        <a class="button" href={`${base}/template.csv`}>Download template</a>
        <a class="button" href={`${base}/current.csv`}>Download current records</a>
        <a href={`/account-reviews/${p.programId}`} safe>{`Back to ${p.programName}`}</a>
      </p>
      <Flash kind="error" message={p.refusal} />
      {r && (
        <div>
          <Flash kind={r.outcome === 'imported' ? 'success' : r.counts.error ? 'error' : 'info'} message={
            r.outcome === 'imported' ? `Imported: ${r.counts.create} added, ${r.counts.update} updated, ${r.counts.unchanged} unchanged.`
              : r.outcome === 'refused' ? `Nothing was imported: ${r.counts.error} rows have errors.`
              : `Checked, nothing saved: ${r.counts.create} to add, ${r.counts.update} to update, ${r.counts.unchanged} unchanged, ${r.counts.error} with errors.`} />
          <DataTable rows={sorted} empty="No rows." columns={[
            { header: 'Line', cell: (row) => <Text value={row.line} />, class: 'num' },
            { header: 'Outcome', cell: (row) => <Text value={OUTCOME_LABEL[row.outcome]} /> },
            { header: 'Details', cell: (row) => <RowDetails row={row} /> },
          ]} />
          {r.outcome === 'checked' && r.counts.error === 0 && p.csv !== undefined && (
            <form method="post" action={`${base}/apply`} class="card form">
              <CsrfField token={p.csrfToken} />
              <input type="hidden" name="fileName" value={r.fileName} />
              <input type="hidden" name="csv" value={p.csv} />
              <button type="submit">Import rows</button>
            </form>
          )}
        </div>
      )}
      {r?.outcome !== 'imported' && (
        <form method="post" action={`${base}/check`} enctype="multipart/form-data" class="card form">
          <CsrfField token={p.csrfToken} />
          <div class="field">
            <label for="import-file">CSV file</label>
            <input type="file" id="import-file" name="file" accept=".csv,text/csv" required aria-describedby="import-file-hint" />
            <span class="hint" id="import-file-hint">Columns: id, account*, system*, owner, decision, reviewer, reviewed_at. Rows with an id update that item; rows without add one.</span>
          </div>
          <button type="submit">Check file</button>
        </form>
      )}
    </section>
  );
}
