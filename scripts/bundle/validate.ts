import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';
import { validatePackage } from '../../src/modules/compliance/packages-service';
import { scaleProblems } from '../../src/modules/risks/settings-service';
import { isRealDate } from '../../src/platform/core/dates';
import {
  Bundle, BUNDLE_FORMAT, BUNDLE_VERSION, BundleClassification, BundleControl, BundlePolicy, BundleRequirement, BundleRisk,
  MAX_BUNDLE_BYTES, plainIntegers, type PlannedTreatment,
} from './schema';

/** One reason the bundle cannot be loaded, at its JSON path (`risks[12].title`). */
export interface Problem {
  path: string;
  message: string;
}

/** A bundle file that cannot be read as a bundle at all: one line, exit status 1. */
export class BundleFileError extends Error {}

/** Rule 9: the implemented mitigate treatment that carries a risk's residual rating is found again by this title. */
export const RESIDUAL_BASIS_TITLE = 'Residual rating basis';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
import { squash } from '../../src/platform/core/text';

export { squash };
const quote = (s: unknown) => JSON.stringify(s);
const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Reads and parses the file, and checks that it is a grc-bundle of version 1; anything else is one clear line. */
export async function readBundleFile(file: string): Promise<unknown> {
  const name = basename(file);
  let size: number;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new BundleFileError(`${file} is not a file`);
    size = info.size;
  } catch (error) {
    if (error instanceof BundleFileError) throw error;
    throw new BundleFileError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  if (size > MAX_BUNDLE_BYTES) {
    throw new BundleFileError(`${name} is ${megabytes(size)}; the loader reads bundles up to ${megabytes(MAX_BUNDLE_BYTES)} (split it into several bundles)`);
  }
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    throw new BundleFileError(`${name} is not JSON: ${(error as Error).message}`);
  }
  if (!isRecord(value) || !('format' in value)) {
    throw new BundleFileError(`${name} is not a bundle: it needs "format": "${BUNDLE_FORMAT}" and "version": ${BUNDLE_VERSION} at the top level`);
  }
  if (value.format !== BUNDLE_FORMAT) throw new BundleFileError(`${name} has format ${quote(value.format)}; the loader reads "${BUNDLE_FORMAT}"`);
  if (value.version !== BUNDLE_VERSION) {
    throw new BundleFileError(`${name} is ${BUNDLE_FORMAT} version ${quote(value.version)}; this loader reads version ${BUNDLE_VERSION}`);
  }
  return value;
}

// ---------------------------------------------------------------- shape

const PlainBundle = plainIntegers(Bundle);
const checkBundle = TypeCompiler.Compile(PlainBundle);
const checkControl = TypeCompiler.Compile(plainIntegers(BundleControl));
const checkPolicy = TypeCompiler.Compile(plainIntegers(BundlePolicy));
const checkRisk = TypeCompiler.Compile(plainIntegers(BundleRisk));
const checkClassification = TypeCompiler.Compile(plainIntegers(BundleClassification));
const checkRequirement = TypeCompiler.Compile(plainIntegers(BundleRequirement));
export { PlainBundle };

/** "/risks/12/title" -> "risks[12].title". */
export function jsonPath(pointer: string): string {
  return pointer.split('/').filter(Boolean).map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
}

