import Html from '@kitajs/html';
import type { AnalysisDetail, MappingKind, PackageScore, StatusCounts } from '../schema';
import type { PackageTreeView, TreeRow } from '../tree-service';
import { RequirementText } from './requirement-text';
import { FilterBar, type FilterSelect } from '../../../../views/components/filter-bar';
import type { ExceptionView } from '../../exceptions/schema';
import type { ShownEntry } from '../../../platform/records/history-format';
import { HistoryTable, readable } from '../../../platform/record-screens/record-views';
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

/**
 * Requirements and additional items scored separately; headings are not counted. With `oob`, an htmx answer to an
 * inline status change carries it and htmx puts it in place of the page's score (out-of-band swap).
 */
export function ScoreCard({ score, oob, asOf }: { score: PackageScore; oob?: boolean; asOf?: string }): JSX.Element {
  return (
    <div class="table-wrap" id={asOf ? 'score-as-of' : 'score'} hx-swap-oob={oob ? 'true' : undefined}>
      <table class="data">
        <caption class="muted" safe>{asOf
          ? `Score as it stood at the end of ${asOf} (UTC), computed from History: compliant ÷ (total − not applicable).`
          : 'Score: compliant ÷ (total − not applicable); not assessed counts against the score. Headings are not counted.'}</caption>
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

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/**
 * A heading's progress over the requirements and additional items under it: a bar (compliant, then assessed) and the
 * same as words. With `oob`, it replaces the heading's progress on the page (out-of-band swap).
 */
export function HeadingProgress({ id, c, oob }: { id: string; c: StatusCounts | undefined; oob?: boolean }): JSX.Element {
  const counts = c ?? { total: 0, applicable: 0, not_assessed: 0, not_applicable: 0, percentCompliant: null } as Pick<StatusCounts, 'total' | 'applicable' | 'not_assessed' | 'not_applicable' | 'percentCompliant'>;
  const assessed = counts.applicable - counts.not_assessed;
  const width = (n: number) => (counts.applicable === 0 ? '0' : String(Math.round((100 * n) / counts.applicable)));
  const compliant = counts.percentCompliant === null ? 0 : Math.round(counts.percentCompliant);
  const words = counts.total === 0
    ? 'Nothing to assess'
    : `${assessed} of ${plural(counts.applicable, 'item', 'items')} assessed, ${pct(counts.percentCompliant)} compliant${counts.not_applicable ? `, ${counts.not_applicable} not applicable` : ''}`;
  return (
    <span class="progress" id={`progress-${id}`} hx-swap-oob={oob ? 'true' : undefined}>
      <svg class="bar" viewBox="0 0 100 6" aria-hidden="true">
        <rect width="100" height="6" class="bar-track" /><rect width={width(assessed)} height="6" class="bar-assessed" />
        <rect width={String(compliant)} height="6" class="bar-compliant" />
      </svg>
      <span safe>{words}</span>
    </span>
  );
}

/** Deeper items are indented like this depth at most (static/app.css has one rule per depth). */
const MAX_INDENT = 12;

/**
 * The status select's options, one string per selected status. An option without a value sends its text, and its end
 * tag may be left out: the 287-requirement page carries 1,435 options, and this keeps each row about 200 bytes
 * smaller (the status route takes a label as well as a key).
 */
const STATUS_OPTIONS_HTML: Record<string, string> = Object.fromEntries(Object.keys(ANALYSIS_STATUS_LABELS).map((status) =>
  [status, STATUS_OPTIONS.map((o) => `<option${o.value === status ? ' selected' : ''}>${Html.escapeHtml(o.label)}`).join('')]));

/** Indentation of an item within its table: its depth below the section's heading (or from the top outside any section). */
const indent = (row: TreeRow) => {
  const depth = Math.min(row.sectionId ? row.depth - 1 : row.depth, MAX_INDENT);
  return depth > 0 ? `depth-${depth}` : undefined;
};

/**
 * One item of the tree. With an editable analysis, its status select PATCHes (the table names the target, this row,
 * and the swap) and htmx swaps this row for the answer; a heading inside a section shows its progress instead.
 * Kept small: the page of a 287-requirement package stays under 150 KB.
 */
export function TreeItemRow({ row, progress }: { row: TreeRow; progress?: StatusCounts }): JSX.Element {
  const a = row.analysis;
  if (row.kind === 'heading') {
    return (
      <tr class="kind-heading">
        <td class={indent(row)}><strong safe>{row.code}</strong></td>
        <td><strong safe>{row.name}</strong></td>
        <td colspan="5"><HeadingProgress id={row.itemId} c={progress} /></td>
      </tr>
    );
  }
  return (
    <tr class={row.kind === 'additional' ? 'kind-additional' : undefined}>
      <td class={indent(row)} safe>{row.code}</td>
      <td>
        {a ? <a href={`/compliance/analyses/${a.id}`} safe>{row.name}</a> : <span safe>{row.name}</span>}
        {row.kind === 'additional' && <> <span class="tag">Additional</span></>}
        {row.description && <RequirementText text={row.description} />}
      </td>
      <td>
        {a && a.canUpdate
          ? <select name="status" aria-label={`Status of ${row.code}`} hx-patch={`/compliance/analyses/${a.id}`}>{STATUS_OPTIONS_HTML[a.status]}</select>
          : a ? <span safe>{ANALYSIS_STATUS_LABELS[a.status]}</span> : <span class="muted">—</span>}
      </td>
      {a
        ? `<td>${a.counts.controls}</td><td>${a.counts.policies}</td><td>${a.counts.risks}</td><td>${a.counts.projects}</td>`
        : '<td></td><td></td><td></td><td></td>'}
    </tr>
  );
}

/**
 * The answer to an inline status change: the row, and out of band the score and the progress of every heading above
 * it. Each out-of-band part is wrapped in a <template>: after a <tr> the HTML parser is in a table body, where a <div>
 * would be moved out of place, while a template is kept as it is (htmx swaps a template's content out of band).
 */
export function StatusChanged({ row, tree }: { row: TreeRow; tree: PackageTreeView }): JSX.Element {
  return (
    <>
      <TreeItemRow row={row} />
      <template><ScoreCard score={tree.score} oob /></template>
      {row.headingIds.map((id) => <template><HeadingProgress id={id} c={tree.progress.get(id)} oob /></template>)}
    </>
  );
}

function TreeTable({ rows, tree }: { rows: TreeRow[]; tree: PackageTreeView }): JSX.Element {
  return (
    <div class="table-wrap">
      <table class="data tree">
        <thead><tr><th>Code</th><th>Requirement</th><th>Status</th><th>Mapped controls</th><th>Mapped policies</th><th>Mapped risks</th><th>Remediation projects</th></tr></thead>
        <tbody>{rows.map((row) => <TreeItemRow row={row} progress={tree.progress.get(row.itemId)} />)}</tbody>
      </table>
    </div>
  );
}

export interface TreeQuery {
  q: string;
  status: string;
  mapped: string;
  text: string;
}

const MAPPED_OPTIONS: Option[] = [
  { value: 'some', label: 'Mapped to something' }, { value: 'none', label: 'Not mapped' },
  { value: 'controls', label: 'Mapped to a control' }, { value: 'policies', label: 'Mapped to a policy' },
  { value: 'risks', label: 'Mapped to a risk' }, { value: 'projects', label: 'Mapped to a remediation project' },
];

/** Expand all / Collapse all: plain forms (remembered for the viewer), back to the same filters. */
function AllHeadings({ tree, query, csrfToken }: { tree: PackageTreeView; query: TreeQuery; csrfToken: string }): JSX.Element {
  const kept = Object.entries(query).filter(([, value]) => value !== '');
  const form = (open: 'all' | 'none', label: string) => (
    <form method="post" action={`/compliance/packages/${tree.packageId}/headings`} class="inline">
      <CsrfField token={csrfToken} />
      <input type="hidden" name="open" value={open} />
      {kept.map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <button type="submit" class="secondary">{label}</button>
    </form>
  );
  return <>{form('all', 'Expand all')}{form('none', 'Collapse all')}</>;
}

export interface PackageTreePageProps {
  tree: PackageTreeView;
  query: TreeQuery;
  csrfToken: string;
  /** The "as of" form and, for a day chosen, the score as it stood then. */
  pastScore?: JSX.Element;
}

/**
 * A package's requirement tree: the score, the filter bar (search, status, mapping, text), then one collapsible section
 * per top-level heading (details/summary: it opens and closes without script) with its progress; the sections the
 * viewer keeps open are open, and with app.js each open or close is remembered for them (data-headings). With a
 * filter set, only matching items are listed and their sections are open.
 */
export function PackageTreePage({ tree, query, csrfToken, pastScore }: PackageTreePageProps): JSX.Element {
  const headings = tree.rows.filter((r) => r.kind === 'heading').length;
  const total = tree.rows.length - headings;
  const rows = tree.filtered ? tree.rows.filter((r) => r.shown) : tree.rows;
  const showText = query.text === 'shown' || query.q.trim() !== '';
  // Consecutive rows of one top-level heading form its section; rows outside any heading a plain table.
  const groups: { sectionId: string | null; rows: TreeRow[] }[] = [];
  for (const row of rows) {
    const last = groups.at(-1);
    if (last && last.sectionId === row.sectionId && !(row.sectionId === row.itemId)) last.rows.push(row);
    else groups.push({ sectionId: row.sectionId, rows: [row] });
  }
  const filters: FilterSelect[] = [
    { name: 'status', label: 'Status', options: STATUS_OPTIONS, selected: query.status },
    { name: 'mapped', label: 'Mapping', options: MAPPED_OPTIONS, selected: query.mapped },
    { name: 'text', label: 'Requirement text', options: [{ value: 'shown', label: 'Shown' }], selected: query.text, any: 'Hidden' },
  ];
  return (
    <>
      <p class="actions">
        <a href="/compliance/packages">← All packages</a>
        <a href={`/compliance/analyses/exceptions`}>Compliance exceptions</a>
        <a href="/compliance/poam">POA&amp;M</a>
        <a href={`/compliance/packages/${tree.packageId}/soa`}>Statement of Applicability</a>
        <a class="button" href={`/compliance/packages/${tree.packageId}/export/oscal`} download="">Export as OSCAL catalog</a>
      </p>
      <h2>Score</h2>
      <ScoreCard score={tree.score} />
      {pastScore && <><h2 id="score-past">Score at a past date</h2>{pastScore}</>}
      <h2>Requirements</h2>
      <FilterBar action={`/compliance/packages/${tree.packageId}`} label="Filter this package" target="#tree"
        search={{ value: query.q, label: 'Search code, name and text' }} filters={filters} filtered={tree.filtered} />
      {/* The status selects swap their row (target and swap named once here); sections remember themselves at data-headings. */}
      <div id="tree" hx-target="closest tr" hx-swap="outerHTML" hx-vals={showText ? '{"text":"shown"}' : undefined}
        data-headings={`/compliance/packages/${tree.packageId}/headings`}>
        <div class="actions">
          <span class="muted" safe>{tree.filtered ? `${tree.matches} of ${plural(total, 'item', 'items')} match` : plural(total, 'item', 'items')}</span>
          {headings > 0 && <AllHeadings tree={tree} query={query} csrfToken={csrfToken} />}
        </div>
        <p class="muted">Mapped: how many controls, policies, risks and remediation projects address each item.</p>
        {groups.length === 0 && <p class="empty" safe>{tree.filtered ? 'No item matches these filters.' : 'This package has no items.'}</p>}
        {groups.map((group) => {
          // A section opens with its heading (items listed before their heading, which no shipped package does, stay plain).
          if (!group.sectionId || group.rows[0].itemId !== group.sectionId) return <TreeTable rows={group.rows} tree={tree} />;
          const [heading, ...inside] = group.rows;
          const open = tree.filtered || tree.open.has(heading.itemId);
          return (
            <details class="tree-section" id={`section-${heading.itemId}`} open={open} data-open={open ? '1' : ''}>
              <summary>
                <h3><span class="code" safe>{heading.code}</span> <span safe>{heading.name}</span></h3>
                <HeadingProgress id={heading.itemId} c={tree.progress.get(heading.itemId)} />
              </summary>
              {inside.length ? <TreeTable rows={inside} tree={tree} /> : <p class="muted">Nothing under this heading.</p>}
            </details>
          );
        })}
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
  /** The assessment form as sent, kept when it was refused, and its field errors. */
  assessValues?: AssessValues;
  assessErrors?: Record<string, string>;
}

export interface AssessValues {
  status: string;
  notes: string;
  applicable: 'yes' | 'no';
  justification: string;
}

const APPLICABLE_OPTIONS: Option[] = [{ value: 'yes', label: 'Yes' }, { value: 'no', label: 'No' }];

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
          { header: 'Status', cell: (r) => <Text value={readable(r.status)} /> },
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
        <dt>Description</dt><dd><RequirementText text={a.item.description} /></dd>
        <dt>Status</dt><dd safe>{ANALYSIS_STATUS_LABELS[a.status]}</dd>
        <dt>Assessor</dt><dd safe>{a.assessor?.name ?? '—'}</dd>
        <dt>Assessed</dt><dd><When value={a.assessedAt} /></dd>
        <dt>Owner</dt><dd safe>{a.owner?.name ?? a.ownerGroup?.name ?? '—'}</dd>
        <dt>Applicable</dt><dd>{a.applicable ? 'Yes' : 'No'}</dd>
        <dt>Justification</dt><dd class="prewrap" safe>{a.justification || '—'}</dd>
      </dl>
      {p.canUpdate && (() => {
        const v: AssessValues = p.assessValues ?? { status: a.status, notes: a.notes, applicable: a.applicable ? 'yes' : 'no', justification: a.justification };
        const errors = p.assessErrors ?? {};
        return (
          <form method="post" action={`/compliance/analyses/${a.id}`} class="card form" id="assess">
            <h2>Assess</h2>
            <CsrfField token={p.csrfToken} />
            <Field label="Status" name="status"><Select name="status" options={STATUS_OPTIONS} selected={v.status} /></Field>
            <Field label="Notes" name="notes" type="textarea" value={v.notes} maxlength={100000} />
            <Field label="Applicable" name="applicable" hint="Statement of Applicability: does this requirement apply here?">
              <Select name="applicable" options={APPLICABLE_OPTIONS} selected={v.applicable} />
            </Field>
            <Field label="Justification" name="justification" type="textarea" value={v.justification} maxlength={10000} error={errors.justification}
              hint="Why it applies, or why it does not (required when it does not)" />
            <button type="submit">Save assessment</button>
          </form>
        );
      })()}
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
