import { plural } from '../core/text';
import { CsrfField } from '../../../views/components/form';
import { Flash } from '../../../views/components/flash';
import { errorsFirst, type ImportResult, type RowResult } from './engine';
import { valueLabel } from '../core/value-labels';

/** Rows shown on screen (errors first, with exact counts); the REST answer pages through every row. */
export const SHOWN_ROWS = 2_000;

export interface ImportPageProps {
  area: string;
  title: string;
  csrfToken: string;
  maxMegabytes: number;
  maxRows: number;
}

/** The import dialog: choose a file, Check file; the result (and Import rows when it has no errors) appears below. */
export function ImportPage(p: ImportPageProps): JSX.Element {
  return (
    <section class="import-dialog">
      <p class="actions">
        <a class="button secondary" href={`/${p.area}/import/template.csv`}>Download template</a>
        <a class="button secondary" href={`/${p.area}/import/current.csv`}>Download current records</a>
        <a href={`/${p.area}`} safe>{`Back to ${p.title.toLowerCase()}`}</a>
      </p>
      <form class="card form" method="post" action={`/${p.area}/import/check`} enctype="multipart/form-data"
        hx-post={`/${p.area}/import/check`} hx-encoding="multipart/form-data" hx-target="#import-result" hx-swap="innerHTML"
        hx-indicator="#import-progress" hx-disabled-elt="find button">
        <CsrfField token={p.csrfToken} />
        <div class="field">
          <label for="import-file">CSV file</label>
          <input type="file" id="import-file" name="file" accept=".csv,text/csv" required />
          <p class="hint" safe>{`UTF-8, comma or semicolon separated, first row the column names; up to ${p.maxMegabytes} MB and ${p.maxRows.toLocaleString('en')} rows. Rows with an id update that record; rows without create one.`}</p>
        </div>
        <button type="submit">Check file</button>
        <span id="import-progress" class="htmx-indicator" role="status">Checking the file…</span>
      </form>
      <div id="import-result" aria-live="polite"></div>
    </section>
  );
}

const OUTCOME_LABEL: Record<RowResult['outcome'], string> = { error: 'Error', create: 'Create', update: 'Update', unchanged: 'Unchanged' };

/** A column by its label: 'owner_group' reads 'Owner group', a custom field 'cf.risk_tier' 'Risk tier'. */
const columnLabel = (column: string) => (column ? valueLabel(column.replace(/^cf\./, '')) : '');
const cellText = (text: string) => text || '(blank)';

function Details({ row }: { row: RowResult }): JSX.Element {
  if (row.errors?.length) {
    return <ul class="plain">{row.errors.map((e) => <li safe>{e.column ? `${columnLabel(e.column)}: ${e.message}` : e.message}</li>)}</ul>;
  }
  if (row.changes?.length) {
    return (
      <ul class="plain changes">{row.changes.map((c) => (
        row.outcome === 'create'
          ? <li><strong safe>{columnLabel(c.column)}</strong>{': '}<span safe>{c.new}</span></li>
          : <li><strong safe>{columnLabel(c.column)}</strong>{': '}<span safe>{cellText(c.old)}</span>{' → '}<span safe>{cellText(c.new)}</span></li>
      ))}</ul>
    );
  }
  return <></>;
}

/** The record a row created or changed, by its title where the row gives one. */
function RecordLink({ row, href }: { row: RowResult; href?: (id: string) => string | null }): JSX.Element {
  const target = row.id && href ? href(row.id) : null;
  if (!target) return <span class="muted">{row.outcome === 'create' ? 'New' : '—'}</span>;
  return <a href={target} safe>{row.title ?? (row.outcome === 'create' ? 'Created record' : 'Open the record')}</a>;
}

export interface ImportResultProps {
  area: string;
  result: ImportResult;
  csrfToken: string;
  /** The checked file, carried to Import rows so exactly that file is imported. */
  csv?: string;
  /** The page of a record a row created or changed; null when it has none. */
  recordHref?(id: string): string | null;
}

/** Counts, an outcome filter (pure CSS, no script), the rows errors first, and Import rows when nothing failed. */
export function ImportResultView({ area, result, csrfToken, csv, recordHref }: ImportResultProps): JSX.Element {
  const c = result.counts;
  const rows = errorsFirst(result.rows);
  const shown = rows.slice(0, SHOWN_ROWS);
  const summary = `${result.rows.length} rows: ${c.create} to create, ${c.update} to update, ${c.unchanged} unchanged, ${c.error} with errors.`;
  const heading = result.outcome === 'imported' ? 'Imported' : result.outcome === 'refused' ? 'Nothing was imported' : 'Check result';
  const filters = ['all', 'error', 'create', 'update', 'unchanged'] as const;
  return (
    <section class="import-result">
      <h2 safe>{heading}</h2>
      {result.outcome === 'imported'
        ? <Flash kind="success" message={`Imported ${result.fileName}: ${c.create} created, ${c.update} updated, ${c.unchanged} unchanged.`} />
        : <p safe>{`${result.fileName}: ${summary}`}</p>}
      {result.outcome === 'refused' && <Flash kind="error" message="Some rows failed when importing, so no row was imported. Correct them and check the file again." />}
      {result.outcome === 'checked' && c.error > 0 && <Flash kind="error" message="Correct the rows with errors and check the file again; Import rows is offered once no row has an error." />}
      {result.outcome === 'checked' && c.error === 0 && csv !== undefined && (
        <form method="post" action={`/${area}/import/apply`} hx-post={`/${area}/import/apply`} hx-target="#import-result" hx-swap="innerHTML"
          hx-indicator="#apply-progress" hx-disabled-elt="find button">
          <CsrfField token={csrfToken} />
          <input type="hidden" name="fileName" value={result.fileName} />
          <input type="hidden" name="csv" value={csv} />
          <button type="submit" safe>{`Import rows (${plural(c.create + c.update, 'change')})`}</button>
          <span id="apply-progress" class="htmx-indicator" role="status">Importing…</span>
        </form>
      )}
      <fieldset class="filters">
        <legend>Show</legend>
        {filters.map((f) => (
          <label><input type="radio" name="outcome-filter" id={`show-${f}`} value={f} checked={f === 'all'} /> <span safe>{f === 'all' ? `All (${result.rows.length})` : `${OUTCOME_LABEL[f]} (${c[f]})`}</span></label>
        ))}
      </fieldset>
      {shown.length < rows.length && <p class="muted" safe>{`Showing the first ${shown.length} of ${rows.length} rows, errors first.`}</p>}
      <div class="table-wrap">
        <table class="data">
          <thead><tr><th scope="col">Line</th><th scope="col">Outcome</th><th scope="col">Record</th><th scope="col">Details</th></tr></thead>
          <tbody>
            {shown.map((row) => (
              <tr class={`o-${row.outcome}`}>
                <td class="num" safe>{String(row.line)}</td>
                <td safe>{OUTCOME_LABEL[row.outcome]}</td>
                <td><RecordLink row={row} href={recordHref} /></td>
                <td><Details row={row} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

export const RefusedFile = ({ message }: { message: string }) => <Flash kind="error" message={message} />;
