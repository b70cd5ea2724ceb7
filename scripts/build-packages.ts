/**
 * Builds the two shipped compliance packages from the public source files in ../shared/data:
 *   bun run build:packages [-- --data <dir>] [--check]
 * writes src/modules/compliance/packages/nist-800-53-rev5-moderate.json and gdpr.json in the package JSON
 * import/export shape. The output depends only on the source files (no dates, no ids), so running it twice
 * gives byte-identical files; --check compares instead of writing and exits 1 on a difference.
 * Do not hand-edit the generated files: change this script and run it again.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { PackageInput } from '../src/modules/compliance/schema';

type ItemKind = 'requirement' | 'additional' | 'heading';

/** One item as the package JSON carries it: every key, in the order the export writes them, so export equals the file. */
export interface BuiltItem {
  code: string;
  name: string;
  description: string;
  parentCode: string | null;
  kind: ItemKind;
}

export interface BuiltPackage {
  name: string;
  standard: string;
  version: string;
  description: string;
  items: BuiltItem[];
}

export const NIST_SOURCE = 'NIST_SP-800-53_rev5_MODERATE-baseline-resolved-profile_catalog-min.json';
export const GDPR_SOURCE = 'gdpr-consolidated-en.xml';
export const PACKAGES_DIR = resolve(import.meta.dir, '../src/modules/compliance/packages');
export const DEFAULT_DATA_DIR = resolve(import.meta.dir, '../../shared/data');

/** Collapses the source's layout whitespace (indentation, line breaks) to single spaces. */
function squeeze(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------------------
// NIST SP 800-53 rev5 moderate baseline (OSCAL resolved-profile catalog)

interface OscalProp { name: string; value: string }
interface OscalParam {
  id: string;
  label?: string;
  select?: { 'how-many'?: string; choice?: string[] };
}
interface OscalPart { id?: string; name: string; props?: OscalProp[]; prose?: string; parts?: OscalPart[] }
interface OscalControl {
  id: string;
  title: string;
  params?: OscalParam[];
  props?: OscalProp[];
  parts?: OscalPart[];
  controls?: OscalControl[];
}
interface OscalCatalog {
  catalog: {
    metadata: { title: string; version: string };
    groups: { id: string; title: string; controls: OscalControl[] }[];
  };
}

/** ac-2 -> AC-2; ac-2.1 -> AC-2(1), the way SP 800-53 writes control and enhancement identifiers. */
export function nistCode(oscalId: string): string {
  const match = /^([a-z]{2})-(\d+)(?:\.(\d+))?$/.exec(oscalId);
  if (!match) throw new Error(`Unexpected OSCAL control id "${oscalId}"`);
  const [, family, number, enhancement] = match;
  return `${family!.toUpperCase()}-${number}${enhancement ? `(${enhancement})` : ''}`;
}

const INSERT = /\{\{\s*insert:\s*param,\s*([^\s}]+)\s*\}\}/g;

/**
 * Replaces `{{ insert: param, id }}` with the parameter as the publication prints it:
 * "[Assignment: organization-defined <label>]" or "[Selection (one or more): a; b]". Choices can insert
 * parameters themselves, hence the recursion (the catalog has no cycles; depth is bounded anyway).
 */
function resolveParams(prose: string, params: Map<string, OscalParam>, depth = 0): string {
  if (depth > 5) throw new Error(`Parameters nested too deeply in "${prose}"`);
  return prose.replace(INSERT, (_, id: string) => {
    const param = params.get(id);
    if (!param) throw new Error(`Parameter ${id} is inserted but not defined`);
    if (param.select) {
      const choices = (param.select.choice ?? []).map((choice) => squeeze(resolveParams(choice, params, depth + 1)));
      const howMany = param.select['how-many'] === 'one-or-more' ? ' (one or more)' : '';
      return `[Selection${howMany}: ${choices.join('; ')}]`;
    }
    if (param.label === undefined) throw new Error(`Parameter ${id} has neither a label nor a selection`);
    const label = squeeze(param.label);
    return `[Assignment: ${label.startsWith('organization-defined') ? '' : 'organization-defined '}${label}]`;
  });
}

