import type { AnalysisDetail, MappingKind, PackageScore, StatusCounts } from '../schema';
import type { TreeRow } from '../analyses-service';
import type { ExceptionView } from '../../exceptions/schema';
import type { ShownEntry } from '../../../platform/records/history-format';
import { HistoryTable } from '../../../platform/record-screens/record-views';
import { Flash, FormError } from '../../../../views/components/flash';
import { CsrfField, Field, Select, type Option } from '../../../../views/components/form';
import { DataTable, Text, When } from '../../../../views/components/table';
import { ExceptionRequestForm, Expiry, EXCEPTION_STATUS_LABELS, DecisionButtons, type Decider } from '../../exceptions/views';

export const ANALYSIS_STATUS_LABELS: Record<string, string> = {
  not_assessed: 'Not assessed',
  compliant: 'Compliant',
  partially_compliant: 'Partially compliant',
  non_compliant: 'Non-compliant',
  not_applicable: 'Not applicable',
};
const STATUS_OPTIONS: Option[] = Object.entries(ANALYSIS_STATUS_LABELS).map(([value, label]) => ({ value, label }));
const KIND_LABELS: Record<string, string> = { requirement: 'Requirement', additional: 'Additional', heading: 'Heading' };
export const MAPPING_LABELS: Record<MappingKind, { plural: string; singular: string; base: string }> = {
  controls: { plural: 'Controls', singular: 'control', base: '/controls' },
  policies: { plural: 'Policies', singular: 'policy', base: '/policies' },
  risks: { plural: 'Risks', singular: 'risk', base: '/risks' },
  projects: { plural: 'Remediation projects', singular: 'project', base: '/projects' },
};

const pct = (value: number | null) => (value === null ? '—' : `${value}%`);

function ScoreLine({ label, c }: { label: string; c: StatusCounts }): JSX.Element {
  return (
    <tr>
      <th scope="row" safe>{label}</th>
      <td class="num">{String(c.total)}</td>
      <td class="num">{String(c.compliant)}</td>
      <td class="num">{String(c.partially_compliant)}</td>
      <td class="num">{String(c.non_compliant)}</td>
      <td class="num">{String(c.not_applicable)}</td>
      <td class="num">{String(c.not_assessed)}</td>
      <td class="num"><strong safe>{pct(c.percentCompliant)}</strong></td>
    </tr>
  );
}

/** Requirements and additional items scored separately; headings are not counted. */
export function ScoreCard({ score }: { score: PackageScore }): JSX.Element {
  return (
    <div class="table-wrap" id="score">
      <table class="data">
        <caption class="muted">Compliant ÷ (total − not applicable); not assessed counts against the score. Headings are not counted.</caption>
        <thead><tr><th scope="col">Items</th><th scope="col">Total</th><th scope="col">Compliant</th><th scope="col">Partially</th>
          <th scope="col">Non-compliant</th><th scope="col">Not applicable</th><th scope="col">Not assessed</th><th scope="col">Score</th></tr></thead>
        <tbody>
          <ScoreLine label="Requirements" c={score.requirements} />
          <ScoreLine label="Additional items" c={score.additional} />
        </tbody>
      </table>
    </div>
  );
}

/** Deeper items are indented like this depth (static/app.css has one rule per depth). */
const MAX_INDENT = 12;

