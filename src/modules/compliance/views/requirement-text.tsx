/**
 * A requirement's text as the framework writes it: paragraphs, and lists whose items keep their own labels ("a.",
 * "1.", "(a)") nested as the text nests them. Frameworks mark the levels differently: NIST indents "1." under "a."
 * and "(a)" under "1."; the GDPR writes "(a)" under "2." without indenting. So a level is the order in which a label
 * style first appears in the text (the first style met is the outermost); a line that is not a list item continues
 * the item above it, or else the paragraph.
 * Plain text in, escaped HTML out; nothing in the text is read as markup.
 */

type Style = 'alpha.' | 'num.' | '(alpha)' | '(num)' | 'bullet';

interface ListLine {
  label: string;
  style: Style;
  text: string;
}

const LIST_LINE = /^(\s*)([a-z]{1,2}\.|\d{1,3}\.|\([a-z]{1,4}\)|\(\d{1,3}\)|[-*•])\s+(.*)$/;

function styleOf(label: string): Style {
  if (/^[-*•]$/.test(label)) return 'bullet';
  if (label.startsWith('(')) return /\d/.test(label) ? '(num)' : '(alpha)';
  return /\d/.test(label) ? 'num.' : 'alpha.';
}

function listLine(line: string): ListLine | null {
  const m = LIST_LINE.exec(line);
  if (!m) return null;
  return { label: m[2], style: styleOf(m[2]), text: m[3] };
}

interface Item {
  label: string;
  text: string;
  children: Item[];
}

type Block = { kind: 'p'; text: string } | { kind: 'list'; items: Item[] };

/** Splits the text into paragraphs and nested lists. */
export function parseRequirementText(text: string): Block[] {
  const blocks: Block[] = [];
  const styles: Style[] = [];
  // The open list items, outermost first, with the level each sits at.
  let stack: { level: number; item: Item }[] = [];
  let list: Item[] | null = null;
  let paragraph: string[] = [];
  const endParagraph = () => {
    if (paragraph.length) blocks.push({ kind: 'p', text: paragraph.join('\n') });
    paragraph = [];
  };
  const endList = () => {
    list = null;
    stack = [];
  };
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trimEnd();
    if (!line.trim()) {
      endParagraph();
      endList();
      continue;
    }
    const li = listLine(line);
    if (!li) {
      if (stack.length) stack[stack.length - 1].item.text += ` ${line.trim()}`;
      else paragraph.push(line.trim());
      continue;
    }
    endParagraph();
    if (!styles.includes(li.style)) styles.push(li.style);
    const level = styles.indexOf(li.style);
    while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
    const item: Item = { label: li.label, text: li.text, children: [] };
    if (stack.length) stack[stack.length - 1].item.children.push(item);
    else {
      if (!list) {
        list = [];
        blocks.push({ kind: 'list', items: list });
      }
      list.push(item);
    }
    stack.push({ level, item });
  }
  endParagraph();
  return blocks;
}

function List({ items }: { items: Item[] }): JSX.Element {
  return (
    <ul class="req-list">
      {items.map((item) => (
        <li><span class="req-label" safe>{item.label}</span> <span safe>{item.text}</span>{item.children.length > 0 && <List items={item.children} />}</li>
      ))}
    </ul>
  );
}

export function RequirementText({ text, empty = '—' }: { text: string; empty?: string }): JSX.Element {
  const blocks = parseRequirementText(text);
  if (blocks.length === 0) return <span class="muted" safe>{empty}</span>;
  return (
    <div class="req-text">
      {blocks.map((block) => (block.kind === 'p' ? <p class="prewrap" safe>{block.text}</p> : <List items={block.items} />))}
    </div>
  );
}