const article = (word: string) => (/^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`);

function shapeMessage(error: ValueError): string {
  const schema = error.schema as Record<string, unknown>;
  const value = error.value;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty: return 'is required';
    case ValueErrorType.ObjectAdditionalProperties: return 'is not a field of the bundle here';
    case ValueErrorType.StringMaxLength: {
      const length = typeof value === 'string' ? value.length : 0;
      return `must be at most ${Number(schema.maxLength).toLocaleString('en')} characters (it has ${length.toLocaleString('en')})`;
    }
    case ValueErrorType.StringMinLength: return 'must not be empty';
    case ValueErrorType.StringPattern:
      return schema.pattern === '^\\S+$' ? 'must be one word: no spaces' : `must match ${String(schema.pattern)}`;
    case ValueErrorType.StringFormat: return schema.format === 'date' ? 'must be a real date written YYYY-MM-DD' : `must be ${article(String(schema.format))}`;
    case ValueErrorType.Literal: return `must be ${quote(schema.const)}`;
    case ValueErrorType.ArrayMaxItems: return `must have at most ${Number(schema.maxItems).toLocaleString('en')} entries`;
    case ValueErrorType.ArrayMinItems: return `must have at least ${schema.minItems} ${schema.minItems === 1 ? 'entry' : 'entries'}`;
    case ValueErrorType.IntegerMinimum: case ValueErrorType.NumberMinimum: return `must be at least ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum: case ValueErrorType.NumberMaximum: return `must be at most ${schema.maximum}`;
    case ValueErrorType.Integer: return 'must be an integer';
    case ValueErrorType.Number: return 'must be a number';
    case ValueErrorType.String: return 'must be a string';
    case ValueErrorType.Boolean: return 'must be true or false';
    case ValueErrorType.Array: return 'must be a list';
    case ValueErrorType.Object: return 'must be an object';
    case ValueErrorType.Null: return 'must be null';
    default:
      if (Array.isArray(schema.enum)) return `must be one of ${schema.enum.join(', ')}`;
      if (Array.isArray(schema.anyOf) && schema.anyOf.some((b) => isRecord(b) && b.type === 'integer') && schema.anyOf.some((b) => isRecord(b) && b.type === 'string')) {
        return "must be a level's value (an integer) or its name";
      }
      return error.message.replace(/^Expected/, 'expected');
  }
}

function shapeProblems(value: unknown): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  for (const error of checkBundle.Errors(value)) {
    const path = jsonPath(error.path) || '(bundle)';
    if (seen.has(path)) continue;
    seen.add(path);
    problems.push({ path, message: shapeMessage(error) });
  }
  return problems;
}

// ---------------------------------------------------------------- rules

/** A risk scale, enough to resolve a level given by value or name (the bundle's riskScale or the instance's). */
export interface ScaleLevels {
  likelihood: { value: number; name: string }[];
  impact: { value: number; name: string }[];
}

/** A level's value from its value or its name, as the service resolves it (names ignoring case, spaces, underscores). */
export function resolveLevel(levels: { value: number; name: string }[], ref: number | string): number | undefined {
  if (typeof ref === 'number' || /^\d+$/.test(ref.trim())) return levels.find((l) => l.value === Number(ref))?.value;
  return levels.find((l) => squash(l.name) === squash(ref))?.value;
}

const levelLabel = (levels: { value: number; name: string }[], value: number) => {
  const name = levels.find((l) => l.value === value)?.name;
  return name ? `${value} (${name})` : String(value);
};

/**
 * Rules 4 and 6 for each risk against a scale: every level lies on it and no residual level (of the risk, or of its
 * planned treatment) is above the inherent one. `scaleName` says whose scale it is in the messages.
 * Without a scale only levels given as numbers can be compared.
 */
export function riskLevelProblems(risks: readonly BundleRisk[], scale: ScaleLevels | null, scaleName: string): Problem[] {
  const problems: Problem[] = [];
  risks.forEach((risk, i) => {
    const at = `risks[${i}]`;
    const resolve = (field: string, axis: 'likelihood' | 'impact', ref: number | string | undefined): number | undefined => {
      if (ref === undefined) return undefined;
      if (!scale) return typeof ref === 'number' ? ref : undefined;
      const value = resolveLevel(scale[axis], ref);
      if (value === undefined) problems.push({ path: `${at}.${field}`, message: `${quote(ref)} is not ${article(axis)} level of ${scaleName}` });
      return value;
    };
    const inherent = { likelihood: resolve('inherentLikelihood', 'likelihood', risk.inherentLikelihood), impact: resolve('inherentImpact', 'impact', risk.inherentImpact) };
    const checkResidual = (prefix: string, residualLikelihood: number | string | undefined, residualImpact: number | string | undefined) => {
      for (const [axis, ref] of [['likelihood', residualLikelihood], ['impact', residualImpact]] as const) {
        const field = `${prefix}residual${axis === 'likelihood' ? 'Likelihood' : 'Impact'}`;
        const residual = resolve(field, axis, ref);
        const top = inherent[axis];
        if (residual !== undefined && top !== undefined && residual > top) {
          const levels = scale?.[axis] ?? [];
          problems.push({ path: `${at}.${field}`, message: `${levelLabel(levels, residual)} is above the inherent ${axis} ${levelLabel(levels, top)}` });
        }
      }
    };
    checkResidual('', risk.residualLikelihood, risk.residualImpact);
    if (risk.plannedTreatment) checkResidual('plannedTreatment.', risk.plannedTreatment.residualLikelihood, risk.plannedTreatment.residualImpact);
  });
  return problems;
}

