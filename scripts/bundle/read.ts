import type { PackageItem } from '../../src/modules/compliance/schema';
import { expectData, inParallel, listAll, type Instance } from './api';
import type { Bundle } from './schema';

/**
 * The read phase: what the instance holds of what the bundle names, read through the REST API. Registers are read
 * whole (pages of 200) and matched by ref in memory; per-record reads (treatments, approvals, versions, an analysis's
 * mappings) only for records the bundle names that exist.
 */

type Num = number | string;
export interface Level {
  value: Num;
  name: string;
}
export interface ScaleView {
  likelihood: { value: Num; name: string; description: string }[];
  impact: { value: Num; name: string; description: string }[];
  cells: { likelihood: Num; impact: Num; score: Num }[];
  bands: { name: string; minScore: Num; maxScore: Num; color: string }[];
}
export interface ClassificationRow {
  id: string;
  name: string;
  description: string;
}
export interface PackageRow {
  id: string;
  name: string;
  standard: string;
  version: string;
  description: string;
  createdAt: string;
}
export type PackageItemRow = PackageItem;
export interface AnalysisRow {
  id: string;
  item: { code: string };
  status: string;
  notes: string;
  mappingCounts: { controls: Num; policies: Num; risks: Num };
}
export interface Mapped {
  controls: Set<string>;
  policies: Set<string>;
  risks: Set<string>;
}
export interface ControlRow {
  id: string;
  name: string;
  description: string;
  type: string;
  status: string;
  testFrequencyMonths: Num | null;
  createdAt: string;
}
export interface PolicyRow {
  id: string;
  title: string;
  description: string;
  content: string;
  reviewFrequencyMonths: Num;
  status: string;
  currentVersion: Num | null;
  createdAt: string;
}
export interface RiskRow {
  id: string;
  title: string;
  description: string;
  classification: { id: string; name: string };
  inherentLikelihood: Level;
  inherentImpact: Level;
  residualLikelihood: Level | null;
  residualImpact: Level | null;
  status: string;
  reviewFrequencyMonths: Num;
  createdAt: string;
}
export interface TreatmentRow {
  id: string;
  riskId: string;
  type: string;
  status: string;
  title: string;
  description: string;
  dueOn: string | null;
  residualLikelihood: Level | null;
  residualImpact: Level | null;
  controls: { id: string; name: string }[];
}
export interface ApprovalRow {
  version: Num;
  approverName: string;
  approvedOn: string;
}

/** Records of one register grouped by the ref their title or name begins with (the text before the first space). */
export type ByRef<T> = Map<string, T[]>;

export interface Snapshot {
  scale: ScaleView;
  classifications: ClassificationRow[];
  allowOutsideApprovals: boolean;
  /** Packages named like the bundle's (ignoring case), oldest first. */
  packages: PackageRow[];
  packageItems: PackageItemRow[] | null;
  analyses: Map<string, AnalysisRow>;
  mappings: Map<string, Mapped>;
  controls: ByRef<ControlRow>;
  policies: ByRef<PolicyRow>;
  risks: ByRef<RiskRow>;
  treatments: Map<string, TreatmentRow[]>;
  approvals: Map<string, ApprovalRow[]>;
  /** The content of each policy's newest published version. */
  publishedContent: Map<string, string>;
}

export interface ReadProgress {
  (what: string, done: number, total: number): void;
}

const PAGE = 200;
const PARALLEL = 8;

function byRef<T extends { createdAt: string; id: string }>(rows: T[], title: (row: T) => string): ByRef<T> {
  const map: ByRef<T> = new Map();
  for (const row of rows) {
    const text = title(row);
    const space = text.indexOf(' ');
    if (space <= 0) continue;
    const ref = text.slice(0, space);
    const list = map.get(ref);
    if (list) list.push(row);
    else map.set(ref, [row]);
  }
  // The oldest first: it is the one a re-run keeps updating when a ref is found on several records.
  for (const list of map.values()) list.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  return map;
}

