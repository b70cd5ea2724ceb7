import { normaliseItem } from '../../src/modules/compliance/packages-service';
import type { PackageItem } from '../../src/modules/compliance/schema';
import { ApiCallError, expectData, type Instance } from './api';
import { found, readAnalyses, type Level, type Snapshot, type TreatmentRow } from './read';
import type { Bundle, BundleRisk, PlannedTreatment } from './schema';
import { RESIDUAL_BASIS_TITLE, resolveLevel, riskLevelProblems, squash, type Problem, type ScaleLevels } from './validate';

/**
 * From the bundle and the instance's snapshot, the steps of a load: per record kind, what to create, update or leave
 * unchanged (with the fields an update changes), each with the writes that carry it out and the steps it needs.
 * Nothing here writes; apply.ts runs the writes in KIND order.
 */

export const KINDS = [
  ['riskScale', 'risk scale'],
  ['classifications', 'classifications'],
  ['package', 'package'],
  ['controls', 'controls'],
  ['policies', 'policies'],
  ['approvals', 'policy approvals'],
  ['risks', 'risks'],
  ['treatments', 'treatments'],
  ['mappings', 'mappings'],
  ['requirementStatuses', 'requirement statuses'],
] as const;
export type KindName = (typeof KINDS)[number][0];
export const KIND_LABEL = Object.fromEntries(KINDS) as Record<KindName, string>;

export interface FieldChange {
  field: string;
  from: string;
  to: string;
}

export interface Step {
  kind: KindName;
  /** How the report names the record: its ref, name or code. */
  key: string;
  action: 'create' | 'update' | 'unchanged';
  changes: FieldChange[];
  /** Steps whose failure means this one is not attempted. */
  needs: Step[];
  /** The writes, in order; each runs once the one before it succeeded. */
  ops: WriteOp[];
  outcome?: 'done' | 'failed' | 'skipped';
  error?: string;
}

/**
 * One write of a step. `single` makes it with its own request; `batch` names the batch endpoint that can make it
 * together with others of the same kind (src/platform/records/batch.ts) and the item it sends. Either way `done` receives
 * the id of the record written.
 */
export interface WriteOp {
  single: () => Promise<string | void>;
  batch?: { endpoint: BatchEndpoint; item: () => unknown };
  done?: (id: string) => void;
}

/** The REST API's batch operations the loader uses (POST or PATCH, one result per item). */
export const BATCH_ENDPOINTS = {
  'controls.create': ['POST', '/api/v1/controls/batch'],
  'controls.update': ['PATCH', '/api/v1/controls/batch'],
  'policies.create': ['POST', '/api/v1/policies/batch'],
  'policies.update': ['PATCH', '/api/v1/policies/batch'],
  'policies.publish': ['POST', '/api/v1/policies/batch/publish'],
  'risks.create': ['POST', '/api/v1/risks/batch'],
  'risks.update': ['PATCH', '/api/v1/risks/batch'],
  'treatments.create': ['POST', '/api/v1/risks/treatments/batch'],
  'mappings.create': ['POST', '/api/v1/compliance/mappings/batch'],
} as const;
export type BatchEndpoint = keyof typeof BATCH_ENDPOINTS;

export interface Plan {
  steps: Step[];
  warnings: string[];
  /** Rules the instance decides (outside approvals setting, levels on its scale, package items): they stop the run. */
  problems: Problem[];
}

/** Ids of the instance's records, filled from the snapshot and by each create as it succeeds. */
interface Ids {
  classifications: Map<string, string>;
  analyses: Map<string, string>;
  controls: Map<string, string>;
  policies: Map<string, string>;
  risks: Map<string, string>;
}

// ---------------------------------------------------------------- how values are shown

const MAX_SHOWN = 80;
export function show(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') {
    const oneLine = value.replace(/\s+/g, ' ');
    const text = oneLine.length > MAX_SHOWN ? `${oneLine.slice(0, MAX_SHOWN)}… (${value.length.toLocaleString('en')} characters)` : oneLine;
    return JSON.stringify(text);
  }
  return String(value);
}

const change = (field: string, from: unknown, to: unknown): FieldChange => ({ field, from: show(from), to: show(to) });

