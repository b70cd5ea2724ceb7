/**
 * An uploaded SVG logo made safe to serve: rebuilt from a whitelist of drawing elements and attributes, so scripts,
 * event handlers (`on…`), `foreignObject`, styles (which may load `url(…)`), and references outside the document
 * (`href` other than `#…`, `url(…)` other than `url(#…)`) are left out. A DOCTYPE or entity declaration is refused
 * outright (entity expansion). Answers the cleaned document and what was removed, in words.
 */

const ELEMENTS = new Set([
  'svg', 'g', 'path', 'rect', 'circle', 'ellipse', 'line', 'polyline', 'polygon', 'text', 'tspan', 'defs', 'lineargradient',
  'radialgradient', 'stop', 'title', 'desc', 'use', 'clippath', 'mask', 'symbol', 'pattern',
]);

const NAME = /^[a-zA-Z_][-a-zA-Z0-9_.:]*$/;
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

const decode = (value: string) => value.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, e: string) => {
  if (e[0] === '#') {
    const code = e[1] === 'x' || e[1] === 'X' ? Number.parseInt(e.slice(2), 16) : Number.parseInt(e.slice(1), 10);
    return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : '';
  }
  return ENTITIES[e.toLowerCase()] ?? whole;
});
const escapeAttr = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export class SvgRefused extends Error {}

export interface CleanSvg {
  svg: string;
  removed: string[];
}

function cleanAttributes(tag: string, raw: string, removed: Set<string>): string {
  const out: string[] = [];
  for (const m of raw.matchAll(/([^\s=/>]+)(?:\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+))?/g)) {
    const name = m[1];
    const quoted = m[2] ?? '';
    const value = decode(quoted.replace(/^["']|["']$/g, ''));
    const lower = name.toLowerCase();
    const compact = value.replace(/[\s\u0000-\u001f]+/g, '').toLowerCase();
    if (!NAME.test(name)) { removed.add('a malformed attribute'); continue; }
    if (lower.startsWith('on')) { removed.add(`event handlers (${lower})`); continue; }
    if (lower === 'style' || lower.endsWith(':style')) { removed.add('style attributes'); continue; }
    if ((lower === 'href' || lower.endsWith(':href') || lower === 'src') && !value.trim().startsWith('#')) { removed.add(`references outside the logo (${lower} on ${tag})`); continue; }
    if (compact.includes('javascript:') || compact.includes('data:') || (compact.includes('url(') && !/^url\(#[^)]*\)$/.test(compact))) {
      removed.add(`references outside the logo (${lower} on ${tag})`); continue;
    }
    out.push(` ${name}="${escapeAttr(value)}"`);
  }
  return out.join('');
}

export function sanitiseSvg(text: string): CleanSvg {
  if (/<!DOCTYPE|<!ENTITY/i.test(text)) throw new SvgRefused('an SVG with a DOCTYPE or entity declarations is refused');
  const removed = new Set<string>();
  const out: string[] = [];
  let skipping = 0;
  let sawSvg = false;
  const tokens = text.matchAll(/<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<\?[\s\S]*?\?>|<\/\s*([^\s>]+)\s*>|<([^\s/>!?]+)((?:\s+[^\s=/>]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'>]+))?)*)\s*(\/?)>|<|[^<]+/g);
  for (const t of tokens) {
    const [whole, closing, opening, attrs, selfClosing] = t;
    if (whole.startsWith('<!--') || whole.startsWith('<?')) continue;
    if (whole.startsWith('<![CDATA[')) { removed.add('CDATA sections'); continue; }
    if (closing !== undefined) {
      const name = closing.toLowerCase().replace(/^svg:/, '');
      if (skipping > 0) { skipping -= 1; continue; }
      if (ELEMENTS.has(name)) out.push(`</${closing}>`);
      continue;
    }
    if (opening !== undefined) {
      const name = opening.toLowerCase().replace(/^svg:/, '');
      if (skipping > 0 || !ELEMENTS.has(name)) {
        if (skipping === 0) removed.add(name === 'script' ? 'scripts' : name === 'foreignobject' ? 'foreignObject' : `<${opening}> elements`);
        if (!selfClosing) skipping += 1;
        continue;
      }
      if (name === 'svg') sawSvg = true;
      out.push(`<${opening}${cleanAttributes(opening, attrs ?? '', removed)}${selfClosing ? '/' : ''}>`);
      continue;
    }
    if (whole === '<') throw new SvgRefused('the file is not well-formed SVG');
    if (skipping === 0) out.push(whole);
  }
  if (!sawSvg) throw new SvgRefused('the file holds no <svg> element');
  return { svg: out.join('').trim(), removed: [...removed] };
}