/** One item of the tree; with an editable analysis, its status select PATCHes and htmx swaps this row for the answer. */
export function TreeItemRow({ row }: { row: TreeRow }): JSX.Element {
  const a = row.analysis;
  const counts = a ? `${a.counts.controls} / ${a.counts.policies} / ${a.counts.risks} / ${a.counts.projects}` : '';
  return (
    <tr id={`item-${row.itemId}`} class={`kind-${row.kind}`}>
      <td class={`depth-${Math.min(row.depth, MAX_INDENT)}`}>{row.kind === 'heading' ? <strong safe>{row.code}</strong> : <Text value={row.code} />}</td>
      <td>{a ? <a href={`/compliance/analyses/${a.id}`} safe>{row.name}</a> : row.kind === 'heading' ? <strong safe>{row.name}</strong> : <Text value={row.name} />}</td>
      <td><Text value={KIND_LABELS[row.kind]} /></td>
      <td>
        {a && a.canUpdate
          ? (
            <select name="status" aria-label={`Status of ${row.code}`} hx-patch={`/compliance/analyses/${a.id}/status`} hx-trigger="change"
              hx-target="closest tr" hx-swap="outerHTML">
              {STATUS_OPTIONS.map((o) => <option value={o.value} selected={o.value === a.status} safe>{o.label}</option>)}
            </select>
          )
          : a ? <Text value={ANALYSIS_STATUS_LABELS[a.status]} /> : row.kind === 'heading' ? '' : <span class="muted">—</span>}
      </td>
      <td class="num" title="controls / policies / risks / projects"><Text value={counts} /></td>
    </tr>
  );
}

export function PackageTreePage({ name, packageId, rows, score }: { name: string; packageId: string; rows: TreeRow[]; score: PackageScore }): JSX.Element {
  return (
    <>
      <p class="actions">
        <a href="/compliance/packages">← All packages</a>
        <a href={`/compliance/analyses/exceptions`}>Compliance exceptions</a>
        <a href="/compliance/poam">POA&amp;M</a>
      </p>
      <h2 safe>{name}</h2>
      <ScoreCard score={score} />
      <div class="table-wrap" id={`tree-${packageId}`}>
        <table class="data tree">
          <thead><tr><th scope="col">Code</th><th scope="col">Name</th><th scope="col">Kind</th><th scope="col">Status</th>
            <th scope="col" title="controls / policies / risks / projects">Mapped (C / P / R / Pr)</th></tr></thead>
          <tbody>
            {rows.length === 0 ? <tr><td class="empty" colspan="5">This package has no items.</td></tr> : rows.map((row) => <TreeItemRow row={row} />)}
          </tbody>
        </table>
      </div>
    </>
  );
}

const DONE: Record<string, string> = {
  updated: 'Assessment saved.', linked: 'Mapping added.', unlinked: 'Mapping removed.', requested: 'Exception requested.',
  approved: 'Exception approved.', rejected: 'Exception rejected.',
};

export interface AnalysisPageProps {
  analysis: AnalysisDetail;
  canUpdate: boolean;
  canReview: boolean;
  decider: Decider;
  /** Per mapping kind: the pickers' choices, or null when the viewer holds no read right on that module. */
  choices: Record<MappingKind, Option[] | null>;
  exceptions: ExceptionView[];
  history: ShownEntry[];
  csrfToken: string;
  done?: string;
  error?: string;
  exceptionError?: string;
  exceptionErrors?: Record<string, string>;
  exceptionValues?: { title: string; description: string; expiresAt: string };
  /** Sections other modules add to the requirement's page (its evidence). */
  sections?: JSX.Element;
}

function MappingSection({ kind, p }: { kind: MappingKind; p: AnalysisPageProps }): JSX.Element {
  const labels = MAPPING_LABELS[kind];
  const rows = p.analysis.mappings[kind];
  const hidden = p.analysis.mappingCounts[kind] - rows.length;
  const base = `/compliance/analyses/${p.analysis.id}/${kind}`;
  const choices = p.choices[kind];
  return (
    <section id={`mappings-${kind}`}>
      <h3 safe>{labels.plural}</h3>
      <DataTable<AnalysisDetail['mappings']['controls'][number]>
        rows={rows}
        empty={`No ${labels.plural.toLowerCase()} mapped${hidden > 0 ? '' : '.'}`}
        columns={[
          { header: 'Title', cell: (r) => <a href={`${labels.base}/${r.id}`} safe>{r.title}</a> },
          { header: 'Status', cell: (r) => <Text value={r.status} /> },
          ...(p.canUpdate ? [{
            header: 'Remove', cell: (r: { id: string; title: string }) => (
              <form method="post" action={`${base}/${r.id}/remove`} class="inline">
                <CsrfField token={p.csrfToken} />
                <button type="submit" class="danger" aria-label={`Remove ${r.title}`}>Remove</button>
              </form>
            ),
          }] : []),
        ]}
      />
      {hidden > 0 && <p class="muted" safe>{`${hidden} more mapped that you cannot read.`}</p>}
      {p.canUpdate && choices && (
        <form method="post" action={base} class="actions">
          <CsrfField token={p.csrfToken} />
          <label for={`pick-${kind}`} safe>{`Map a ${labels.singular}`}</label>
          <Select name="id" id={`pick-${kind}`} options={[{ value: '', label: 'Choose…' }, ...choices]} />
          <button type="submit">Add</button>
        </form>
      )}
    </section>
  );
}