const num = (value: number | string | null | undefined): number | null => (value === null || value === undefined ? null : Number(value));
const levelText = (levels: { value: number; name: string }[], value: number | null) => {
  if (value === null) return 'none';
  const name = levels.find((l) => l.value === value)?.name;
  return name ? `${value} (${name})` : String(value);
};
const viewLevel = (level: Level | null) => (level ? Number(level.value) : null);

// ---------------------------------------------------------------- the plan

export function buildPlan(bundle: Bundle, snapshot: Snapshot, instance: Instance): Plan {
  const api = instance.client;
  const steps: Step[] = [];
  const warnings: string[] = [];
  const problems: Problem[] = [];
  const ids: Ids = {
    classifications: new Map(), analyses: new Map(), controls: new Map(), policies: new Map(), risks: new Map(),
  };
  const add = (step: Step) => {
    steps.push(step);
    return step;
  };
  const stepOf = (kind: KindName, key: string, action: Step['action'], changes: FieldChange[], needs: Step[], ops: WriteOp[] | (() => Promise<unknown>)) =>
    add({ kind, key, action, changes, needs, ops: action === 'unchanged' ? [] : typeof ops === 'function' ? [{ single: async () => void (await ops()) }] : ops });
  const severalWarning = (kind: KindName, ref: string, rows: { id: string }[]) => {
    if (rows.length > 1) {
      warnings.push(`${KIND_LABEL[kind]} ${ref}: the ref is found on ${rows.length} records of the instance (${rows.map((r) => r.id).join(', ')}); the oldest, ${rows[0].id}, is the one written`);
    }
  };
  const titleWarning = (kind: KindName, ref: string, field: string, onInstance: string, inBundle: string) => {
    if (onInstance !== inBundle) warnings.push(`${KIND_LABEL[kind]} ${ref}: the ${field} on the instance, ${show(onInstance)}, differs from the bundle's, ${show(inBundle)}; the bundle's is written`);
  };

  // ---- risk scale: the bundle's, keeping the instance's level descriptions and band colours the bundle leaves out.
  let scaleStep: Step | null = null;
  const scaleLevels: ScaleLevels = bundle.riskScale ?? {
    likelihood: snapshot.scale.likelihood.map((l) => ({ value: Number(l.value), name: l.name })),
    impact: snapshot.scale.impact.map((l) => ({ value: Number(l.value), name: l.name })),
  };
  if (bundle.riskScale) {
    const wanted = mergeScale(bundle.riskScale, snapshot.scale);
    const changes = scaleChanges(snapshot.scale, wanted);
    scaleStep = stepOf('riskScale', '', changes.length ? 'update' : 'unchanged', changes, [], async () => {
      await expectData('PUT /api/v1/risk-scale', api.PUT('/api/v1/risk-scale', { body: wanted }));
    });
  } else if (bundle.risks?.length) {
    // Rules 4 and 6 against the instance's scale, for a bundle that brings none.
    problems.push(...riskLevelProblems(bundle.risks, scaleLevels, "the instance's risk scale"));
  }

  // ---- classifications, by name ignoring case and spaces.
  const classificationSteps = new Map<string, Step>();
  for (const c of bundle.classifications ?? []) {
    const key = squash(c.name);
    const row = snapshot.classifications.find((r) => squash(r.name) === key);
    const name = c.name.trim();
    if (!row) {
      classificationSteps.set(key, stepOf('classifications', name, 'create', [], [], [{
        single: async () => (await expectData('POST /api/v1/risk-classifications', api.POST('/api/v1/risk-classifications', {
          body: { name, ...(c.description !== undefined ? { description: c.description } : {}) },
        }))).data.id,
        done: (id) => ids.classifications.set(key, id),
      }]));
      continue;
    }
    ids.classifications.set(key, row.id);
    const changes: FieldChange[] = [];
    const body: { name?: string; description?: string } = {};
    if (row.name !== name) {
      changes.push(change('name', row.name, name));
      body.name = name;
    }
    if (c.description !== undefined && row.description !== c.description.trim()) {
      changes.push(change('description', row.description, c.description.trim()));
      body.description = c.description;
    }
    classificationSteps.set(key, stepOf('classifications', name, changes.length ? 'update' : 'unchanged', changes, [], async () => {
      await expectData(`PATCH /api/v1/risk-classifications/${row.id}`, api.PATCH('/api/v1/risk-classifications/{id}', { params: { path: { id: row.id } }, body }));
    }));
  }

  // ---- the package, by name; its item tree cannot change after import.
  let packageStep: Step | null = null;
  const pkg = bundle.package;
  if (pkg) {
    const rows = snapshot.packages;
    if (rows.length > 1) {
      warnings.push(`package ${show(pkg.name)}: found ${rows.length} times on the instance (${rows.map((r) => r.id).join(', ')}); the oldest, ${rows[0].id}, is the one written`);
    }
    const row = rows[0];
    if (!row) {
      packageStep = stepOf('package', pkg.name.trim(), 'create', [], [], async () => {
        const created = await expectData('POST /api/v1/compliance/packages', api.POST('/api/v1/compliance/packages', { body: pkg }));
        for (const analysis of await readAnalyses(instance, created.data.id)) ids.analyses.set(analysis.item.code, analysis.id);
      });
    } else {
      for (const [code, analysis] of snapshot.analyses) ids.analyses.set(code, analysis.id);
      const changes: FieldChange[] = [];
      const body: { name?: string; standard?: string; version?: string; description?: string } = {};
      const compare = (field: 'name' | 'standard' | 'version' | 'description', wanted: string | undefined, trim = true) => {
        if (wanted === undefined) return;
        const value = trim ? wanted.trim() : wanted;
        if (row[field] !== value) {
          changes.push(change(field, row[field], value));
          body[field] = value;
        }
      };
      compare('name', pkg.name);
      compare('standard', pkg.standard);
      compare('version', pkg.version);
      compare('description', pkg.description, false);
      packageStep = stepOf('package', pkg.name.trim(), changes.length ? 'update' : 'unchanged', changes, [], async () => {
        await expectData(`PATCH /api/v1/compliance/packages/${row.id}`, api.PATCH('/api/v1/compliance/packages/{id}', { params: { path: { id: row.id } }, body }));
      });
      const difference = itemDifference(pkg.items, snapshot.packageItems ?? []);
      if (difference) {
        warnings.push(`package ${show(pkg.name)}: its items on the instance differ from the bundle's (${difference}); a package's items cannot change after import, so the bundle's are not written (give the package a new name to import it as a new version)`);
      }
      (bundle.requirements ?? []).forEach((requirement, i) => {
        const code = requirement.code.trim();
        if (!snapshot.analyses.has(code)) {
          problems.push({ path: `requirements[${i}].code`, message: `${show(code)} is not an item of the package ${show(row.name)} on the instance (its items cannot change after import)` });
        }
      });
    }
  }

  // ---- controls, by ref.
  const controlSteps = new Map<string, Step>();
  for (const control of bundle.controls ?? []) {
    const rows = snapshot.controls.get(control.ref) ?? [];
    severalWarning('controls', control.ref, rows);
    const row = rows[0];
    const name = control.name.trim();
    const fields = {
      name, description: control.description, type: control.type, status: control.status, testFrequencyMonths: control.testFrequencyMonths,
    };
    if (!row) {
      controlSteps.set(control.ref, stepOf('controls', control.ref, 'create', [], [], [{
        single: async () => (await expectData('POST /api/v1/controls', api.POST('/api/v1/controls', { body: defined(fields) }))).data.id,
        batch: { endpoint: 'controls.create', item: () => defined(fields) },
        done: (id) => ids.controls.set(control.ref, id),
      }]));
      continue;
    }
    ids.controls.set(control.ref, row.id);
    titleWarning('controls', control.ref, 'name', row.name, name);
    const { changes, body } = compareFields(fields, {
      name: row.name, description: row.description, type: row.type, status: row.status, testFrequencyMonths: num(row.testFrequencyMonths),
    });
    controlSteps.set(control.ref, stepOf('controls', control.ref, changes.length ? 'update' : 'unchanged', changes, [], [{
      single: async () => void await expectData(`PATCH /api/v1/controls/${row.id}`, api.PATCH('/api/v1/controls/{id}', { params: { path: { id: row.id } }, body })),
      batch: { endpoint: 'controls.update', item: () => ({ id: row.id, changes: body }) },
    }]));
  }

  // ---- policies, by ref: fields, draft content, publishing; then their outside approvals.
  // Rule 8, the instance's part: signatories are recorded as outside approvals, which the setting must allow.
  if (!snapshot.allowOutsideApprovals) {
    (bundle.policies ?? []).forEach((policy, i) => {
      if (policy.signatories?.length) {
        problems.push({
          path: `policies[${i}].signatories`,
          message: 'the instance does not allow recording approvals given outside the app (Settings › Policies › Allow recording outside approvals)',
        });
      }
    });
  }
  const policySteps = new Map<string, Step>();
  for (const policy of bundle.policies ?? []) {
    const rows = snapshot.policies.get(policy.ref) ?? [];
    severalWarning('policies', policy.ref, rows);
    const row = rows[0];
    const title = policy.title.trim();
    const fields = { title, description: policy.description, reviewFrequencyMonths: policy.reviewFrequencyMonths };
    const publish = policy.status === 'published';
    const content = policy.content;
    let step: Step;
    let newVersion: boolean;
    if (!row) {
      newVersion = publish;
      step = stepOf('policies', policy.ref, 'create', [], [], [{
        single: async () => {
          const created = await expectData('POST /api/v1/policies', api.POST('/api/v1/policies', { body: defined(fields) }));
          await writeContent(created.data.id, content);
          return created.data.id;
        },
        batch: { endpoint: 'policies.create', item: () => defined({ ...fields, content }) },
        done: (id) => ids.policies.set(policy.ref, id),
      }, ...(publish ? [publishOp(policy.ref)] : [])]);
    } else {
      ids.policies.set(policy.ref, row.id);
      titleWarning('policies', policy.ref, 'title', row.title, title);
      const { changes, body } = compareFields(fields, {
        title: row.title, description: row.description, reviewFrequencyMonths: num(row.reviewFrequencyMonths),
      });
      const contentChanges = content !== undefined && row.content !== content;
      if (contentChanges) changes.push(change('content (draft)', row.content, content));
      const current = num(row.currentVersion);
      newVersion = publish && (current === null || snapshot.publishedContent.get(row.id) !== content);
      if (newVersion) changes.push({ field: 'published version', from: current === null ? 'none' : `version ${current}`, to: `version ${(current ?? 0) + 1}` });
      if (!publish && policy.status === 'draft' && row.status === 'published') {
        warnings.push(`policies ${policy.ref}: published on the instance and a draft in the bundle; a published policy stays published`);
      }
      const ops: WriteOp[] = [];
      if (Object.keys(body).length || contentChanges) {
        ops.push({
          single: async () => {
            if (Object.keys(body).length) {
              await expectData(`PATCH /api/v1/policies/${row.id}`, api.PATCH('/api/v1/policies/{id}', { params: { path: { id: row.id } }, body }));
            }
            if (contentChanges) await writeContent(row.id, content);
          },
          batch: { endpoint: 'policies.update', item: () => ({ id: row.id, changes: { ...body, ...(contentChanges ? { content } : {}) } }) },
        });
      }
      if (newVersion) ops.push(publishOp(policy.ref));
      step = stepOf('policies', policy.ref, changes.length ? 'update' : 'unchanged', changes, [], ops);
    }
    policySteps.set(policy.ref, step);
    if (policy.signatories?.length && policy.effectiveDate) {
      const approvedOn = policy.effectiveDate;
      const approvals = row ? snapshot.approvals.get(row.id) ?? [] : [];
      const current = row ? num(row.currentVersion) : null;
      for (const signatory of policy.signatories) {
        const approverName = signatory.trim();
        const recorded = !newVersion && approvals.some((a) => num(a.version) === current && a.approverName === approverName && a.approvedOn === approvedOn);
        stepOf('approvals', `${policy.ref} ${approverName} (${approvedOn})`, recorded ? 'unchanged' : 'create', [], [step], async () => {
          const id = ids.policies.get(policy.ref)!;
          // Without a version number the approval is of the current version: the one this run just published, if any.
          await expectData(`POST /api/v1/policies/${id}/approvals`, api.POST('/api/v1/policies/{id}/approvals', {
            params: { path: { id } }, body: { approverName, approvedOn },
          }));
        });
      }
    }
  }
  async function writeContent(id: string, content: string | undefined) {
    if (content === undefined) return;
    await expectData(`PUT /api/v1/policies/${id}/content`, api.PUT('/api/v1/policies/{id}/content', { params: { path: { id } }, body: { content } }));
  }
  function publishOp(ref: string): WriteOp {
    const id = () => ids.policies.get(ref)!;
    return {
      single: async () => void await expectData(`POST /api/v1/policies/${id()}/publish`, api.POST('/api/v1/policies/{id}/publish', { params: { path: { id: id() } } })),
      batch: { endpoint: 'policies.publish', item: () => ({ id: id() }) },
    };
  }

  // ---- risks, by ref; then each risk's residual basis and planned treatment.
  const riskSteps = new Map<string, Step>();
  const level = (axis: 'likelihood' | 'impact', ref: number | string | undefined) =>
    (ref === undefined ? null : resolveLevel(scaleLevels[axis], ref) ?? null);
  const showLevel = (axis: 'likelihood' | 'impact') => (value: number | null) => levelText(scaleLevels[axis], value);
  for (const risk of bundle.risks ?? []) {
    const rows = snapshot.risks.get(risk.ref) ?? [];
    severalWarning('risks', risk.ref, rows);
    const row = rows[0];
    const title = risk.title.trim();
    const classificationKey = squash(risk.classification);
    const needs = [scaleStep, classificationSteps.get(classificationKey)].filter((s): s is Step => !!s);
    const levels = {
      inherentLikelihood: level('likelihood', risk.inherentLikelihood), inherentImpact: level('impact', risk.inherentImpact),
      residualLikelihood: level('likelihood', risk.residualLikelihood), residualImpact: level('impact', risk.residualImpact),
    };
    const fields = { title, description: risk.description, status: risk.status, reviewFrequencyMonths: risk.reviewFrequencyMonths };
    if (!row) {
      const body = () => ({ ...defined(fields), ...nonNull(levels), classificationId: ids.classifications.get(classificationKey)! });
      riskSteps.set(risk.ref, stepOf('risks', risk.ref, 'create', [], needs, [{
        single: async () => (await expectData('POST /api/v1/risks', api.POST('/api/v1/risks', { body: body() as never }))).data.id,
        batch: { endpoint: 'risks.create', item: body },
        done: (id) => ids.risks.set(risk.ref, id),
      }]));
    } else {
      ids.risks.set(risk.ref, row.id);
      titleWarning('risks', risk.ref, 'title', row.title, title);
      const { changes, body } = compareFields(fields, {
        title: row.title, description: row.description, status: row.status, reviewFrequencyMonths: num(row.reviewFrequencyMonths),
      });
      const patch: Record<string, unknown> = { ...body };
      if (squash(row.classification.name) !== classificationKey) {
        changes.push(change('classification', row.classification.name, risk.classification.trim()));
        patch.classificationId = null;
      }
      for (const [field, axis, current] of [
        ['inherentLikelihood', 'likelihood', viewLevel(row.inherentLikelihood)], ['inherentImpact', 'impact', viewLevel(row.inherentImpact)],
        ['residualLikelihood', 'likelihood', viewLevel(row.residualLikelihood)], ['residualImpact', 'impact', viewLevel(row.residualImpact)],
      ] as const) {
        const wanted = levels[field];
        if (wanted !== null && wanted !== current) {
          changes.push({ field, from: showLevel(axis)(current), to: showLevel(axis)(wanted) });
          patch[field] = wanted;
        }
      }
      const changed = () => ('classificationId' in patch ? { ...patch, classificationId: ids.classifications.get(classificationKey) } : patch);
      riskSteps.set(risk.ref, stepOf('risks', risk.ref, changes.length ? 'update' : 'unchanged', changes, needs, [{
        single: async () => void await expectData(`PATCH /api/v1/risks/${row.id}`, api.PATCH('/api/v1/risks/{id}', { params: { path: { id: row.id } }, body: changed() as never })),
        batch: { endpoint: 'risks.update', item: () => ({ id: row.id, changes: changed() }) },
      }]));
    }
  }
  for (const risk of bundle.risks ?? []) {
    const row = found(snapshot.risks, risk.ref);
    const treatments = row ? snapshot.treatments.get(row.id) ?? [] : [];
    const riskStep = riskSteps.get(risk.ref)!;
    const basis = treatments.find((t) => t.title.trim() === RESIDUAL_BASIS_TITLE);
    planTreatment(risk, basis, RESIDUAL_BASIS_TITLE, {
      type: 'mitigate', status: 'implemented', description: risk.residualBasis,
      residualLikelihood: level('likelihood', risk.residualLikelihood), residualImpact: level('impact', risk.residualImpact),
      controls: risk.controls,
    }, riskStep);
    if (risk.plannedTreatment) {
      const planned = risk.plannedTreatment;
      const title = planned.title.trim();
      const existing = treatments.find((t) => t !== basis && t.title.trim() === title);
      planTreatment(risk, existing, title, plannedFields(planned, level), riskStep);
    }
  }
  function planTreatment(risk: BundleRisk, existing: TreatmentRow | undefined, title: string, wanted: TreatmentFields, riskStep: Step) {
    const controlRefs = wanted.controls;
    const needs = [riskStep, ...(controlRefs ?? []).map((ref) => controlSteps.get(ref)).filter((s): s is Step => !!s)];
    const controlIds = () => (controlRefs ?? []).map((ref) => ids.controls.get(ref)!);
    const key = `${risk.ref} ${show(title)}`;
    const fields = { type: wanted.type, description: wanted.description, dueOn: wanted.dueOn };
    if (!existing) {
      const body = () => ({
        ...defined(fields), title, ...(wanted.status ? { status: wanted.status } : {}),
        ...nonNull({ residualLikelihood: wanted.residualLikelihood, residualImpact: wanted.residualImpact }),
        ...(controlRefs ? { controlIds: controlIds() } : {}),
      });
      stepOf('treatments', key, 'create', [], needs, [{
        single: async () => {
          const riskId = ids.risks.get(risk.ref)!;
          return (await expectData(`POST /api/v1/risks/${riskId}/treatments`, api.POST('/api/v1/risks/{id}/treatments', {
            params: { path: { id: riskId } }, body: body() as never,
          }))).data.id;
        },
        batch: { endpoint: 'treatments.create', item: () => ({ riskId: ids.risks.get(risk.ref)!, ...body() }) },
      }]);
      return;
    }
    const { changes, body } = compareFields({ ...fields, status: wanted.status }, {
      type: existing.type, description: existing.description, dueOn: existing.dueOn, status: existing.status,
    });
    const patch: Record<string, unknown> = { ...body };
    for (const [field, axis] of [['residualLikelihood', 'likelihood'], ['residualImpact', 'impact']] as const) {
      const current = viewLevel(existing[field]);
      if (wanted[field] !== null && wanted[field] !== current) {
        changes.push({ field, from: showLevel(axis)(current), to: showLevel(axis)(wanted[field]) });
        patch[field] = wanted[field];
      }
    }
    if (controlRefs) {
      const linked = new Set(existing.controls.map((c) => c.id));
      const known = controlRefs.map((ref) => found(snapshot.controls, ref)?.id);
      if (known.some((id) => !id || !linked.has(id)) || linked.size !== new Set(known).size) {
        changes.push(change('controls', existing.controls.map((c) => c.name.split(' ')[0]).sort().join(', '), [...controlRefs].sort().join(', ')));
        patch.controlIds = null;
      }
    }
    stepOf('treatments', key, changes.length ? 'update' : 'unchanged', changes, needs, async () => {
      const riskId = ids.risks.get(risk.ref)!;
      if ('controlIds' in patch) patch.controlIds = controlIds();
      await expectData(`PATCH /api/v1/risks/${riskId}/treatments/${existing.id}`, api.PATCH('/api/v1/risks/{id}/treatments/{treatmentId}', {
        params: { path: { id: riskId, treatmentId: existing.id } }, body: patch as never,
      }));
    });
  }

  // ---- requirement mappings (added, never removed) and statuses.
  const analysisOf = (code: string) => {
    const id = ids.analyses.get(code);
    if (!id) throw new ApiCallError(`requirement ${code}`, 404, `the package on the instance has no analysis for ${code}`);
    return id;
  };
  const recordSteps = { controls: controlSteps, policies: policySteps, risks: riskSteps };
  const snapshotRecord = { controls: snapshot.controls, policies: snapshot.policies, risks: snapshot.risks };
  for (const requirement of bundle.requirements ?? []) {
    const code = requirement.code.trim();
    const analysis = snapshot.analyses.get(code);
    for (const section of ['controls', 'policies', 'risks'] as const) {
      for (const ref of requirement[section] ?? []) {
        const target = found(snapshotRecord[section] as Map<string, { id: string }[]>, ref);
        const mapped = !!analysis && !!target && !!snapshot.mappings.get(analysis.id)?.[section].has(target.id);
        const needs = [packageStep, recordSteps[section].get(ref)].filter((s): s is Step => !!s);
        stepOf('mappings', `${code} ↔ ${section.slice(0, -1).replace('policie', 'policy')} ${ref}`, mapped ? 'unchanged' : 'create', [], needs, [{
          single: async () => {
            const analysisId = analysisOf(code);
            const id = ids[section].get(ref)!;
            try {
              await expectData(`POST /api/v1/compliance/analyses/${analysisId}/${section}`, api.POST(`/api/v1/compliance/analyses/{id}/${section}`, {
                params: { path: { id: analysisId } }, body: { id },
              }));
            } catch (error) {
              // Mapped meanwhile: what the bundle wants is there.
              if (!(error instanceof ApiCallError && error.status === 409)) throw error;
            }
          },
          batch: { endpoint: 'mappings.create', item: () => ({ analysisId: analysisOf(code), kind: section, id: ids[section].get(ref)! }) },
        }]);
      }
    }
    if (requirement.status !== undefined || requirement.notes !== undefined) {
      const { changes, body } = compareFields({ status: requirement.status, notes: requirement.notes }, {
        status: analysis?.status ?? 'not_assessed', notes: analysis?.notes ?? '',
      });
      stepOf('requirementStatuses', code, changes.length ? 'update' : 'unchanged', changes, packageStep ? [packageStep] : [], async () => {
        const analysisId = analysisOf(code);
        await expectData(`PATCH /api/v1/compliance/analyses/${analysisId}`, api.PATCH('/api/v1/compliance/analyses/{id}', {
          params: { path: { id: analysisId } }, body: body as never,
        }));
      });
    }
  }

  // In the order they are written (a stable sort keeps each kind's steps in bundle order).
  const order = new Map(KINDS.map(([kind], i) => [kind, i]));
  steps.sort((a, b) => order.get(a.kind)! - order.get(b.kind)!);
  return { steps, warnings, problems };
}

