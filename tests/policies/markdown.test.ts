import { describe, expect, test } from 'bun:test';
import { renderMarkdown, safeHref } from '../../src/platform/core/markdown';

/** Every tag the renderer may write; anything else in the output would be markup chosen by the author. */
const ALLOWED_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'p', 'ul', 'ol', 'li', 'strong', 'em', 'code', 'pre', 'a', 'br']);
const tagsIn = (html: string) => [...html.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((m) => m[1].toLowerCase());
const attributesIn = (html: string) => [...html.matchAll(/<[a-z0-9]+((?:\s+[^>]*)?)>/g)].map((m) => m[1].trim()).filter(Boolean);

describe('Markdown rendering', () => {
  test('headings, paragraphs, emphasis, lists, code and links become their HTML', () => {
    const html = renderMarkdown([
      '# Acceptable use',
      '',
      'Staff **must** lock screens and *should* use `pass phrases`.',
      'Second line of the same paragraph.',
      '',
      '- one',
      '- two with [the intranet](https://intranet.example/policies?a=1&b=2)',
      '',
      '1. first',
      '2. second',
      '',
      '```',
      'if (a < b) { run(); }',
      '```',
      '',
      'Write to [security](mailto:security@example.com).',
    ].join('\n'));
    expect(html).toContain('<h1>Acceptable use</h1>');
    expect(html).toContain('<p>Staff <strong>must</strong> lock screens and <em>should</em> use <code>pass phrases</code>.\nSecond line of the same paragraph.</p>');
    expect(html).toContain('<ul><li>one</li><li>two with <a href="https://intranet.example/policies?a=1&amp;b=2" rel="noopener noreferrer nofollow">the intranet</a></li></ul>');
    expect(html).toContain('<ol><li>first</li><li>second</li></ol>');
    expect(html).toContain('<pre><code>if (a &lt; b) { run(); }</code></pre>');
    expect(html).toContain('<a href="mailto:security@example.com" rel="noopener noreferrer nofollow">security</a>');
  });

  test('raw HTML is shown as text, never passed through', () => {
    const html = renderMarkdown('Hello <script>alert(1)</script> and <img src=x onerror=alert(1)> and <a href="javascript:alert(1)">x</a>');
    expect(html).toBe('<p>Hello &lt;script&gt;alert(1)&lt;/script&gt; and &lt;img src=x onerror=alert(1)&gt; and &lt;a href=&quot;javascript:alert(1)&quot;&gt;x&lt;/a&gt;</p>');
  });

  const attacks = [
    '<script>alert(document.cookie)</script>',
    '<img src=x onerror="alert(1)">',
    '<svg/onload=alert(1)>',
    '[click](javascript:alert(1))',
    '[click](JaVaScRiPt:alert(1))',
    '[click](java\tscript:alert(1))',
    '[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '[click](vbscript:msgbox(1))',
    '[x" onmouseover="alert(1)](https://example.com)',
    '[x](https://example.com/"onmouseover="alert(1))',
    '**<b onclick=alert(1)>bold</b>**',
    '# <iframe src="https://evil.example"></iframe>',
    '- <style>body{display:none}</style>',
    '`</code><script>alert(1)</script>`',
    '```\n</code></pre><script>alert(1)</script>\n```',
    '<a href="https://ok.example" onclick="alert(1)">x</a>',
    '&lt;script&gt;alert(1)&lt;/script&gt;',
  ];

  for (const attack of attacks) {
    test(`neutralises ${JSON.stringify(attack)}`, () => {
      const html = renderMarkdown(attack);
      for (const tag of tagsIn(html)) expect(ALLOWED_TAGS.has(tag), `tag <${tag}> in ${html}`).toBe(true);
      for (const attributes of attributesIn(html)) {
        expect(attributes, html).toMatch(/^href="(https?:|mailto:)[^"]*" rel="noopener noreferrer nofollow"$/);
      }
      expect(html).not.toMatch(/href="\s*(javascript|data|vbscript):/i);
      expect(html).not.toMatch(/<[^>]*\son\w+=/i);
    });
  }

  test('only absolute http, https and mailto addresses are links', () => {
    expect(safeHref('https://example.com/a')).toBe('https://example.com/a');
    expect(safeHref('mailto:a@example.com')).toBe('mailto:a@example.com');
    expect(safeHref('javascript:alert(1)')).toBeNull();
    expect(safeHref('/relative/path')).toBeNull();
    expect(safeHref('ftp://example.com')).toBeNull();
    expect(renderMarkdown('[home](/home)')).toBe('<p>[home](/home)</p>');
  });
});