/** An analysis: its requirement, assessment, mappings with pickers, exceptions and History. */
export function AnalysisPage(p: AnalysisPageProps): JSX.Element {
  const a = p.analysis;
  return (
    <>
      <Flash kind="success" message={p.done ? DONE[p.done] : undefined} />
      <FormError message={p.error} />
      <p class="actions"><a href={`/compliance/packages/${a.packageId}`} safe>{`← ${a.package.name}`}</a></p>
      <dl class="card details">
        <dt>Code</dt><dd safe>{a.item.code}</dd>
        <dt>Requirement</dt><dd safe>{a.item.name}</dd>
        <dt>Kind</dt><dd safe>{KIND_LABELS[a.item.kind] ?? a.item.kind}</dd>
        <dt>Description</dt><dd class="prewrap" safe>{a.item.description || '—'}</dd>
        <dt>Status</dt><dd safe>{ANALYSIS_STATUS_LABELS[a.status]}</dd>
        <dt>Assessor</dt><dd safe>{a.assessor?.name ?? '—'}</dd>
        <dt>Assessed</dt><dd><When value={a.assessedAt} /></dd>
        <dt>Owner</dt><dd safe>{a.owner?.name ?? a.ownerGroup?.name ?? '—'}</dd>
      </dl>
      {p.canUpdate && (
        <form method="post" action={`/compliance/analyses/${a.id}`} class="card form" id="assess">
          <h3>Assess</h3>
          <CsrfField token={p.csrfToken} />
          <Field label="Status" name="status"><Select name="status" options={STATUS_OPTIONS} selected={a.status} /></Field>
          <Field label="Notes" name="notes" type="textarea" value={a.notes} maxlength={100000} />
          <button type="submit">Save assessment</button>
        </form>
      )}
      {!p.canUpdate && a.notes && <p class="prewrap card" safe>{a.notes}</p>}
      <h2>Mappings</h2>
      {(Object.keys(MAPPING_LABELS) as MappingKind[]).map((kind) => <MappingSection kind={kind} p={p} />)}
      <h2>Exceptions</h2>
      <DataTable<ExceptionView>
        id="exceptions"
        rows={p.exceptions}
        empty="No exceptions for this requirement."
        columns={[
          { header: 'Title', cell: (e) => <Text value={e.title} /> },
          { header: 'Status', cell: (e) => <Text value={EXCEPTION_STATUS_LABELS[e.status] ?? e.status} /> },
          { header: 'Expires', cell: (e) => <Expiry e={e} /> },
          { header: 'Approver', cell: (e) => <Text value={e.approver?.name ?? '—'} /> },
          ...(p.canReview ? [{
            header: 'Decision',
            cell: (e: ExceptionView) => (e.status === 'requested' ? <DecisionButtons e={e} csrfToken={p.csrfToken} base="/compliance/analyses/exceptions" decider={p.decider} /> : <Text value={e.decisionNote} />),
          }] : []),
        ]}
      />
      {p.canUpdate && (
        <ExceptionRequestForm action={`/compliance/analyses/${a.id}/exceptions`} csrfToken={p.csrfToken} values={p.exceptionValues}
          errors={p.exceptionErrors} error={p.exceptionError} />
      )}
      {p.sections}
      <h2>History</h2>
      <HistoryTable id="requirement-history" entries={p.history} />
    </>
  );
}
