import type { Crosswalk, CrosswalkPair, CrosswalkSide, StatusCopyChange, StatusCopyPreview } from '../crosswalk-service';
import { previewedChanges } from '../crosswalk-service';
import { CsrfField, Field, Select, type Option } from '../../../../views/components/form';
import { DataTable, Text } from '../../../../views/components/table';
import { Flash } from '../../../../views/components/flash';
import { ANALYSIS_STATUS_LABELS } from './tree';

export const COMPARE_PATH = '/compliance/packages/compare';

const statusLabel = (status: string) => ANALYSIS_STATUS_LABELS[status] ?? status;

const Requirement = ({ side }: { side: CrosswalkSide }) => (
  <><a href={`/compliance/analyses/${side.analysisId}`} safe>{side.code}</a> <Text value={side.name} /></>
);

const Controls = ({ pair }: { pair: CrosswalkPair }) => (
  <ul class="plain">
    {pair.controls.map((c) => (c.id ? <li><a href={`/controls/${c.id}`} safe>{c.name}</a></li> : <li class="muted" safe>{c.name}</li>))}
  </ul>
);

const Hidden = ({ left, right }: { left: string; right: string }) => (
  <><input type="hidden" name="left" value={left} /><input type="hidden" name="right" value={right} /></>
);

export interface ComparePageProps {
  packages: Option[];
  left: string;
  right: string;
  view: Crosswalk | null;
  canUpdate: boolean;
  csrfToken: string;
  error?: string;
  done?: string;
}

/** Compliance › Packages › Compare: choose two packages, see the requirements sharing controls side by side. */
export function ComparePage(p: ComparePageProps): JSX.Element {
  const choices = [{ value: '', label: 'Choose a package' }, ...p.packages];
  return (
    <>
      <p class="actions"><a href="/compliance/packages">← Packages</a></p>
      <Flash kind="success" message={p.done} />
      <Flash kind="error" message={p.error} />
      <form method="get" action={COMPARE_PATH} class="card form" id="compare-choose">
        <Field label="Left package" name="left"><Select name="left" options={choices} selected={p.left} /></Field>
        <Field label="Right package" name="right"><Select name="right" options={choices} selected={p.right} /></Field>
        <p class="actions"><button type="submit">Compare</button></p>
      </form>
      {p.view && <CrosswalkTable view={p.view} canUpdate={p.canUpdate} csrfToken={p.csrfToken} />}
    </>
  );
}

function CrosswalkTable({ view, canUpdate, csrfToken }: { view: Crosswalk; canUpdate: boolean; csrfToken: string }): JSX.Element {
  const n = view.pairs.length;
  return (
    <section aria-labelledby="crosswalk-heading">
      <h2 id="crosswalk-heading" safe>{`${view.left.name} and ${view.right.name}`}</h2>
      <p safe>{`${n} pair${n === 1 ? '' : 's'} of requirements share at least one mapped control.`}</p>
      {canUpdate && n > 0 && (
        <div class="actions">
          {(['left', 'right'] as const).map((from) => (
            <form method="post" action={`${COMPARE_PATH}/preview`} class="inline">
              <CsrfField token={csrfToken} />
              <Hidden left={view.left.id} right={view.right.id} />
              <input type="hidden" name="from" value={from} />
              <button type="submit" class="secondary" safe>
                {`Preview copying statuses from ${view[from].name} to ${view[from === 'left' ? 'right' : 'left'].name}`}
              </button>
            </form>
          ))}
        </div>
      )}
      <DataTable<CrosswalkPair> id="crosswalk" rows={view.pairs} empty="No requirement of one package shares a mapped control with a requirement of the other." columns={[
        { header: `${view.left.name}: requirement`, cell: (pair) => <Requirement side={pair.left} /> },
        { header: 'Status', cell: (pair) => <Text value={statusLabel(pair.left.status)} /> },
        { header: 'Shared controls', cell: (pair) => <Controls pair={pair} /> },
        { header: `${view.right.name}: requirement`, cell: (pair) => <Requirement side={pair.right} /> },
        { header: 'Status', cell: (pair) => <Text value={statusLabel(pair.right.status)} /> },
      ]} />
    </section>
  );
}

/** The reviewed bulk action: what would change (old → new), what is left alone and why, then Apply. */
export function CopyPreviewPage({ preview, csrfToken, error }: { preview: StatusCopyPreview; csrfToken: string; error?: string }): JSX.Element {
  const to = preview.from === 'left' ? 'right' : 'left';
  const back = `${COMPARE_PATH}?left=${preview.left.id}&right=${preview.right.id}`;
  const n = preview.changes.length;
  return (
    <>
      <p class="actions"><a href={back}>← Back to the comparison</a></p>
      <Flash kind="error" message={error} />
      <h2 safe>{`Copy statuses from ${preview[preview.from].name} to ${preview[to].name}`}</h2>
      <p safe>{n === 0
        ? 'Nothing would change: every requirement already has the status of the requirements it shares controls with.'
        : `${n} requirement${n === 1 ? '' : 's'} of ${preview[to].name} would change. Requirements not yet assessed in ${preview[preview.from].name} are not copied.`}</p>
      <DataTable<StatusCopyChange> id="copy-preview" rows={preview.changes} empty="No status would change." columns={[
        { header: 'Requirement', cell: (c) => <><a href={`/compliance/analyses/${c.analysisId}`} safe>{c.code}</a> <Text value={c.name} /></> },
        { header: 'Status now', cell: (c) => <Text value={statusLabel(c.before)} /> },
        { header: 'New status', cell: (c) => <Text value={statusLabel(c.after)} /> },
        { header: 'Taken from', cell: (c) => <Text value={c.from.join(', ')} /> },
      ]} />
      {preview.skipped.length > 0 && (
        <section aria-labelledby="skipped-heading">
          <h3 id="skipped-heading">Left as they are</h3>
          <ul>{preview.skipped.map((s) => <li safe>{`${s.code} ${s.name}: ${s.reason}`}</li>)}</ul>
        </section>
      )}
      {n > 0 && (
        <form method="post" action={`${COMPARE_PATH}/apply`} class="card">
          <CsrfField token={csrfToken} />
          <Hidden left={preview.left.id} right={preview.right.id} />
          <input type="hidden" name="from" value={preview.from} />
          <input type="hidden" name="changes" value={JSON.stringify(previewedChanges(preview.changes))} />
          <p class="actions"><button type="submit" safe>{`Apply ${n} change${n === 1 ? '' : 's'}`}</button><a href={back}>Cancel</a></p>
        </form>
      )}
    </>
  );
}
