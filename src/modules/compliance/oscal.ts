import { randomUUID } from 'node:crypto';
import type { DbOrTx } from '../../../db/client';
import { requirePermission, type Actor } from '../../platform/permissions/permissions';
import { exportPackage, getPackage, importPackage, packageRefused, validatePackage } from './packages-service';
import { ITEM_KINDS, PACKAGE_LIMITS, type ItemKind, type PackageInput, type PackageItem, type PackageProblem } from './schema';

/**
 * OSCAL catalogs (NIST's Open Security Controls Assessment Language, JSON format) in and out of compliance packages.
 *
 * Import: a catalog, or a profile already resolved into a catalog, becomes a package: groups are headings (nested groups
 * nested headings), controls requirements, control enhancements (controls inside controls) their children, in document
 * order. The OSCAL ids are the codes; the `statement` part is the description, its items one line each ("a. …",
 * nested items indented two spaces per level), parameters substituted where the catalog sets values, otherwise shown as
 * SP 800-53 prints them ("[Assignment: organization-defined …]", "[Selection (one or more): …]"). Withdrawn controls
 * (property status = withdrawn) are left out; a kept control under a withdrawn one moves up to the withdrawn one's parent.
 *
 * Export: a package as an OSCAL 1.1.2 catalog. Headings are groups (a heading under a requirement, which OSCAL cannot
 * nest, is a control marked kind = heading), requirements and additional items controls. What a catalog cannot say
 * otherwise travels in properties of this service's namespace (OSCAL_NS), so importing the export gives the same
 * package: the code where it is not a valid OSCAL id, the kind other than requirement, the item's position, the
 * standard and a blank version.
 */

/** The OSCAL version exports declare: the version of the shipped NIST catalog, whose published JSON Schema they meet. */
export const OSCAL_VERSION = '1.1.2';
/** Request media types that mean "this body is an OSCAL document" (the `format=oscal` query flag means the same). */
export const OSCAL_MEDIA_TYPES = ['application/oscal+json', 'application/oscal.catalog+json'] as const;
/** The namespace of this service's own properties in exported catalogs. */
export const OSCAL_NS = 'urn:grc-service:ns:oscal';
/** How deep groups, controls and parts may nest before a file is refused (the NIST catalogs use four levels). */
const MAX_DEPTH = 40;

/** The top-level keys of OSCAL's JSON models: exactly one of them holds the document. */
const OSCAL_MODELS = [
  'catalog', 'profile', 'component-definition', 'system-security-plan', 'assessment-plan', 'assessment-results',
  'plan-of-action-and-milestones', 'mapping-collection',
] as const;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
const TOKEN = /^(\p{L}|_)(\p{L}|\p{N}|[.\-_])*$/u;

/** The OSCAL model a parsed JSON document holds (its one top-level model key), or null when it holds none. */
export function oscalModelOf(parsed: unknown): string | null {
  if (!isObject(parsed)) return null;
  return OSCAL_MODELS.find((model) => model in parsed) ?? null;
}

interface Param { id: string; label?: string; values?: string[]; select?: { howMany?: string; choices: string[] } }

interface Prop { name: string; value: string; ns?: string; class?: string }
const propsOf = (node: Json): Prop[] => list(node.props).filter(isObject).filter((p): p is Json & Prop => typeof p.name === 'string' && typeof p.value === 'string');
const ownProp = (node: Json, name: string) => propsOf(node).find((p) => p.ns === OSCAL_NS && p.name === name)?.value;
const labelOf = (node: Json) => {
  const labels = propsOf(node).filter((p) => p.name === 'label' && p.ns === undefined);
  return (labels.find((p) => p.class === undefined) ?? labels[0])?.value;
};

/** What reading an OSCAL document gives: the package (best effort when there are problems) and every problem. */
export interface OscalRead {
  input: PackageInput | null;
  problems: PackageProblem[];
  /** Controls left out because the catalog marks them withdrawn. */
  withdrawn: number;
}

const refused = (field: string, message: string): OscalRead => ({ input: null, problems: [{ field, message }], withdrawn: 0 });