/** The statement part as lines "a. ...", nested items indented two spaces per level. */
function statementText(control: OscalControl, params: Map<string, OscalParam>): string {
  const statement = control.parts?.find((part) => part.name === 'statement');
  if (!statement) throw new Error(`Control ${control.id} has no statement`);
  const lines: string[] = [];
  const walk = (part: OscalPart, depth: number) => {
    const label = part.props?.find((prop) => prop.name === 'label')?.value;
    const prose = part.prose === undefined ? '' : squeeze(resolveParams(part.prose, params));
    const text = [label, prose].filter(Boolean).join(' ');
    if (text) lines.push(`${'  '.repeat(depth)}${text}`);
    for (const child of part.parts ?? []) if (child.name === 'item') walk(child, text ? depth + 1 : depth);
  };
  walk(statement, 0);
  return lines.join('\n');
}

export function buildNistPackage(catalogJson: string): BuiltPackage {
  const { catalog } = JSON.parse(catalogJson) as OscalCatalog;
  // Parameter ids are unique across the catalog; one map lets a choice refer to any of them.
  const params = new Map<string, OscalParam>();
  const collect = (control: OscalControl) => {
    for (const param of control.params ?? []) params.set(param.id, param);
    for (const child of control.controls ?? []) collect(child);
  };
  for (const group of catalog.groups) for (const control of group.controls) collect(control);

  const items: BuiltItem[] = [];
  const addControl = (control: OscalControl, parentCode: string) => {
    items.push({ code: nistCode(control.id), name: squeeze(control.title), description: statementText(control, params), parentCode, kind: 'requirement' });
    for (const enhancement of control.controls ?? []) addControl(enhancement, nistCode(control.id));
  };
  for (const group of catalog.groups) {
    const familyCode = group.id.toUpperCase();
    items.push({ code: familyCode, name: squeeze(group.title), description: '', parentCode: null, kind: 'heading' });
    for (const control of group.controls) addControl(control, familyCode);
  }
  return {
    name: 'NIST SP 800-53 rev5 moderate baseline',
    standard: 'NIST SP 800-53',
    version: catalog.metadata.version,
    description: `${squeeze(catalog.metadata.title)}: the 18 control families as headings and the baseline's controls and control enhancements as requirements (enhancements under their control), each with its statement; parameters are shown as [Assignment: …] and [Selection: …]. Generated by scripts/build-packages.ts from the OSCAL resolved-profile catalog (usnistgov/oscal-content); US government work, public domain.`,
    items,
  };
}

// ---------------------------------------------------------------------------------------------------------
// GDPR (Formex XML). A small reader for the subset the file uses: elements, attributes, text, comments,
// processing instructions (<?PAGE ...?>), the XML declaration, and the predefined and numeric entities.

export interface XmlElement { name: string; attrs: Record<string, string>; children: XmlNode[] }
export type XmlNode = XmlElement | string;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, ref: string) => {
    if (ref.startsWith('#x')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    const known = ENTITIES[ref];
    if (known === undefined) throw new Error(`Unknown XML entity ${whole}`);
    return known;
  });
}

