import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { apiTokens } from '../../db/schema';
import { hashSecret, revokeToken } from '../../src/modules/apiTokens/service';
import { controlKind } from '../../src/modules/controls/service';
import { createRecord } from '../../src/platform/records/records';
import { bearer, classificationId, makeRisk, unique } from '../helpers/factories';
import { baseBundle, bundleFile, load, removeTempDirs, startInstance, writes, type Instance } from './helpers';

/**
 * Specification, "Bundle loader command": dry run by default (counts per kind, warnings), --apply writes in an order
 * that lets references resolve, through the REST API only; re-runs find records again by their ref; nothing is
 * deleted and owners are never set; exit status 1 if any write failed.
 */

let instance: Instance;
let token: string;
let reader: string;
beforeAll(async () => {
  instance = await startInstance();
  token = await instance.token();
  reader = await instance.token(['risks:read', 'controls:read', 'policies:read', 'compliance:read']);
});
afterAll(() => {
  instance.stop();
  removeTempDirs();
});

const read = async <T>(path: string): Promise<T> => {
  const res = await instance.env.request(path, bearer(reader));
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { data: T }).data;
};
const byTitle = async <T = { id: string }>(register: string, q: string) =>
  (await read<{ rows: T[] }>(`/api/v1/${register}?pageSize=200&q=${encodeURIComponent(q)}`)).rows;
const counts = (result: Awaited<ReturnType<typeof load>>) => result.json!.counts;

describe('dry run (the default)', () => {
  test('reads the instance and prints per record kind what it would create, update or leave; writes nothing', async () => {
    const bundle = baseBundle('dry-');
    const result = await load([bundleFile(bundle), '--url', instance.url], { token });
    expect(result.code, result.stderr).toBe(0);
    expect(writes(result)).toEqual([]);
    const table = result.stdout.split('\n');
    expect(table[0]).toMatch(/^\s+create\s+update\s+unchanged$/);
    expect(table).toContain('  classifications              0         0         1');
    expect(table).toContain('  package                      1         0         0');
    expect(table).toContain('  controls                     1         0         0');
    expect(table).toContain('  policies                     1         0         0');
    expect(table).toContain('  risks                        1         0         0');
    expect(table).toContain('  treatments                   1         0         0');
    expect(table).toContain('  mappings                     3         0         0');
    expect(table).toContain('  requirement statuses         0         1         0');
    expect(result.stdout).toContain('Dry run: nothing was written; run again with --apply to write.');
    expect(await byTitle('controls', 'dry-C-1')).toEqual([]);
  });

  test('--json prints one machine-readable summary', async () => {
    const result = await load([bundleFile(baseBundle('json-')), '--url', instance.url, '--json'], { token });
    expect(result.code).toBe(0);
    expect(result.json).toMatchObject({
      ok: true, mode: 'dry-run', url: instance.url, warnings: [], failures: [],
      counts: { controls: { create: 1, update: 0, unchanged: 0 }, mappings: { create: 3, update: 0, unchanged: 0 } },
      requests: { write: 0 },
    });
    expect(result.json!.requests.read).toBeGreaterThan(0);
    expect(result.stderr).toBe('');
  });
});