interface TreatmentFields {
  type: string;
  status?: string;
  description?: string;
  dueOn?: string | null;
  residualLikelihood: number | null;
  residualImpact: number | null;
  controls?: string[];
}

function plannedFields(planned: PlannedTreatment, level: (axis: 'likelihood' | 'impact', ref: number | string | undefined) => number | null): TreatmentFields {
  return {
    type: planned.type ?? 'mitigate',
    description: planned.description,
    dueOn: planned.dueOn,
    residualLikelihood: level('likelihood', planned.residualLikelihood),
    residualImpact: level('impact', planned.residualImpact),
    controls: planned.controls,
  };
}

/** The fields the bundle gives (undefined: left alone) that differ from the instance's, and the body that changes them. */
function compareFields<W extends Record<string, unknown>>(wanted: W, current: { [K in keyof W]?: unknown }) {
  const changes: FieldChange[] = [];
  const body: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(wanted)) {
    if (value === undefined) continue;
    if (current[field] !== value) {
      changes.push(change(field, current[field], value));
      body[field] = value;
    }
  }
  return { changes, body: body as Partial<W> };
}

const defined = <T extends Record<string, unknown>>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as T;
const nonNull = <T extends Record<string, unknown>>(fields: T): T =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== null && v !== undefined)) as T;