/** scaleProblems names fields "cells.3.likelihood"; the bundle's path is "riskScale.cells[3].likelihood". */
const scalePath = (field: string) => `riskScale.${jsonPath(field.replaceAll('.', '/'))}`;

/** Rule 2: a title or name begins with its ref and one space, and says something after it. */
function titleProblem(at: string, field: 'title' | 'name', ref: string, title: string): Problem | null {
  const trimmed = title.trim();
  if (trimmed === ref) return { path: `${at}.${field}`, message: `must say something after its ref ${quote(ref)}` };
  if (!trimmed.startsWith(`${ref} `)) return { path: `${at}.${field}`, message: `must begin with its ref ${quote(`${ref} `)}` };
  return null;
}

function plannedTreatmentProblems(at: string, planned: PlannedTreatment): Problem[] {
  const problems: Problem[] = [];
  const type = planned.type ?? 'mitigate';
  if (planned.title.trim() === RESIDUAL_BASIS_TITLE) {
    problems.push({ path: `${at}.title`, message: `${quote(RESIDUAL_BASIS_TITLE)} is the title of the residual basis treatment; choose another` });
  }
  if (type !== 'mitigate') {
    if (planned.residualLikelihood !== undefined || planned.residualImpact !== undefined) {
      problems.push({ path: `${at}.residualLikelihood`, message: 'only a mitigate treatment carries a residual rating' });
    }
    if (planned.controls?.length) problems.push({ path: `${at}.controls`, message: 'only a mitigate treatment links controls' });
  } else if ((planned.residualLikelihood === undefined) !== (planned.residualImpact === undefined)) {
    problems.push({ path: `${at}.${planned.residualLikelihood === undefined ? 'residualLikelihood' : 'residualImpact'}`, message: 'residual likelihood and impact are given together' });
  }
  if (planned.dueOn && !isRealDate(planned.dueOn)) problems.push({ path: `${at}.dueOn`, message: 'must be a real date written YYYY-MM-DD' });
  return problems;
}

/** Indexes of the entries of a list that have their own shape right; the rules look only at those. */
const wellFormed = <T>(list: unknown, check: { Check(value: unknown): boolean }): { item: T; index: number }[] =>
  Array.isArray(list) ? list.flatMap((item, index) => (check.Check(item) ? [{ item: item as T, index }] : [])) : [];

/**
 * Every problem of the bundle: its shape (types, required fields, lengths, unknown keys), then rules 1 to 9 as far
 * as the bundle alone can tell. Rules that need the instance (the outside approvals setting; levels when the bundle
 * has no riskScale) are checked in the read phase (plan.ts) before anything is written.
 */