describe('--apply', () => {
  test('writes every kind in the order that lets references resolve, through the REST API, setting no owner', async () => {
    const bundle = baseBundle('apply-');
    bundle.risks[0].plannedTreatment = { title: 'Restore tests every month', dueOn: '2027-03-31', residualLikelihood: 1, residualImpact: 3, controls: ['apply-C-1'] };
    const result = await load([bundleFile(bundle), '--url', instance.url, '--apply', '--json'], { token });
    expect(result.code, JSON.stringify(result.json)).toBe(0);
    expect(result.json).toMatchObject({ ok: true, mode: 'apply', failures: [] });

    // Dependency order: package, controls, policies (created, then published), risks, treatments, mappings, statuses.
    const order = writes(result).map((r) => `${r.method} ${r.path.replace(/[0-9a-f-]{36}/g, ':id')}`);
    expect(order).toEqual([
      'POST /api/v1/compliance/packages',
      'POST /api/v1/controls/batch',
      'POST /api/v1/policies/batch',
      'POST /api/v1/policies/batch/publish',
      'POST /api/v1/risks/batch',
      'POST /api/v1/risks/treatments/batch',
      'POST /api/v1/compliance/mappings/batch',
      'PATCH /api/v1/compliance/analyses/:id',
    ]);
    expect(writes(result).every((r) => r.path.startsWith('/api/v1/')), 'every write goes through the REST API').toBe(true);
    expect(writes(result).some((r) => /owner/.test(r.body)), 'owners are never set').toBe(false);

    const [control] = await byTitle<{ id: string; name: string; type: string; ownerId: string }>('controls', 'apply-C-1');
    expect(control).toMatchObject({ name: 'apply-C-1 Nightly backups', type: 'technical', ownerId: instance.admin.userId! });
    const [policy] = await byTitle<{ id: string; status: string; currentVersion: number; content: string }>('policies', 'apply-P-1');
    expect(policy).toMatchObject({ status: 'published', currentVersion: 1, content: '# Backups\n\nEvery night.' });
    const [risk] = await byTitle<{ id: string; classification: { name: string }; inherentScore: number; residualLikelihood: { value: number }; residualImpact: { value: number } }>('risks', 'apply-R-1');
    expect(risk).toMatchObject({ classification: { name: 'Operational' }, inherentScore: 12, residualLikelihood: { value: 2 }, residualImpact: { value: 3 } });
    const treatments = await read<{ type: string; status: string; title: string; description: string; dueOn: string | null; residualLikelihood: { value: number } | null; controls: { id: string }[] }[]>(`/api/v1/risks/${risk.id}/treatments`);
    expect(treatments.map((t) => [t.title, t.type, t.status, t.description, t.residualLikelihood?.value ?? null, t.controls.map((c) => c.id)]).sort()).toEqual([
      ['Residual rating basis', 'mitigate', 'implemented', 'Nightly backups, restored each quarter.', 2, [control.id]],
      ['Restore tests every month', 'mitigate', 'planned', '', 1, [control.id]],
    ]);
    const [pkg] = (await read<{ rows: { id: string; name: string }[] }>('/api/v1/compliance/packages?pageSize=200')).rows.filter((p) => p.name === 'apply-Test framework');
    const analyses = (await read<{ rows: { id: string; item: { code: string }; status: string }[] }>(`/api/v1/compliance/analyses?packageId=${pkg.id}`)).rows;
    const op1 = analyses.find((a) => a.item.code === 'OP-1')!;
    const detail = await read<{ status: string; mappings: Record<string, { id: string }[]> }>(`/api/v1/compliance/analyses/${op1.id}`);
    expect(detail.status).toBe('compliant');
    expect([detail.mappings.controls, detail.mappings.policies, detail.mappings.risks].map((m) => m.map((r) => r.id))).toEqual([[control.id], [policy.id], [risk.id]]);
    expect(analyses.find((a) => a.item.code === 'OP-2')!.status).toBe('not_assessed');
  });

  test('the same bundle again reports everything unchanged and writes nothing', async () => {
    await instance.allowOutsideApprovals(true);
    const bundle = baseBundle('rerun-');
    Object.assign(bundle.policies[0], { effectiveDate: '2026-01-15', signatories: ['Dana Board', 'Sam Chief'] });
    bundle.risks[0].plannedTreatment = { type: 'mitigate', title: 'Second site', residualLikelihood: 1, residualImpact: 'Moderate', controls: ['rerun-C-1'] };
    bundle.risks.push({ ...bundle.risks[0], ref: 'rerun-R-2', title: 'rerun-R-2 Flood', inherentLikelihood: 'Rare', inherentImpact: 2, residualLikelihood: 1, residualImpact: 'minor', plannedTreatment: { type: 'transfer', title: 'Insurance', dueOn: '2027-01-31' } });
    bundle.requirements.push({ code: 'OP-2', status: 'partially_compliant', notes: 'Half the systems', risks: ['rerun-R-2'] });
    const file = bundleFile(bundle);
    const first = await load([file, '--url', instance.url, '--apply', '--json'], { token });
    expect(first.code, JSON.stringify(first.json?.failures)).toBe(0);
    expect(first.json!.counts).toMatchObject({ approvals: { create: 2 }, treatments: { create: 4 }, mappings: { create: 4 }, requirementStatuses: { update: 2 } });
    const second = await load([file, '--url', instance.url, '--apply', '--json'], { token });
    expect(second.code).toBe(0);
    expect(writes(second)).toEqual([]);
    expect(second.json!.requests.write).toBe(0);
    const before = counts(first) as Record<string, { create: number; update: number; unchanged: number }>;
    for (const [kind, c] of Object.entries(counts(second))) {
      expect({ kind, create: c!.create, update: c!.update }).toEqual({ kind, create: 0, update: 0 });
      expect(c!.unchanged, kind).toBe(before[kind].create + before[kind].update + before[kind].unchanged);
    }
    const text = await load([file, '--url', instance.url, '--apply'], { token });
    expect(text.stdout).toContain('Nothing to write: the instance already holds the bundle as it is.');
    expect(writes(text)).toEqual([]);
  });

  test('a changed bundle updates field by field (--diff shows each), deletes nothing, and warns of titles edited on the instance', async () => {
    const bundle = baseBundle('diff-');
    bundle.controls.push({ ref: 'diff-C-2', name: 'diff-C-2 Restore tests' });
    expect((await load([bundleFile(bundle), '--url', instance.url, '--apply'], { token })).code).toBe(0);
    // On the instance, someone renames C-1 (keeping its ref).
    const [c1] = await byTitle<{ id: string }>('controls', 'diff-C-1');
    const renamed = await instance.env.request(`/api/v1/controls/${c1.id}`, bearer(token, { method: 'PATCH', body: JSON.stringify({ name: 'diff-C-1 Backups (renamed)' }) }));
    expect(renamed.status).toBe(200);
    // The bundle drops C-2 and changes a control, the policy text and a risk level.
    bundle.controls = [{ ...bundle.controls[0], status: 'planned' }];
    bundle.requirements[0].controls = ['diff-C-1'];
    bundle.policies[0].content = '# Backups\n\nEvery night, kept 30 days.';
    bundle.risks[0].inherentImpact = 5;

    const dry = await load([bundleFile(bundle), '--url', instance.url, '--diff'], { token });
    expect(dry.code, dry.stderr).toBe(0);
    const diff = dry.stdout.slice(dry.stdout.indexOf('Changes:'));
    expect(diff).toContain([
      '  ~ controls diff-C-1',
      '      name: "diff-C-1 Backups (renamed)" → "diff-C-1 Nightly backups"',
      '      status: "active" → "planned"',
    ].join('\n'));
    expect(diff).toContain([
      '  ~ policies diff-P-1',
      '      content (draft): "# Backups Every night." → "# Backups Every night, kept 30 days."',
      '      published version: version 1 → version 2',
    ].join('\n'));
    expect(diff).toContain(['  ~ risks diff-R-1', '      inherentImpact: 4 (Major) → 5 (Severe)'].join('\n'));
    expect(dry.stdout).toContain('Warnings (1):\n  controls diff-C-1: the name on the instance, "diff-C-1 Backups (renamed)", differs from the bundle\'s, "diff-C-1 Nightly backups"; the bundle\'s is written');
    expect(writes(dry)).toEqual([]);

    const applied = await load([bundleFile(bundle), '--url', instance.url, '--apply', '--json'], { token });
    expect(applied.code).toBe(0);
    expect(counts(applied)).toMatchObject({
      controls: { create: 0, update: 1, unchanged: 0 }, policies: { update: 1 }, risks: { update: 1 }, mappings: { unchanged: 3 },
    });
    expect(await byTitle<{ name: string; status: string }>('controls', 'diff-C-1')).toMatchObject([{ name: 'diff-C-1 Nightly backups', status: 'planned' }]);
    expect(await byTitle('controls', 'diff-C-2'), 'nothing is ever deleted').toHaveLength(1);
    const [policy] = await byTitle<{ currentVersion: number }>('policies', 'diff-P-1');
    expect(policy.currentVersion).toBe(2);
    expect((await load([bundleFile(bundle), '--url', instance.url, '--apply', '--json'], { token })).json!.requests.write).toBe(0);
  });

  test('a ref found on two records of the instance is a warning; the oldest is the one written', async () => {
    const bundle = baseBundle('twice-');
    expect((await load([bundleFile(bundle), '--url', instance.url, '--apply'], { token })).code).toBe(0);
    const [first] = await byTitle<{ id: string }>('controls', 'twice-C-1');
    const { id: second } = await instance.env.ctx.db.transaction((tx) => createRecord(tx, controlKind, instance.admin, { name: 'twice-C-1 A copy made by hand' }));
    const result = await load([bundleFile(bundle), '--url', instance.url, '--json'], { token });
    expect(result.json!.warnings).toEqual([
      `controls twice-C-1: the ref is found on 2 records of the instance (${first.id}, ${second}); the oldest, ${first.id}, is the one written`,
    ]);
    expect(result.json!.counts.controls).toEqual({ create: 0, update: 0, unchanged: 1 });
  });

  test('a failed write is listed with its API error; the run goes on with what does not depend on it; exit status 1', async () => {
    const bundle = baseBundle('fail-') as ReturnType<typeof baseBundle> & { riskScale?: unknown };
    // A risk on the instance uses likelihood 5; the bundle's 4 x 4 scale would drop it, which the API refuses.
    await makeRisk(instance.env, instance.admin, { title: unique('Almost certain'), classificationId: await classificationId(instance.env), inherentLikelihood: 5, inherentImpact: 1 });
    const levels = [1, 2, 3, 4].map((value) => ({ value, name: `Level ${value}` }));
    bundle.riskScale = {
      likelihood: levels, impact: levels,
      cells: levels.flatMap((l) => levels.map((i) => ({ likelihood: l.value, impact: i.value, score: l.value * i.value }))),
      bands: [{ name: 'Low', minScore: 1, maxScore: 16 }],
    };
    const result = await load([bundleFile(bundle), '--url', instance.url, '--apply'], { token });
    expect(result.code).toBe(1);
    const notWritten = result.stdout.slice(result.stdout.indexOf('Not written'));
    expect(notWritten).toMatch(/^Not written \(4\):\n  risk scale \(update\): PUT \/api\/v1\/risk-scale: 409 .*likelihood level 5 "Almost certain" is used by 1 risk/m);
    expect(notWritten).toContain('  risks fail-R-1 (create): not written: it needs risk scale, which failed');
    expect(notWritten).toContain('  treatments fail-R-1 "Residual rating basis" (create): not written: it needs risks fail-R-1, which was not written');
    expect(notWritten).toContain('  mappings OP-1 ↔ risk fail-R-1 (create): not written: it needs risks fail-R-1, which was not written');
    expect(result.stdout).toContain('Done with 4 writes not made (listed above); exit status 1.');
    // What does not depend on the scale was written.
    expect(await byTitle('controls', 'fail-C-1')).toHaveLength(1);
    expect(await byTitle('policies', 'fail-P-1')).toHaveLength(1);
    expect(await byTitle('risks', 'fail-R-1')).toHaveLength(0);
  });
});