// ---------------------------------------------------------------- risk scale

type WantedScale = NonNullable<Bundle['riskScale']>;

function mergeScale(bundle: WantedScale, instance: Snapshot['scale']): WantedScale {
  const levelsOf = (axis: 'likelihood' | 'impact') => bundle[axis].map((level) => ({
    value: level.value, name: level.name,
    description: level.description ?? instance[axis].find((l) => Number(l.value) === level.value)?.description ?? '',
  }));
  return {
    likelihood: levelsOf('likelihood'),
    impact: levelsOf('impact'),
    cells: bundle.cells,
    bands: bundle.bands.map((band) => {
      const color = band.color ?? instance.bands.find((b) => squash(b.name) === squash(band.name))?.color;
      return { name: band.name, minScore: band.minScore, maxScore: band.maxScore, ...(color ? { color } : {}) };
    }),
  };
}

function scaleChanges(instance: Snapshot['scale'], wanted: WantedScale): FieldChange[] {
  const changes: FieldChange[] = [];
  const levels = (list: { value: number | string; name: string; description?: string }[]) =>
    [...list].sort((a, b) => Number(a.value) - Number(b.value))
      .map((l) => `${Number(l.value)} ${l.name.trim()}${l.description ? ` (${l.description})` : ''}`).join(', ');
  for (const axis of ['likelihood', 'impact'] as const) {
    const from = levels(instance[axis]);
    const to = levels(wanted[axis]);
    if (from !== to) changes.push({ field: axis, from, to });
  }
  const scores = new Map(instance.cells.map((c) => [`${Number(c.likelihood)}×${Number(c.impact)}`, Number(c.score)]));
  const wantedCells = new Map(wanted.cells.map((c) => [`${c.likelihood}×${c.impact}`, c.score]));
  for (const [cell, score] of wantedCells) {
    if (scores.get(cell) !== score) changes.push({ field: `cell ${cell}`, from: show(scores.get(cell)), to: String(score) });
  }
  for (const [cell, score] of scores) if (!wantedCells.has(cell)) changes.push({ field: `cell ${cell}`, from: String(score), to: 'none' });
  const bands = (list: { name: string; minScore: number | string; maxScore: number | string; color?: string }[]) =>
    [...list].sort((a, b) => Number(a.minScore) - Number(b.minScore))
      .map((b) => `${b.name.trim()} ${Number(b.minScore)}–${Number(b.maxScore)}${b.color ? ` ${b.color.toLowerCase()}` : ''}`).join(', ');
  const bandsFrom = bands(instance.bands);
  const bandsTo = bands(wanted.bands.map((b) => ({ ...b, color: b.color ?? '#888888' })));
  if (bandsFrom !== bandsTo) changes.push({ field: 'bands', from: bandsFrom, to: bandsTo });
  return changes;
}

/** How the instance's item tree differs from the bundle's, or null when it is the same. */
function itemDifference(bundleItems: PackageItem[], instanceItems: PackageItem[]): string | null {
  const key = (item: PackageItem) => JSON.stringify(normaliseItem(item));
  const ours = new Map(bundleItems.map((item) => [normaliseItem(item).code, key(item)]));
  const theirs = new Map(instanceItems.map((item) => [normaliseItem(item).code, key(item)]));
  const onlyOurs = [...ours.keys()].filter((code) => !theirs.has(code)).length;
  const onlyTheirs = [...theirs.keys()].filter((code) => !ours.has(code)).length;
  const changed = [...ours].filter(([code, k]) => theirs.has(code) && theirs.get(code) !== k).length;
  if (!onlyOurs && !onlyTheirs && !changed) return null;
  return [
    onlyOurs ? `${onlyOurs} only in the bundle` : '', onlyTheirs ? `${onlyTheirs} only on the instance` : '', changed ? `${changed} changed` : '',
  ].filter(Boolean).join(', ');
}