export function validateBundle(value: unknown): Problem[] {
  const problems = shapeProblems(value);
  if (!isRecord(value)) return problems;

  const controls = wellFormed<BundleControl>(value.controls, checkControl);
  const policies = wellFormed<BundlePolicy>(value.policies, checkPolicy);
  const risks = wellFormed<BundleRisk>(value.risks, checkRisk);
  const classifications = wellFormed<BundleClassification>(value.classifications, checkClassification);
  const requirements = wellFormed<BundleRequirement>(value.requirements, checkRequirement);

  // Rules 1 and 2: refs unique within their type (length and spaces are in the shape); titles and names begin with them.
  const refsOf = (section: 'controls' | 'policies' | 'risks', field: 'title' | 'name') => {
    const entries = Array.isArray(value[section]) ? (value[section] as unknown[]) : [];
    const first = new Map<string, number>();
    entries.forEach((entry, index) => {
      if (!isRecord(entry) || typeof entry.ref !== 'string') return;
      const seen = first.get(entry.ref);
      if (seen !== undefined) problems.push({ path: `${section}[${index}].ref`, message: `${quote(entry.ref)} repeats ${section}[${seen}].ref` });
      else first.set(entry.ref, index);
      const title = entry[field];
      if (typeof title === 'string' && /^\S+$/.test(entry.ref)) {
        const problem = titleProblem(`${section}[${index}]`, field, entry.ref, title);
        if (problem) problems.push(problem);
      }
    });
    // References are checked against every ref present, so an entry with a problem of its own is not reported again
    // by each record that names it.
    return new Set(first.keys());
  };
  const refSets = { controls: refsOf('controls', 'name'), policies: refsOf('policies', 'title'), risks: refsOf('risks', 'title') };
  const knownControl = (ref: string) => refSets.controls.has(ref);

  const classificationNames = new Map<string, number>();
  for (const { item, index } of classifications) {
    const key = squash(item.name);
    if (!key) problems.push({ path: `classifications[${index}].name`, message: 'must not be blank' });
    else if (classificationNames.has(key)) {
      problems.push({ path: `classifications[${index}].name`, message: `${quote(item.name)} repeats classifications[${classificationNames.get(key)}].name` });
    } else classificationNames.set(key, index);
  }

  // Rule 6 (with a riskScale): the scale's own rules, a matrix cell for every pair among them.
  let scale: ScaleLevels | null = null;
  if (value.riskScale !== undefined) {
    const scaleShape = TypeCompiler.Compile(plainIntegers(Bundle.properties.riskScale));
    if (scaleShape.Check(value.riskScale)) {
      const riskScale = value.riskScale as Parameters<typeof scaleProblems>[0];
      for (const p of scaleProblems(riskScale)) problems.push({ path: scalePath(p.field), message: p.message });
      scale = riskScale;
    }
  }

  risks.forEach(({ item: risk, index }) => {
    const at = `risks[${index}]`;
    // Rule 5.
    if (!classificationNames.has(squash(risk.classification))) {
      problems.push({ path: `${at}.classification`, message: `${quote(risk.classification)} is not in classifications` });
    }
    // Rule 9 (the field itself is required by the shape).
    if (!risk.residualBasis.trim()) problems.push({ path: `${at}.residualBasis`, message: 'must not be blank: it becomes the implemented mitigate treatment carrying the residual rating' });
    risk.controls?.forEach((ref, k) => {
      if (!knownControl(ref)) problems.push({ path: `${at}.controls[${k}]`, message: `${quote(ref)} is not a control of the bundle` });
    });
    if (risk.plannedTreatment) {
      problems.push(...plannedTreatmentProblems(`${at}.plannedTreatment`, risk.plannedTreatment));
      risk.plannedTreatment.controls?.forEach((ref, k) => {
        if (!knownControl(ref)) problems.push({ path: `${at}.plannedTreatment.controls[${k}]`, message: `${quote(ref)} is not a control of the bundle` });
      });
    }
  });
  // Rules 4 and 6 against the bundle's scale; without one, what numbers alone can tell (the rest in the read phase).
  const levelProblems = riskLevelProblems(risks.map((r) => r.item), scale, "the bundle's riskScale");
  const riskIndex = risks.map((r) => r.index);
  problems.push(...levelProblems.map((p) => ({ ...p, path: p.path.replace(/^risks\[(\d+)\]/, (_, k: string) => `risks[${riskIndex[Number(k)]}]`) })));

  // Rule 8.
  policies.forEach(({ item: policy, index }) => {
    const at = `policies[${index}]`;
    const published = policy.status === 'published';
    if (published && !policy.content?.trim()) problems.push({ path: `${at}.content`, message: 'a policy published from the bundle carries its content' });
    const dated = policy.effectiveDate !== undefined;
    const signed = policy.signatories !== undefined;
    if (dated && !signed) problems.push({ path: `${at}.signatories`, message: 'are needed with effectiveDate' });
    if (signed && !dated) problems.push({ path: `${at}.effectiveDate`, message: 'is needed with signatories' });
    if ((dated || signed) && !published) problems.push({ path: `${at}.status`, message: 'must be "published": signatories approve a published version' });
    if (policy.effectiveDate && !isRealDate(policy.effectiveDate)) problems.push({ path: `${at}.effectiveDate`, message: 'must be a real date written YYYY-MM-DD' });
    policy.signatories?.forEach((name, k) => {
      if (!name.trim()) problems.push({ path: `${at}.signatories[${k}]`, message: 'must not be blank' });
    });
  });

  // Rule 7 (and the package's own rules, which the service would refuse it for).
  const itemKinds = new Map<string, string>();
  if (value.package !== undefined) {
    for (const p of validatePackage(value.package)) {
      const path = p.index === undefined ? `package.${p.field}` : `package.items[${p.index}]${p.field === 'item' ? '' : `.${p.field}`}`;
      problems.push({ path, message: p.message });
    }
    if (isRecord(value.package) && Array.isArray(value.package.items)) {
      for (const item of value.package.items) {
        if (isRecord(item) && typeof item.code === 'string') itemKinds.set(item.code.trim(), typeof item.kind === 'string' && item.kind ? item.kind : 'requirement');
      }
    }
  }
  if (value.requirements !== undefined && value.package === undefined) {
    problems.push({ path: 'requirements', message: 'are allowed only with a package in the same bundle' });
  } else {
    const firstCode = new Map<string, number>();
    for (const { item: requirement, index } of requirements) {
      const at = `requirements[${index}]`;
      const code = requirement.code.trim();
      const kind = itemKinds.get(code);
      if (kind === undefined) problems.push({ path: `${at}.code`, message: `${quote(code)} is not an item code of the package` });
      else if (kind === 'heading') problems.push({ path: `${at}.code`, message: `${quote(code)} is a heading; only requirement and additional items have an analysis` });
      const seen = firstCode.get(code);
      if (seen !== undefined) problems.push({ path: `${at}.code`, message: `${quote(code)} repeats requirements[${seen}].code` });
      else firstCode.set(code, index);
      for (const section of ['controls', 'policies', 'risks'] as const) {
        requirement[section]?.forEach((ref, k) => {
          if (!refSets[section].has(ref)) problems.push({ path: `${at}.${section}[${k}]`, message: `${quote(ref)} is not ${section === 'policies' ? 'a policy' : `a ${section.slice(0, -1)}`} of the bundle` });
        });
      }
    }
  }
  return sortByPath(problems);
}

const SECTIONS = Object.keys(Bundle.properties);
/** In the order of the file: by section, then by entry; a stable sort keeps each entry's problems in rule order. */
function sortByPath(problems: Problem[]): Problem[] {
  const key = (path: string) => {
    const match = /^([A-Za-z$]+)(?:\[(\d+)\])?/.exec(path);
    const section = SECTIONS.indexOf(match?.[1] ?? '');
    return [section === -1 ? -1 : section, match?.[2] === undefined ? -1 : Number(match[2])];
  };
  return problems.map((p) => ({ p, k: key(p.path) })).sort((a, b) => a.k[0] - b.k[0] || a.k[1] - b.k[1]).map(({ p }) => p);
}

/** The stop message: up to 50 problems by JSON path, then "and N more". */
export const PROBLEMS_LISTED = 50;
export function problemLines(problems: readonly Problem[]): string[] {
  const lines = problems.slice(0, PROBLEMS_LISTED).map((p) => `  ${p.path}: ${p.message}`);
  if (problems.length > PROBLEMS_LISTED) lines.push(`  and ${problems.length - PROBLEMS_LISTED} more`);
  return lines;
}