describe('rules the instance decides, checked in the read phase before anything is written', () => {
  test('rule 8: effectiveDate and signatories need the setting Allow recording outside approvals', async () => {
    await instance.allowOutsideApprovals(false);
    const bundle = baseBundle('signed-');
    Object.assign(bundle.policies[0], { effectiveDate: '2026-01-15', signatories: ['Dana Board'] });
    const result = await load([bundleFile(bundle), '--url', instance.url, '--apply'], { token });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('bundle.json: 1 problem with the instance at');
    expect(result.stderr).toContain('  policies[0].signatories: the instance does not allow recording approvals given outside the app (Settings › Policies › Allow recording outside approvals)');
    expect(writes(result)).toEqual([]);

    await instance.allowOutsideApprovals(true);
    const applied = await load([bundleFile(bundle), '--url', instance.url, '--apply', '--json'], { token });
    expect(applied.code, JSON.stringify(applied.json?.failures)).toBe(0);
    const [policy] = await byTitle<{ id: string }>('policies', 'signed-P-1');
    expect(await read<{ approverName: string; approvedOn: string; version: number }[]>(`/api/v1/policies/${policy.id}/approvals`))
      .toMatchObject([{ approverName: 'Dana Board', approvedOn: '2026-01-15', version: 1 }]);
  });

  test('rules 4 and 6 without a riskScale: levels lie on the instance\'s scale', async () => {
    const bundle = baseBundle('levels-');
    Object.assign(bundle.risks[0], { inherentLikelihood: 'Frequent', inherentImpact: 'major', residualLikelihood: 2, residualImpact: 'Severe' });
    const result = await load([bundleFile(bundle), '--url', instance.url], { token });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('  risks[0].inherentLikelihood: "Frequent" is not a likelihood level of the instance\'s risk scale');
    expect(result.stderr).toContain('  risks[0].residualImpact: 5 (Severe) is above the inherent impact 4 (Major)');
  });

  test('requirements name items of the package as it is on the instance (its items cannot change after import)', async () => {
    const bundle = baseBundle('items-');
    expect((await load([bundleFile(bundle), '--url', instance.url, '--apply'], { token })).code).toBe(0);
    (bundle.package.items as unknown[]).push({ code: 'OP-3', name: 'Added later' });
    bundle.requirements.push({ code: 'OP-3', status: 'compliant' });
    const result = await load([bundleFile(bundle), '--url', instance.url], { token });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('  requirements[1].code: "OP-3" is not an item of the package "items-Test framework" on the instance (its items cannot change after import)');
  });
});