/** The first record found by a ref (the oldest), or undefined. */
export const found = <T>(map: ByRef<T>, ref: string): T | undefined => map.get(ref)?.[0];

export async function readSnapshot(instance: Instance, bundle: Bundle, progress: ReadProgress = () => {}): Promise<Snapshot> {
  const api = instance.client;
  const needsRisks = !!bundle.risks?.length || !!bundle.riskScale;
  const list = <T>(what: string, fetchPage: (page: number) => Promise<{ rows: T[]; total: number }>) =>
    listAll(fetchPage, (done, total) => progress(what, done, total));

  const [scale, classifications, allowOutsideApprovals, packages, controls, policies, risks] = await Promise.all([
    needsRisks || bundle.classifications?.length
      ? expectData('GET /api/v1/risk-scale', api.GET('/api/v1/risk-scale')).then((r) => r.data as ScaleView)
      : Promise.resolve({ likelihood: [], impact: [], cells: [], bands: [] } as ScaleView),
    needsRisks || bundle.classifications?.length
      ? list('classifications', (page) => expectData('GET /api/v1/risk-classifications',
        api.GET('/api/v1/risk-classifications', { params: { query: { page, pageSize: PAGE } } })).then((r) => r.data as { rows: ClassificationRow[]; total: number }))
      : Promise.resolve([] as ClassificationRow[]),
    bundle.policies?.some((p) => p.signatories?.length)
      ? expectData('GET /api/v1/policies/settings', api.GET('/api/v1/policies/settings')).then((r) => r.data.allowOutsideApprovals)
      : Promise.resolve(false),
    bundle.package
      ? list('packages', (page) => expectData('GET /api/v1/compliance/packages',
        api.GET('/api/v1/compliance/packages', { params: { query: { page, pageSize: PAGE } } })).then((r) => r.data as { rows: PackageRow[]; total: number }))
      : Promise.resolve([] as PackageRow[]),
    bundle.controls?.length
      ? list('controls', (page) => expectData('GET /api/v1/controls',
        api.GET('/api/v1/controls', { params: { query: { page, pageSize: PAGE, sort: 'createdAt' } } })).then((r) => r.data as { rows: ControlRow[]; total: number }))
      : Promise.resolve([] as ControlRow[]),
    bundle.policies?.length
      ? list('policies', (page) => expectData('GET /api/v1/policies',
        api.GET('/api/v1/policies', { params: { query: { page, pageSize: PAGE, sort: 'createdAt' } } })).then((r) => r.data as { rows: PolicyRow[]; total: number }))
      : Promise.resolve([] as PolicyRow[]),
    bundle.risks?.length
      ? list('risks', (page) => expectData('GET /api/v1/risks',
        api.GET('/api/v1/risks', { params: { query: { page, pageSize: PAGE, sort: 'createdAt' } } })).then((r) => r.data as { rows: RiskRow[]; total: number }))
      : Promise.resolve([] as RiskRow[]),
  ]);

  const snapshot: Snapshot = {
    scale, classifications, allowOutsideApprovals,
    packages: bundle.package
      ? packages.filter((p) => p.name.trim().toLowerCase() === bundle.package!.name.trim().toLowerCase())
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      : [],
    packageItems: null,
    analyses: new Map(),
    mappings: new Map(),
    controls: byRef(controls, (c) => c.name),
    policies: byRef(policies, (p) => p.title),
    risks: byRef(risks, (r) => r.title),
    treatments: new Map(),
    approvals: new Map(),
    publishedContent: new Map(),
  };

  const pkg = snapshot.packages[0];
  const perRecord: (() => Promise<void>)[] = [];
  if (pkg) {
    perRecord.push(async () => {
      const exported = await expectData(`GET /api/v1/compliance/packages/${pkg.id}/export`,
        api.GET('/api/v1/compliance/packages/{id}/export', { params: { path: { id: pkg.id } } }));
      snapshot.packageItems = exported.items as PackageItemRow[];
    });
    const analyses = await readAnalyses(instance, pkg.id, (done, total) => progress('analyses', done, total));
    for (const row of analyses) snapshot.analyses.set(row.item.code, row);
    // An analysis's mapped records only where the bundle maps something and the analysis already has mappings.
    for (const requirement of bundle.requirements ?? []) {
      const analysis = snapshot.analyses.get(requirement.code.trim());
      const counts = analysis?.mappingCounts;
      const mapsSomething = requirement.controls?.length || requirement.policies?.length || requirement.risks?.length;
      if (!analysis || !mapsSomething || !counts || Number(counts.controls) + Number(counts.policies) + Number(counts.risks) === 0) continue;
      perRecord.push(async () => {
        const detail = await expectData(`GET /api/v1/compliance/analyses/${analysis.id}`,
          api.GET('/api/v1/compliance/analyses/{id}', { params: { path: { id: analysis.id } } }));
        const m = detail.data.mappings;
        snapshot.mappings.set(analysis.id, {
          controls: new Set(m.controls.map((r) => r.id)), policies: new Set(m.policies.map((r) => r.id)), risks: new Set(m.risks.map((r) => r.id)),
        });
      });
    }
  }
  // Treatments of the risks found: all treatments a page at a time when that takes fewer requests than one per risk.
  const foundRisks = (bundle.risks ?? []).map((risk) => found(snapshot.risks, risk.ref)).filter((row): row is RiskRow => !!row);
  if (foundRisks.length) {
    const treatmentPage = (page: number, pageSize = PAGE) => expectData('GET /api/v1/risks/treatments',
      api.GET('/api/v1/risks/treatments', { params: { query: { page, pageSize } } })).then((r) => r.data as { rows: TreatmentRow[]; total: number });
    const { total } = await treatmentPage(1, 1);
    if (Math.ceil(total / PAGE) < foundRisks.length) {
      const wanted = new Set(foundRisks.map((row) => row.id));
      for (const row of foundRisks) snapshot.treatments.set(row.id, []);
      for (const treatment of await list('treatments', treatmentPage)) {
        if (wanted.has(treatment.riskId)) snapshot.treatments.get(treatment.riskId)!.push(treatment);
      }
    } else {
      for (const row of foundRisks) {
        perRecord.push(async () => {
          const treatments = await expectData(`GET /api/v1/risks/${row.id}/treatments`,
            api.GET('/api/v1/risks/{id}/treatments', { params: { path: { id: row.id } } }));
          snapshot.treatments.set(row.id, treatments.data as TreatmentRow[]);
        });
      }
    }
  }
  for (const policy of bundle.policies ?? []) {
    const row = found(snapshot.policies, policy.ref);
    if (!row) continue;
    if (policy.status === 'published' && row.currentVersion !== null) {
      perRecord.push(async () => {
        const versions = await expectData(`GET /api/v1/policies/${row.id}/versions`,
          api.GET('/api/v1/policies/{id}/versions', { params: { path: { id: row.id } } }));
        if (versions.data[0]) snapshot.publishedContent.set(row.id, versions.data[0].content);
      });
    }
    if (policy.signatories?.length) {
      perRecord.push(async () => {
        const approvals = await expectData(`GET /api/v1/policies/${row.id}/approvals`,
          api.GET('/api/v1/policies/{id}/approvals', { params: { path: { id: row.id } } }));
        snapshot.approvals.set(row.id, approvals.data as ApprovalRow[]);
      });
    }
  }
  let done = 0;
  await inParallel(perRecord, PARALLEL, async (read) => {
    await read();
    progress('treatments, versions, approvals and mappings', ++done, perRecord.length);
  });
  return snapshot;
}

/** A package's analyses, every page. */
export async function readAnalyses(instance: Instance, packageId: string, onProgress?: (done: number, total: number) => void): Promise<AnalysisRow[]> {
  return listAll((page) => expectData('GET /api/v1/compliance/analyses', instance.client.GET('/api/v1/compliance/analyses', {
    params: { query: { packageId, page, pageSize: PAGE } },
  })).then((r) => r.data as { rows: AnalysisRow[]; total: number }), onProgress);
}

