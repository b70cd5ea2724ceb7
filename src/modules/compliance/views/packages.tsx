import { Flash } from '../../../../views/components/flash';
import { CsrfField, Field, type Option } from '../../../../views/components/form';
import { FilterBar, matchingCount } from '../../../../views/components/filter-bar';
import { Pager } from '../../../../views/components/pager';
import { DataTable, Text } from '../../../../views/components/table';
import type { Page } from '../../../platform/http/paging';
import type { ItemCounts, PackageInput, PackageItem, PackageProblem, PackageScore, PackageView } from '../schema';

export const PACKAGES_PATH = '/compliance/packages';
export const IMPORT_PATH = `${PACKAGES_PATH}/import`;
export const PREVIEW_PATH = `${IMPORT_PATH}/preview`;

export const TOO_LARGE_MESSAGE =
  'This request is larger than the 1 MB the screens accept. Import a package this large with POST /api/v1/compliance/packages (an API token with compliance:create).';

const DONE_MESSAGES: Record<string, string> = {
  imported: 'Package imported, with one analysis per requirement and additional item.',
  deleted: 'Package deleted.',
};

export interface ShippedButton {
  key: string;
  label: string;
}

export interface PackageListProps {
  page: Page<PackageView>;
  csrfToken: string;
  canCreate: boolean;
  /** The list's own Import package button; off when the page's Import menu offers it. */
  importButton: boolean;
  canDelete: boolean;
  shipped: readonly ShippedButton[];
  /** Compliance score per package id (requirements; additional items counted separately). */
  scores: ReadonlyMap<string, PackageScore>;
  done?: string;
  /** The list's search, Owner filter and sort, as the address holds them. */
  filters: PackageListFilters;
  owners: Option[];
}

export interface PackageListFilters {
  q: string;
  ownerId: string;
  sort: string;
}

/** The list's address with its filters, sort and page (and its CSV export's, with `path`). */
export function packageListHref(f: PackageListFilters, extra: { page?: number; sort?: string } = {}, path = PACKAGES_PATH): string {
  const params = new URLSearchParams(Object.entries({ q: f.q, ownerId: f.ownerId, sort: extra.sort ?? f.sort }).filter(([, v]) => v !== ''));
  if ((extra.page ?? 1) > 1) params.set('page', String(extra.page));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The columns of the list's CSV export (the screen's, without the actions). */
export const packageCsvColumns: { header: string; value: (p: PackageView, score: PackageScore | undefined) => string }[] = [
  { header: 'Name', value: (p) => p.name },
  { header: 'Standard', value: (p) => p.standard },
  { header: 'Version', value: (p) => p.version },
  { header: 'Headings', value: (p) => String(p.itemCounts.heading) },
  { header: 'Requirements', value: (p) => String(p.itemCounts.requirement) },
  { header: 'Additional', value: (p) => String(p.itemCounts.additional) },
  { header: 'Compliance score', value: (_p, s) => scoreText(s?.requirements) },
  { header: 'Additional items compliant', value: (_p, s) => scoreText(s?.additional) },
  { header: 'Owner', value: (p) => p.owner?.name ?? p.ownerGroup?.name ?? '' },
];

/** "62.5% (5 of 8)": compliant requirements of those applicable; not yet assessed counts against it. */
const scoreText = (c: PackageScore['requirements'] | undefined) =>
  !c || c.percentCompliant === null ? '—' : `${c.percentCompliant}% (${c.compliant} of ${c.applicable})`;

const countsText = (c: ItemCounts) =>
  `${c.heading} heading${c.heading === 1 ? '' : 's'}, ${c.requirement} requirement${c.requirement === 1 ? '' : 's'}, ${c.additional} additional`;