describe('token, address and output', () => {
  test('no token: a usage error (exit 2); a token file is read; the token never appears in any output', async () => {
    const bundle = bundleFile(baseBundle('token-'));
    const none = await load([bundle, '--url', instance.url], { token: null });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no API token: pass --token-file <path> or set GRC_API_TOKEN');
    const file = bundleFile(`${token}\n`, 'token.txt');
    const fromFile = await load([bundle, '--url', instance.url, '--token-file', file, '--diff'], { token: null });
    expect(fromFile.code, fromFile.stderr).toBe(0);
    const applied = await load([bundle, '--url', instance.url, '--apply', '--json'], { token });
    for (const output of [fromFile.stdout, fromFile.stderr, applied.stdout, applied.stderr]) expect(output).not.toContain(token.slice(4));
  });

  test('a revoked token: one line, exit 1, nothing written', async () => {
    const revoked = await instance.token();
    const [row] = await instance.env.ctx.db.select({ id: apiTokens.id }).from(apiTokens).where(eq(apiTokens.tokenHash, hashSecret(revoked)));
    await instance.env.ctx.db.transaction((tx) => revokeToken(tx, instance.admin, row.id));
    const result = await load([bundleFile(baseBundle('revoked-')), '--url', instance.url, '--apply'], { token: revoked });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n').at(-1)).toBe('the instance refused the token (401 unauthorized): it is unknown, revoked or expired, or its creator is deactivated');
    expect(writes(result)).toEqual([]);
  });

  test('an unreachable address and an address that is not the service: one line each, exit 1', async () => {
    const closed = Bun.serve({ port: 0, fetch: () => new Response('not here', { status: 404 }) });
    const port = closed.port;
    try {
      const other = await load([bundleFile(baseBundle()), '--url', `http://127.0.0.1:${port}`], { token });
      expect(other.code).toBe(1);
      expect(other.stderr.trim().split('\n').at(-1)).toBe(`http://127.0.0.1:${port} does not answer as a GRC service (GET /api/health: 404, not the service's answer)`);
    } finally {
      closed.stop(true);
    }
    const unreachable = await load([bundleFile(baseBundle()), '--url', `http://127.0.0.1:${port}`], { token });
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr.trim().split('\n').at(-1)).toMatch(new RegExp(`^cannot reach http://127\\.0\\.0\\.1:${port}: `));
  });

  test('progress per kind goes to a terminal only', async () => {
    const bundle = bundleFile(baseBundle('progress-'));
    const quiet = await load([bundle, '--url', instance.url, '--apply'], { token, terminal: false });
    expect(quiet.stderr).not.toContain('\r');
    expect(quiet.stderr).not.toContain('written');
    const bundle2 = bundleFile(baseBundle('progress2-'));
    const shown = await load([bundle2, '--url', instance.url, '--apply'], { token, terminal: true });
    expect(shown.code).toBe(0);
    expect(shown.stderr).toContain('\r\x1b[2K  reading controls');
    for (const kind of ['package', 'controls', 'policies', 'risks', 'treatments', 'mappings', 'requirement statuses']) {
      expect(shown.stderr).toContain(`\r\x1b[2K  ${kind}: 1 written\n`.replace('mappings: 1', 'mappings: 3'));
    }
  });

  test('--help explains every option', async () => {
    const result = await load(['--help'], { token: null });
    expect(result.code).toBe(0);
    for (const option of ['--url', '--apply', '--token-file', '--ca-file', '--diff', '--json', '--parallel', '--help', 'GRC_API_TOKEN', 'Exit status']) {
      expect(result.stdout).toContain(option);
    }
  });

  test('usage errors: no file, no --url, an unknown option (exit 2)', async () => {
    expect((await load(['--url', instance.url], { token })).stderr).toContain('name the bundle file');
    expect((await load([bundleFile(baseBundle())], { token })).stderr).toContain('--url <base_url> is required');
    const unknown = await load([bundleFile(baseBundle()), '--url', instance.url, '--force'], { token });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("Unknown option '--force'");
  });
});
