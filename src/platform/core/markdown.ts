/**
 * A small Markdown renderer that is safe by construction: every piece of the source is HTML-escaped, and the only
 * tags in the output are the ones this file writes (h1-h6, p, ul, ol, li, strong, em, code, pre, a, br). Raw HTML in
 * the source is shown as text; links are kept only for http, https and mailto addresses.
 *
 * Supported: ATX headings (# to ######), paragraphs, **strong**, *emphasis* and _emphasis_, `code`, fenced code
 * blocks (```), lists with -, * or + and numbered lists (1.), [links](https://example.com), and a line ending with
 * two spaces or a backslash as a line break. Anything else renders as escaped text.
 */

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

const SAFE_PROTOCOLS = new Set(['http:', 'https:', 'mailto:']);

/** The address to link to, or null when it is not an absolute http, https or mailto address. */
export function safeHref(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  return SAFE_PROTOCOLS.has(url.protocol) ? url.href : null;
}

/** Emphasis on text that is already escaped: the markers survive escaping and the enclosed text cannot hold a tag. */
function emphasis(escaped: string): string {
  return escaped
    .replace(/\*\*(?=\S)(.+?)(?<=\S)\*\*/g, '<strong>$1</strong>')
    .replace(/__(?=\S)(.+?)(?<=\S)__/g, '<strong>$1</strong>')
    .replace(/\*(?=\S)(.+?)(?<=\S)\*/g, '<em>$1</em>')
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, '$1<em>$2</em>');
}

const LINK = /\[([^\]\n]+)\]\(([^()\s]+)\)/g;

/** Links, emphasis and line breaks in text outside code spans. */
function textInline(raw: string): string {
  let out = '';
  let last = 0;
  for (const match of raw.matchAll(LINK)) {
    out += emphasis(escapeHtml(raw.slice(last, match.index)));
    const href = safeHref(match[2]);
    out += href
      ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow">${emphasis(escapeHtml(match[1]))}</a>`
      : emphasis(escapeHtml(match[0]));
    last = match.index + match[0].length;
  }
  out += emphasis(escapeHtml(raw.slice(last)));
  return out.replace(/(?: {2,}|\\)\n/g, '<br>\n');
}

/** One block's inline content: `code` spans are taken out first, so nothing inside them is interpreted. */
export function renderInline(raw: string): string {
  return raw.split(/(`[^`\n]+`)/).map((part, i) =>
    i % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : textInline(part),
  ).join('');
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}\d{1,9}[.)]\s+(.*)$/;
const FENCE = /^\s{0,3}```/;

/** Renders Markdown to HTML that contains no tag, attribute or URL scheme the source could choose. */
export function renderMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  const html: string[] = [];
  let paragraph: string[] = [];
  type List = { tag: 'ul' | 'ol'; items: string[] };
  // Typed by cast: the flush closures reset it, which TypeScript's narrowing does not see.
  let list = null as List | null;

  const flushParagraph = () => {
    if (paragraph.length) html.push(`<p>${renderInline(paragraph.join('\n'))}</p>`);
    paragraph = [];
  };
  const flushList = () => {
    if (list) html.push(`<${list.tag}>${list.items.map((item) => `<li>${renderInline(item)}</li>`).join('')}</${list.tag}>`);
    list = null;
  };

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (FENCE.test(line)) {
      flushParagraph();
      flushList();
      const code: string[] = [];
      while (++i < lines.length && !FENCE.test(lines[i])) code.push(lines[i]);
      html.push(`<pre><code>${escapeHtml(code.join('\n'))}</code></pre>`);
      continue;
    }
    if (!line.trim()) {
      flushParagraph();
      flushList();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flushParagraph();
      flushList();
      const level = heading[1].length;
      html.push(`<h${level}>${renderInline(heading[2])}</h${level}>`);
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flushParagraph();
      const tag = bullet ? 'ul' : 'ol';
      if (list?.tag !== tag) flushList();
      list ??= { tag, items: [] };
      list.items.push((bullet ?? numbered)![1]);
      continue;
    }
    if (list && /^\s+\S/.test(line)) {
      // An indented line continues the list item above it.
      list.items[list.items.length - 1] += `\n${line.trim()}`;
      continue;
    }
    flushList();
    paragraph.push(line);
  }
  flushParagraph();
  flushList();
  return html.join('\n');
}