/** Compliance › Packages: every package with its item counts, Export (and Delete) per row, import and the shipped frameworks. */
export function PackageList({ page, csrfToken, canCreate, importButton, canDelete, shipped, scores, done, filters, owners }: PackageListProps): JSX.Element {
  const filtered = Boolean(filters.q || filters.ownerId);
  const count = `${page.total.toLocaleString('en')} package${page.total === 1 ? '' : 's'}`;
  return (
    <section id="packages">
      <Flash kind="success" message={done ? DONE_MESSAGES[done] : undefined} />
      {importButton && <p class="actions"><a class="button" href={IMPORT_PATH}>Import package</a></p>}
      {page.total > 1 && <p class="actions"><a href={`${PACKAGES_PATH}/compare`}>Compare two packages</a></p>}
      <FilterBar action={PACKAGES_PATH} id="package-filters" label="Filter compliance packages" target="#package-results" filtered={filtered}
        search={{ value: filters.q, label: 'Search names' }}
        filters={[{ name: 'ownerId', label: 'Owner', selected: filters.ownerId, options: owners, any: 'Anyone' }]} />
      <section id="package-results" aria-live="polite" aria-label="Compliance packages">
      <p class="results-bar">
        <span class="muted" safe>{filtered ? matchingCount(count, page.total) : count}</span>
        {page.total > 0 && <a class="button secondary small" href={packageListHref(filters, {}, `${PACKAGES_PATH}/export.csv`)} download="">Export CSV</a>}
      </p>
      <DataTable
        rows={page.rows}
        empty={filtered ? 'No packages match these filters.' : 'No packages yet. Import a package file or one of the shipped frameworks.'}
        sort={{ current: filters.sort, href: (sort) => packageListHref(filters, { sort }), target: '#package-results', form: 'package-filters' }}
        columns={[
          { header: 'Name', sort: 'name', cell: (p) => <a href={`${PACKAGES_PATH}/${p.id}`} safe>{p.name}</a> },
          { header: 'Standard', sort: 'standard', cell: (p) => <Text value={p.standard} /> },
          { header: 'Version', sort: 'version', cell: (p) => <Text value={p.version} /> },
          { header: 'Headings', sort: 'headings', cell: (p) => <Text value={p.itemCounts.heading} />, class: 'num' },
          { header: 'Requirements', sort: 'requirements', cell: (p) => <Text value={p.itemCounts.requirement} />, class: 'num' },
          { header: 'Additional', sort: 'additional', cell: (p) => <Text value={p.itemCounts.additional} />, class: 'num' },
          { header: 'Compliance score', cell: (p) => <Text value={scoreText(scores.get(p.id)?.requirements)} />, class: 'num' },
          { header: 'Additional items compliant', cell: (p) => <Text value={scoreText(scores.get(p.id)?.additional)} />, class: 'num' },
          {
            header: 'Actions',
            cell: (p) => (
              <span class="actions">
                <a href={`${PACKAGES_PATH}/${p.id}/export`} download="">Export</a>
                <a href={`${PACKAGES_PATH}/${p.id}/export/oscal`} download="">Export OSCAL</a>
                {canDelete && <a href={`${PACKAGES_PATH}/${p.id}/delete`}>Delete</a>}
              </span>
            ),
          },
        ]}
      />
      <Pager page={page.page} pageSize={page.pageSize} total={page.total} href={(n) => packageListHref(filters, { page: n })} target="#package-results" />
      </section>
      {canCreate && shipped.length > 0 && (
        <section class="card" aria-labelledby="shipped-heading">
          <h2 id="shipped-heading">Shipped frameworks</h2>
          <p class="muted">Public frameworks that come with the service. Each click creates one package, nothing else.</p>
          <div class="actions">
            {shipped.map((s) => (
              <form method="post" action={`${PACKAGES_PATH}/shipped/${s.key}`} class="inline">
                <CsrfField token={csrfToken} />
                <button type="submit" safe>{`Import ${s.label}`}</button>
              </form>
            ))}
          </div>
        </section>
      )}
    </section>
  );
}

/** What the import dialog keeps between steps: the CSV's package fields (a JSON file carries its own). */
export interface ImportFormValues {
  name: string;
  standard: string;
  version: string;
}

export const emptyImportValues: ImportFormValues = { name: '', standard: '', version: '' };

export interface ImportFormProps {
  csrfToken: string;
  values: ImportFormValues;
  /** A refusal that concerns the file as a whole (too large, unreadable). */
  error?: string;
}

/** Step 1: choose a CSV or JSON file. Nothing is written until Commit import on the preview. */
export function ImportForm({ csrfToken, values, error }: ImportFormProps): JSX.Element {
  return (
    <form method="post" action={PREVIEW_PATH} enctype="multipart/form-data" class="card form" id="package-import">
      <Flash kind="error" message={error} />
      <CsrfField token={csrfToken} />
      <div class="field">
        <label for="f-file">Package file (CSV or JSON)</label>
        <input id="f-file" type="file" name="file" accept=".csv,.json,text/csv,application/json,application/oscal+json" required aria-describedby="f-file-hint" />
        <span class="hint" id="f-file-hint">
          JSON: an object with name, standard, version, description and items. CSV: a header with code and name, optionally description,
          parent_code (or parent) and kind. OSCAL: a catalog or resolved profile catalog in JSON (up to 16 MB), groups as headings and
          controls as requirements. Other files over 1 MB: use POST /api/v1/compliance/packages.
        </span>
      </div>
      <Field label="Package name" name="name" value={values.name} maxlength={300} hint="Required for a CSV file; for a JSON file, replaces the file's name when filled" />
      <Field label="Standard" name="standard" value={values.standard} maxlength={300} hint="For a CSV file; for JSON, replaces the file's standard when filled" />
      <Field label="Version" name="version" value={values.version} maxlength={100} hint="For a CSV file; for JSON, replaces the file's version when filled" />
      <p class="actions"><button type="submit">Preview</button><a href={PACKAGES_PATH}>Cancel</a></p>
    </form>
  );
}

export interface ImportPreviewProps {
  csrfToken: string;
  fileName: string;
  values: ImportFormValues;
  /** The package as read from the file (best effort when it has problems). */
  input: PackageInput | null;
  problems: readonly PackageProblem[];
  counts: ItemCounts;
  /** What the preview says about how the file was read (an OSCAL catalog, withdrawn controls left out). */
  note?: string;
}