/** Reads OSCAL JSON text; a file that is not JSON is one problem naming the parser's complaint. */
export function readOscalText(text: string): OscalRead {
  const body = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    return refused('file', `is not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  return readOscal(parsed);
}

/** Counts controls (withdrawn ones too) without recursion, stopping early once past the package limit. */
function countControls(catalog: Json): number | 'too-deep' {
  let controls = 0;
  const pending: [unknown, number][] = [[catalog, 0]];
  while (pending.length) {
    const [node, depth] = pending.pop()!;
    if (!isObject(node)) continue;
    if (depth > MAX_DEPTH) return 'too-deep';
    for (const child of list(node.controls)) {
      controls += 1;
      pending.push([child, depth + 1]);
    }
    for (const child of list(node.groups)) pending.push([child, depth + 1]);
    if (controls > PACKAGE_LIMITS.items) return controls;
  }
  return controls;
}

/**
 * A parsed OSCAL document as a package: refused with one problem naming the reason when it is not OSCAL, an OSCAL model
 * other than a catalog, an unresolved profile, or a catalog of more than 10,000 controls; otherwise converted, and
 * the package checked as any import (repeated codes, lengths), every problem listed.
 */
export function readOscal(parsed: unknown, overrides: Partial<Pick<PackageInput, 'name' | 'standard' | 'version'>> = {}): OscalRead {
  const model = oscalModelOf(parsed);
  if (model === null) {
    return refused('file', 'is not an OSCAL document: expected a JSON object whose top-level key is "catalog" (an OSCAL catalog or a resolved profile catalog)');
  }
  const root = (parsed as Json)[model];
  if (model === 'profile') {
    const hrefs = isObject(root) ? list(root.imports).filter(isObject).map((i) => String(i.href ?? '')).filter(Boolean) : [];
    const imports = hrefs.length ? ` (${hrefs.slice(0, 3).join(', ')}${hrefs.length > 3 ? ', …' : ''})` : '';
    return refused('profile', `is an OSCAL profile, not a catalog: its imports${imports} cannot be resolved offline. Resolve the profile into a catalog first (for example with NIST's oscal-cli: profile resolve) and import the resolved catalog`);
  }
  if (model !== 'catalog') return refused(model, `is an OSCAL ${model} document, not a catalog; only catalogs (and resolved profile catalogs) import as packages`);
  if (!isObject(root)) return refused('catalog', 'must be an object');
  const metadata = isObject(root.metadata) ? root.metadata : null;
  if (!metadata || typeof metadata.title !== 'string') return refused('catalog.metadata.title', 'is required (the package name)');

  const controls = countControls(root);
  if (controls === 'too-deep') return refused('catalog', `groups and controls are nested deeper than ${MAX_DEPTH} levels`);
  if (controls > PACKAGE_LIMITS.items) {
    return refused('catalog', `holds more than ${PACKAGE_LIMITS.items.toLocaleString('en')} controls (${controls.toLocaleString('en')} counted before stopping); a package holds at most ${PACKAGE_LIMITS.items.toLocaleString('en')} items`);
  }
  return convertCatalog(root, metadata, overrides);
}

function convertCatalog(catalog: Json, metadata: Json, overrides: Partial<Pick<PackageInput, 'name' | 'standard' | 'version'>>): OscalRead {
  const problems: PackageProblem[] = [];
  const params = new Map<string, Param>();
  const collectParams = (node: Json) => {
    for (const raw of list(node.params)) {
      if (!isObject(raw) || typeof raw.id !== 'string') continue;
      const select = isObject(raw.select) ? raw.select : null;
      params.set(raw.id, {
        id: raw.id,
        ...(typeof raw.label === 'string' ? { label: raw.label } : {}),
        ...(Array.isArray(raw.values) && raw.values.length ? { values: raw.values.map(String) } : {}),
        ...(select ? { select: { howMany: typeof select['how-many'] === 'string' ? select['how-many'] : undefined, choices: list(select.choice).map(String) } } : {}),
      });
    }
  };
  // Parameter ids are unique in a catalog; one map lets a choice or a statement refer to any of them.
  const pending: Json[] = [catalog];
  while (pending.length) {
    const node = pending.pop()!;
    collectParams(node);
    for (const child of [...list(node.groups), ...list(node.controls)]) if (isObject(child)) pending.push(child);
  }

  const INSERT = /\{\{\s*insert:\s*param,\s*([^\s}]+)\s*\}\}/g;
  const resolve = (prose: string, where: string, depth = 0): string => prose.replace(INSERT, (_, id: string) => {
    const param = params.get(id);
    if (!param) {
      problems.push({ field: where, message: `inserts the parameter ${id}, which the catalog does not define` });
      return `[${id}]`;
    }
    if (depth > 5) {
      problems.push({ field: where, message: `parameter ${id}: choices insert parameters more than 5 levels deep` });
      return `[${id}]`;
    }
    if (param.values) return param.values.map((value) => squeeze(resolve(value, where, depth + 1))).join(', ');
    if (param.select) {
      const choices = param.select.choices.map((choice) => squeeze(resolve(choice, where, depth + 1)));
      const howMany = param.select.howMany === 'one-or-more' ? ' (one or more)' : '';
      return `[Selection${howMany}: ${choices.join('; ')}]`;
    }
    if (param.label !== undefined) {
      const label = squeeze(param.label);
      return `[Assignment: ${label.startsWith('organization-defined') ? '' : 'organization-defined '}${label}]`;
    }
    return `[Assignment: ${id}]`;
  });

  /** The statement part as text: its prose, then one line per item ("a. …"), nested items indented two spaces a level. */
  const statementOf = (node: Json, where: string): string => {
    const statement = list(node.parts).find((part) => isObject(part) && part.name === 'statement');
    if (!isObject(statement)) return '';
    const lines: string[] = [];
    const walk = (part: Json, depth: number, path: string) => {
      if (depth > MAX_DEPTH) {
        problems.push({ field: path, message: `parts are nested deeper than ${MAX_DEPTH} levels` });
        return;
      }
      const label = labelOf(part);
      const prose = typeof part.prose === 'string' ? resolve(part.prose.replace(/\r\n?/g, '\n'), path).trim() : '';
      const text = [label, prose].filter(Boolean).join(' ');
      if (text) for (const line of text.split('\n')) lines.push(`${'  '.repeat(depth)}${line}`);
      list(part.parts).forEach((child, i) => {
        if (isObject(child) && child.name === 'item') walk(child, text ? depth + 1 : depth, `${path}.parts[${i}]`);
      });
    };
    walk(statement, 0, `${where}.statement`);
    return lines.join('\n');
  };

  const items: (PackageItem & { position: number | null })[] = [];
  let withdrawn = 0;
  let unnamedGroups = 0;
  const kindOf = (node: Json, fallback: ItemKind): ItemKind => {
    const kind = ownProp(node, 'kind');
    return ITEM_KINDS.find((k) => k === kind) ?? fallback;
  };
  const positionOf = (node: Json): number | null => {
    const value = ownProp(node, 'position');
    return value !== undefined && /^\d{1,6}$/.test(value) ? Number(value) : null;
  };
  const titleOf = (node: Json, path: string): string => {
    if (typeof node.title === 'string' && node.title.trim()) return squeeze(node.title);
    problems.push({ field: `${path}.title`, message: 'is required (the item name)' });
    return '';
  };

  const walkControl = (control: unknown, path: string, parentCode: string | null, depth: number) => {
    if (!isObject(control)) {
      problems.push({ field: path, message: 'must be an object' });
      return;
    }
    const isWithdrawn = propsOf(control).some((p) => p.name === 'status' && p.value === 'withdrawn' && p.ns === undefined);
    let code = parentCode;
    if (isWithdrawn) {
      withdrawn += 1;
    } else {
      const id = typeof control.id === 'string' ? control.id : null;
      if (id === null) problems.push({ field: `${path}.id`, message: 'is required (the requirement code)' });
      code = ownProp(control, 'code') ?? id ?? '';
      items.push({
        code, name: titleOf(control, path), description: statementOf(control, path), parentCode,
        kind: kindOf(control, 'requirement'), position: positionOf(control),
      });
    }
    list(control.controls).forEach((child, i) => walkControl(child, `${path}.controls[${i}]`, code, depth + 1));
  };
  const walkGroup = (group: unknown, path: string, parentCode: string | null, depth: number) => {
    if (!isObject(group)) {
      problems.push({ field: path, message: 'must be an object' });
      return;
    }
    const code = ownProp(group, 'code') ?? (typeof group.id === 'string' ? group.id : null) ?? labelOf(group) ?? `group-${++unnamedGroups}`;
    items.push({ code, name: titleOf(group, path), description: statementOf(group, path), parentCode, kind: 'heading', position: positionOf(group) });
    walkContainer(group, path, code, depth);
  };
  const walkContainer = (node: Json, path: string, code: string | null, depth: number) => {
    list(node.controls).forEach((child, i) => walkControl(child, `${path}.controls[${i}]`, code, depth + 1));
    list(node.groups).forEach((child, i) => walkGroup(child, `${path}.groups[${i}]`, code, depth + 1));
  };
  walkContainer(catalog, 'catalog', null, 0);

  // An export of this service says where each item stood; OSCAL itself keeps controls and groups in separate lists.
  if (items.length > 0 && items.every((item) => item.position !== null)) items.sort((a, b) => a.position! - b.position!);
  const blankVersion = ownProp(metadata, 'version') === 'blank';
  const input: PackageInput = {
    name: squeeze(String(metadata.title)),
    standard: ownProp(metadata, 'standard') ?? '',
    version: blankVersion ? '' : typeof metadata.version === 'string' ? metadata.version.trim() : '',
    description: typeof metadata.remarks === 'string' ? metadata.remarks.replace(/\r\n?/g, '\n').trim() : '',
    items: items.map(({ position: _position, ...item }) => item),
  };
  for (const field of ['name', 'standard', 'version'] as const) if (overrides[field]?.trim()) input[field] = overrides[field];
  if (input.items.length === 0 && problems.length === 0) problems.push({ field: 'catalog', message: 'holds no groups or controls to import' });
  return { input, problems: problems.length ? problems : validatePackage(input), withdrawn };
}

