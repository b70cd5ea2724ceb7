import { KIND_LABEL, KINDS, type FieldChange, type KindName, type Plan } from './plan';
import type { Bundle } from './schema';

/** What a run did or would do, per record kind: the --json output, and the source of the text report. */
export interface Summary {
  ok: boolean;
  mode: 'dry-run' | 'apply';
  bundle: string;
  url: string;
  counts: Partial<Record<KindName, KindCounts>>;
  warnings: string[];
  failures: { kind: KindName; key: string; action: string; error: string }[];
  /** With --diff: every create and update, updates with their fields. */
  changes?: { kind: KindName; key: string; action: 'create' | 'update'; fields: FieldChange[] }[];
  requests: { read: number; write: number };
  /** Seconds reading (scope check included) and writing; with --apply, writing per kind. */
  seconds: { read: number; write: number; writeByKind?: Partial<Record<KindName, number>> };
}

export interface KindCounts {
  create: number;
  update: number;
  unchanged: number;
  /** Apply only: writes refused by the API, and writes not attempted because one they need failed. */
  failed?: number;
  skipped?: number;
}

export function summarize(plan: Plan, base: Pick<Summary, 'mode' | 'bundle' | 'url' | 'requests' | 'seconds'> & { diff: boolean; warnings: string[] }): Summary {
  const counts: Summary['counts'] = {};
  for (const step of plan.steps) {
    const c = (counts[step.kind] ??= { create: 0, update: 0, unchanged: 0, ...(base.mode === 'apply' ? { failed: 0, skipped: 0 } : {}) });
    c[step.action]++;
    if (step.outcome === 'failed') c.failed!++;
    if (step.outcome === 'skipped') c.skipped!++;
  }
  const failures = plan.steps.filter((s) => s.outcome === 'failed' || s.outcome === 'skipped')
    .map((s) => ({ kind: s.kind, key: s.key, action: s.action, error: s.error ?? '' }));
  const summary: Summary = {
    ok: failures.length === 0,
    mode: base.mode,
    bundle: base.bundle,
    url: base.url,
    counts,
    warnings: base.warnings,
    failures,
    requests: base.requests,
    seconds: base.seconds,
  };
  if (base.diff) {
    summary.changes = plan.steps.filter((s) => s.action !== 'unchanged')
      .map((s) => ({ kind: s.kind, key: s.key, action: s.action as 'create' | 'update', fields: s.changes }));
  }
  return summary;
}

/** One line naming what the bundle holds. */
export function describeBundle(bundle: Bundle): string {
  const parts: string[] = [];
  const count = (n: number | undefined, one: string, many: string) => {
    if (n) parts.push(`${n.toLocaleString('en')} ${n === 1 ? one : many}`);
  };
  if (bundle.riskScale) parts.push(`a risk scale (${bundle.riskScale.likelihood.length}×${bundle.riskScale.impact.length})`);
  count(bundle.classifications?.length, 'classification', 'classifications');
  if (bundle.package) parts.push(`package "${bundle.package.name}" (${bundle.package.items.length.toLocaleString('en')} items)`);
  count(bundle.controls?.length, 'control', 'controls');
  count(bundle.policies?.length, 'policy', 'policies');
  count(bundle.risks?.length, 'risk', 'risks');
  count(bundle.requirements?.length, 'requirement', 'requirements');
  return parts.length ? parts.join(', ') : 'nothing to load';
}

const pad = (text: string | number, width: number) => String(text).padStart(width);

export function renderText(summary: Summary): string {
  const lines: string[] = [];
  const apply = summary.mode === 'apply';
  const columns = apply ? ['created', 'updated', 'unchanged', 'failed', 'skipped'] : ['create', 'update', 'unchanged'];
  const width = Math.max(...KINDS.map(([, label]) => label.length)) + 2;
  lines.push(`${''.padEnd(width)}${columns.map((c) => pad(c, 10)).join('')}`);
  for (const [kind, label] of KINDS) {
    const c = summary.counts[kind];
    if (!c) continue;
    const cells = apply
      ? [c.create - (failedOf(summary, kind, 'create')), c.update - failedOf(summary, kind, 'update'), c.unchanged, c.failed ?? 0, c.skipped ?? 0]
      : [c.create, c.update, c.unchanged];
    lines.push(`  ${label.padEnd(width - 2)}${cells.map((n) => pad(n.toLocaleString('en'), 10)).join('')}`);
  }
  if (summary.changes) {
    lines.push('', summary.changes.length ? 'Changes:' : 'Changes: none');
    for (const c of summary.changes) {
      lines.push(`  ${c.action === 'create' ? '+' : '~'} ${KIND_LABEL[c.kind]}${c.key ? ` ${c.key}` : ''}`);
      for (const f of c.fields) lines.push(`      ${f.field}: ${f.from} → ${f.to}`);
    }
  }
  if (summary.warnings.length) {
    lines.push('', `Warnings (${summary.warnings.length}):`);
    for (const w of summary.warnings) lines.push(`  ${w}`);
  }
  if (summary.failures.length) {
    lines.push('', `Not written (${summary.failures.length}):`);
    for (const f of summary.failures) lines.push(`  ${KIND_LABEL[f.kind]}${f.key ? ` ${f.key}` : ''} (${f.action}): ${f.error}`);
  }
  lines.push('');
  const requests = `${summary.requests.read.toLocaleString('en')} requests to read in ${summary.seconds.read.toFixed(1)} s`;
  if (apply) {
    lines.push(`${requests}, ${summary.requests.write.toLocaleString('en')} to write in ${summary.seconds.write.toFixed(1)} s.`);
    const written = summary.requests.write > 0 || summary.failures.length > 0;
    lines.push(!written ? 'Nothing to write: the instance already holds the bundle as it is.'
      : summary.ok ? 'Done: every write succeeded.' : `Done with ${summary.failures.length} writes not made (listed above); exit status 1.`);
  } else {
    lines.push(`${requests}. Dry run: nothing was written; run again with --apply to write.`);
  }
  return lines.join('\n');
}

/** Steps of a kind and action that failed or were skipped: the table's created/updated columns count what was written. */
function failedOf(summary: Summary, kind: KindName, action: string): number {
  return summary.failures.filter((f) => f.kind === kind && f.action === action).length;
}