const problemPlace = (p: PackageProblem) => {
  const where = p.line !== undefined ? `Line ${p.line}` : p.index !== undefined ? `Item ${p.index + 1}` : 'Package';
  return p.code ? `${where} (${p.code})` : where;
};

/** Step 2: the tree as it will be created, the counts, and every problem; Commit import only when there are none. */
export function ImportPreview({ csrfToken, fileName, values, input, problems, counts, note }: ImportPreviewProps): JSX.Element {
  return (
    <section id="package-preview">
      <p safe>{`File: ${fileName}`}</p>
      {note && <p class="hint" safe>{note}</p>}
      {input && (
        <dl class="card">
          <dt>Name</dt><dd safe>{input.name || '—'}</dd>
          <dt>Standard</dt><dd safe>{input.standard || '—'}</dd>
          <dt>Version</dt><dd safe>{input.version || '—'}</dd>
        </dl>
      )}
      <p class="counts" safe>{`${counts.total} item${counts.total === 1 ? '' : 's'}: ${countsText(counts)}`}</p>
      {problems.length > 0 && (
        <section class="flash flash-error" role="alert" aria-labelledby="problems-heading">
          <h2 id="problems-heading" safe>{`The whole file is refused: ${problems.length} problem${problems.length === 1 ? '' : 's'}`}</h2>
          <ul class="problems">
            {problems.map((p) => <li safe>{`${problemPlace(p)}: ${p.field}: ${p.message}`}</li>)}
          </ul>
        </section>
      )}
      {input && input.items.length > 0 && <PackageTree items={input.items} />}
      {problems.length === 0 && input
        ? (
          <form method="post" action={IMPORT_PATH} class="card">
            <CsrfField token={csrfToken} />
            <input type="hidden" name="package" value={JSON.stringify(input)} />
            <p class="actions"><button type="submit">Commit import</button><a href={IMPORT_PATH}>Choose another file</a></p>
          </form>
        )
        : <ImportForm csrfToken={csrfToken} values={values} />}
    </section>
  );
}

interface TreeNode {
  item: PackageItem;
  children: TreeNode[];
}

/**
 * Items as a tree by parentCode. Items whose parent is missing, repeated or part of a cycle are listed at the top
 * level (their problem is shown above), so every item of the file appears exactly once.
 */
export function buildTree(items: readonly PackageItem[]): TreeNode[] {
  const nodes = items.map((item) => ({ item, children: [] as TreeNode[] }));
  const byCode = new Map<string, TreeNode>();
  for (const node of nodes) if (!byCode.has(node.item.code.trim())) byCode.set(node.item.code.trim(), node);
  const parentOf = (node: TreeNode) => {
    const code = (node.item.parentCode ?? '').trim();
    return code ? byCode.get(code) : undefined;
  };
  const inCycle = (node: TreeNode) => {
    const seen = new Set<TreeNode>([node]);
    for (let at = parentOf(node); at; at = parentOf(at)) {
      if (seen.has(at)) return true;
      seen.add(at);
    }
    return false;
  };
  const roots: TreeNode[] = [];
  for (const node of nodes) {
    const parent = parentOf(node);
    if (parent && parent !== node && !inCycle(node)) parent.children.push(node);
    else roots.push(node);
  }
  return roots;
}

function TreeBranch({ node }: { node: TreeNode }): JSX.Element {
  const { item } = node;
  const kind = item.kind || 'requirement';
  const label = (
    <>
      <strong safe>{item.code}</strong> <span safe>{item.name}</span> <span class={`tag kind-${kind}`} safe>{kind}</span>
    </>
  );
  if (node.children.length === 0) return <li>{label}</li>;
  return (
    <li>
      <details>
        <summary>{label} <span class="muted" safe>{`(${node.children.length})`}</span></summary>
        <ul>{node.children.map((child) => <TreeBranch node={child} />)}</ul>
      </details>
    </li>
  );
}

/** The item tree, each branch collapsible (<details>), in file order. */
export function PackageTree({ items }: { items: readonly PackageItem[] }): JSX.Element {
  return (
    <section aria-labelledby="tree-heading">
      <h2 id="tree-heading">Items</h2>
      <ul class="tree">{buildTree(items).map((node) => <TreeBranch node={node} />)}</ul>
    </section>
  );
}

export function ConfirmPackageDelete({ pkg, csrfToken }: { pkg: PackageView; csrfToken: string }): JSX.Element {
  const analyses = pkg.itemCounts.requirement + pkg.itemCounts.additional;
  return (
    <form method="post" action={`${PACKAGES_PATH}/${pkg.id}/delete`} class="card">
      <CsrfField token={csrfToken} />
      <p safe>{`Delete ${pkg.name}? Its ${pkg.itemCounts.total} items and ${analyses} analyses go with it, with their requirement mappings. This cannot be undone; the Audit Log keeps a record of it.`}</p>
      <p class="actions"><button type="submit" class="danger">Delete</button><a href={PACKAGES_PATH}>Cancel</a></p>
    </form>
  );
}