/**
 * Imports an OSCAL catalog as a package (the same `importPackage`: one transaction, Audit Log, History). Refused
 * whole, nothing written, with every problem listed; the permission is checked before the file is read.
 */
export async function importOscalCatalog(tx: DbOrTx, actor: Actor, document: string | unknown): Promise<{ id: string }> {
  requirePermission(actor, 'compliance:create');
  const read = typeof document === 'string' ? readOscalText(document) : readOscal(document);
  if (read.problems.length || !read.input) throw packageRefused(read.problems);
  return importPackage(tx, actor, read.input);
}

/* ---- Export ---- */

/** The code itself when it is a valid OSCAL id not yet taken, otherwise an id made from it (letters, digits, . - _). */
function oscalIds(codes: string[]): string[] {
  const taken = new Set(codes.filter((code) => TOKEN.test(code)));
  const used = new Set<string>();
  return codes.map((code) => {
    if (TOKEN.test(code) && !used.has(code)) {
      used.add(code);
      return code;
    }
    let base = code.normalize('NFKD').replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '') || 'item';
    if (!/^(\p{L}|_)/u.test(base)) base = `_${base}`;
    let id = base;
    for (let n = 2; used.has(id) || (id !== code && taken.has(id)); n += 1) id = `${base}-${n}`;
    used.add(id);
    return id;
  });
}