/** Parses a whole XML document into its root element; throws on mismatched tags or unsupported constructs. */
export function parseXml(source: string): XmlElement {
  const root: XmlElement = { name: '#document', attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  let at = 0;
  const fail = (message: string): never => {
    const line = source.slice(0, at).split('\n').length;
    throw new Error(`XML line ${line}: ${message}`);
  };
  while (at < source.length) {
    const open = source.indexOf('<', at);
    const current = stack[stack.length - 1]!;
    if (open === -1 || open > at) {
      const text = source.slice(at, open === -1 ? source.length : open);
      if (text) current.children.push(decodeEntities(text));
      if (open === -1) break;
      at = open;
      continue;
    }
    if (source.startsWith('<?', at)) {
      const end = source.indexOf('?>', at);
      if (end === -1) fail('unterminated processing instruction');
      at = end + 2;
    } else if (source.startsWith('<!--', at)) {
      const end = source.indexOf('-->', at);
      if (end === -1) fail('unterminated comment');
      at = end + 3;
    } else if (source.startsWith('<![CDATA[', at)) {
      const end = source.indexOf(']]>', at);
      if (end === -1) fail('unterminated CDATA section');
      current.children.push(source.slice(at + 9, end));
      at = end + 3;
    } else if (source.startsWith('<!', at)) {
      fail('DOCTYPE and other declarations are not supported');
    } else if (source.startsWith('</', at)) {
      const end = source.indexOf('>', at);
      if (end === -1) fail('unterminated end tag');
      const name = source.slice(at + 2, end).trim();
      if (stack.length === 1 || current.name !== name) fail(`</${name}> does not close <${current.name}>`);
      stack.pop();
      at = end + 1;
    } else {
      const tag = /^<([A-Za-z_][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/.exec(source.slice(at, at + 2000));
      if (!tag) fail('malformed start tag');
      const [whole, name, attrText, selfClosing] = tag!;
      const attrs: Record<string, string> = {};
      for (const attr of attrText!.matchAll(/([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
        attrs[attr[1]!] = decodeEntities(attr[2] ?? attr[3] ?? '');
      }
      const element: XmlElement = { name: name!, attrs, children: [] };
      current.children.push(element);
      if (!selfClosing) stack.push(element);
      at += whole.length;
    }
  }
  if (stack.length !== 1) fail(`<${stack[stack.length - 1]!.name}> is never closed`);
  const top = root.children.filter((child): child is XmlElement => typeof child !== 'string');
  if (top.length !== 1) throw new Error(`Expected one root element, found ${top.length}`);
  return top[0]!;
}

function childElements(element: XmlElement, name?: string): XmlElement[] {
  return element.children.filter((child): child is XmlElement => typeof child !== 'string' && (name === undefined || child.name === name));
}

function onlyChild(element: XmlElement, name: string): XmlElement {
  const found = childElements(element, name);
  if (found.length !== 1) throw new Error(`<${element.name}> has ${found.length} <${name}> elements, expected 1`);
  return found[0]!;
}

/** Elements that start a new line of text: paragraphs, their sub-paragraphs and list items. */
const BLOCKS = new Set(['PARAG', 'ALINEA', 'P', 'LIST', 'ITEM', 'NP', 'TXT']);
/** Numbers ("1.", "(a)") stay on the line of the text they number. */
const NUMBERS = new Set(['NO.PARAG', 'NO.P']);

/**
 * The readable text of an element: one line per paragraph or list item, numbers kept in front of their
 * text, quotation marks restored, footnotes (NOTE) left out since they cite the Official Journal.
 */
export function formexText(element: XmlElement): string {
  let out = '';
  let glued = false; // just wrote a number: the next block continues this line
  const breakLine = () => {
    if (!glued) out += '\n';
  };
  const walk = (node: XmlNode) => {
    if (typeof node === 'string') {
      out += node.replace(/\s+/g, ' ');
      if (node.trim()) glued = false;
      return;
    }
    if (node.name === 'NOTE') return;
    if (node.name === 'QUOT.START') { out += '‘'; glued = false; return; }
    if (node.name === 'QUOT.END') { out += '’'; glued = false; return; }
    const block = BLOCKS.has(node.name);
    if (block) breakLine();
    for (const child of node.children) walk(child);
    if (NUMBERS.has(node.name)) {
      out += ' ';
      glued = true;
    } else if (block) {
      breakLine();
    }
  };
  for (const child of element.children) walk(child);
  return out.split('\n').map(squeeze).filter(Boolean).join('\n');
}

/** Articles 5–11, 12–22, 24–39 and 44–49 oblige a controller or processor; the rest are listed as additional. */
export function gdprArticleKind(article: number): ItemKind {
  const ranges: [number, number][] = [[5, 11], [12, 22], [24, 39], [44, 49]];
  return ranges.some(([from, to]) => article >= from && article <= to) ? 'requirement' : 'additional';
}

export function buildGdprPackage(xml: string): BuiltPackage {
  const act = parseXml(xml);
  const info = onlyChild(act, 'INFO.CONSLEG');
  const consolidated = info.attrs['CONSLEG.DATE'] ?? '';
  if (!/^\d{8}$/.test(consolidated)) throw new Error(`Unexpected CONSLEG.DATE "${consolidated}"`);
  const terms = onlyChild(onlyChild(act, 'CONS.DOC'), 'ENACTING.TERMS');
  const items: BuiltItem[] = [];
  for (const chapter of childElements(terms)) {
    if (chapter.name !== 'DIVISION') throw new Error(`Unexpected <${chapter.name}> among the chapters`);
    const title = onlyChild(chapter, 'TITLE');
    const heading = formexText(onlyChild(title, 'TI'));
    const numeral = /^CHAPTER ([IVXLC]+)$/i.exec(heading);
    if (!numeral) throw new Error(`Unexpected chapter title "${heading}"`);
    const chapterCode = `Chapter ${numeral[1]!.toUpperCase()}`;
    items.push({ code: chapterCode, name: formexText(onlyChild(title, 'STI')), description: '', parentCode: null, kind: 'heading' });
    // Sections (nested DIVISIONs) are not items: their articles sit directly under the chapter.
    const articles: XmlElement[] = [];
    const gather = (division: XmlElement) => {
      for (const child of childElements(division)) {
        if (child.name === 'ARTICLE') articles.push(child);
        else if (child.name === 'DIVISION') gather(child);
        else if (child.name !== 'TITLE') throw new Error(`Unexpected <${child.name}> in ${chapterCode}`);
      }
    };
    gather(chapter);
    for (const article of articles) {
      const label = formexText(onlyChild(article, 'TI.ART'));
      const number = /^Article (\d+)$/.exec(label);
      if (!number) throw new Error(`Unexpected article title "${label}"`);
      const body: XmlElement = { name: 'ARTICLE', attrs: {}, children: article.children.filter((c) => typeof c === 'string' || (c.name !== 'TI.ART' && c.name !== 'STI.ART')) };
      items.push({
        code: `Art. ${number[1]}`,
        name: formexText(onlyChild(article, 'STI.ART')),
        description: formexText(body),
        parentCode: chapterCode,
        kind: gdprArticleKind(Number(number[1])),
      });
    }
  }
  const date = `${consolidated.slice(0, 4)}-${consolidated.slice(4, 6)}-${consolidated.slice(6, 8)}`;
  return {
    name: 'GDPR',
    standard: 'Regulation (EU) 2016/679',
    version: `consolidated ${date}`,
    description: 'General Data Protection Regulation, consolidated English text with the 2018 corrigendum: the 11 chapters as headings and the 99 articles with their text. Articles 5–11, 12–22, 24–39 and 44–49 are requirements (obligations of controllers and processors); the other 59 are listed as additional. Generated by scripts/build-packages.ts from the Formex XML published by the EU Publications Office; © European Union, reuse authorised.',
    items,
  };
}

// ---------------------------------------------------------------------------------------------------------

/** The files this script writes, by file name. */
export function buildAll(dataDir: string): Record<string, string> {
  // Typed as the import shape, so a generated file that the service would not accept fails to compile.
  const render = (pkg: PackageInput) => `${JSON.stringify(pkg, null, 2)}\n`;
  return {
    'nist-800-53-rev5-moderate.json': render(buildNistPackage(readFileSync(join(dataDir, NIST_SOURCE), 'utf8'))),
    'gdpr.json': render(buildGdprPackage(readFileSync(join(dataDir, GDPR_SOURCE), 'utf8'))),
  };
}

function main(argv: string[]): number {
  const { values } = parseArgs({
    args: argv[0] === '--' ? argv.slice(1) : argv,
    options: { data: { type: 'string' }, check: { type: 'boolean' } },
    strict: true,
  });
  const dataDir = resolve(values.data ?? DEFAULT_DATA_DIR);
  for (const source of [NIST_SOURCE, GDPR_SOURCE]) {
    if (!existsSync(join(dataDir, source))) {
      console.error(`Missing ${join(dataDir, source)}; pass --data <dir holding the source files>`);
      return 2;
    }
  }
  let differences = 0;
  for (const [file, text] of Object.entries(buildAll(dataDir))) {
    const target = join(PACKAGES_DIR, file);
    if (values.check) {
      const same = existsSync(target) && readFileSync(target, 'utf8') === text;
      if (!same) differences += 1;
      console.log(`${same ? 'up to date' : 'DIFFERS'}: ${target}`);
    } else {
      writeFileSync(target, text);
      console.log(`wrote ${target}`);
    }
  }
  return differences ? 1 : 0;
}

if (import.meta.main) process.exit(main(process.argv.slice(2)));