export interface OscalExportSource extends PackageInput {
  updatedAt: string;
}

/** An exported catalog document: `catalog` with its metadata (title = the package name) and groups and controls. */
export interface OscalCatalogDocument { catalog: Json & { metadata: Json & { title: string } } }

interface OscalNode { [key: string]: unknown; controls?: OscalNode[]; groups?: OscalNode[] }

/** The package as an OSCAL 1.1.2 catalog document (`{ catalog }`); see the module comment for the mapping. */
export function packageToOscal(pkg: OscalExportSource): OscalCatalogDocument {
  const items = pkg.items;
  const ids = oscalIds(items.map((item) => item.code));
  const own = (name: string, value: string) => ({ name, ns: OSCAL_NS, value });
  const byCode = new Map(items.map((item) => [item.code, item]));
  // A heading is a group when every heading above it is one: OSCAL nests groups in groups, never in controls.
  const isGroup = new Map<string, boolean>();
  const groupOf = (item: PackageItem): boolean => {
    const known = isGroup.get(item.code);
    if (known !== undefined) return known;
    const parent = item.parentCode ? byCode.get(item.parentCode) : undefined;
    const group = (item.kind || 'requirement') === 'heading' && (parent === undefined || groupOf(parent));
    isGroup.set(item.code, group);
    return group;
  };
  const nodes = items.map((item, position): OscalNode => {
    const kind = item.kind || 'requirement';
    const group = groupOf(item);
    const props = [
      { name: 'label', value: item.code },
      ...(ids[position] === item.code ? [] : [own('code', item.code)]),
      ...(group || kind === 'requirement' ? [] : [own('kind', kind)]),
      own('position', String(position)),
    ];
    const description = item.description ?? '';
    return { id: ids[position], title: item.name, props, ...(description ? { parts: [{ name: 'statement', prose: description }] } : {}) };
  });
  const nodeOf = new Map(items.map((item, position) => [item.code, nodes[position]]));
  const catalog: OscalNode = {};
  items.forEach((item, position) => {
    const container = (item.parentCode ? nodeOf.get(item.parentCode) : undefined) ?? catalog;
    (container[groupOf(item) ? 'groups' : 'controls'] ??= []).push(nodes[position]);
  });
  return {
    catalog: {
      uuid: randomUUID(),
      metadata: {
        title: pkg.name,
        'last-modified': new Date(pkg.updatedAt).toISOString(),
        version: pkg.version?.trim() ? pkg.version : 'unversioned',
        'oscal-version': OSCAL_VERSION,
        ...((pkg.standard ?? '') || !pkg.version?.trim()
          ? { props: [...(pkg.standard ? [own('standard', pkg.standard)] : []), ...(pkg.version?.trim() ? [] : [own('version', 'blank')])] }
          : {}),
        ...(pkg.description ? { remarks: pkg.description } : {}),
      },
      ...(catalog.controls ? { controls: catalog.controls } : {}),
      ...(catalog.groups ? { groups: catalog.groups } : {}),
    },
  };
}

/** A package the actor may read, as an OSCAL catalog document. */
export async function exportOscalCatalog(db: DbOrTx, actor: Actor, id: string): Promise<OscalCatalogDocument> {
  const [pkg, view] = await Promise.all([exportPackage(db, actor, id), getPackage(db, actor, id)]);
  return packageToOscal({ ...pkg, updatedAt: view.updatedAt });
}
