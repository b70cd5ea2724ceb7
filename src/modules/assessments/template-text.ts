import type { StoredAssessmentQuestion, StoredChoice, StoredSection } from '../../../db/schema';
import type { FieldProblem } from '../../platform/core/errors';
import { KIND_LABELS, QUESTION_KINDS } from './schema';

/**
 * A template's sections written as plain text on its screen, so a person writes a questionnaire without JavaScript or
 * JSON, every kind of question, scores and conditions included:
 *
 *   Section: Access and data
 *   What we ask about how our data is protected.
 *
 *   Question mfa (yes or no, required, weight 3)
 *   Is multi-factor authentication required for every staff access?
 *   Hint: Including administrators and support staff.
 *   - yes: Yes = 100%
 *   - no: No = 0%
 *
 *   Question mfaScope (text, required, when mfa is yes)
 *   Which systems does it cover?
 *
 * "Section:" starts a section (the lines after it, before its first question, describe it). "Question" starts a
 * question: its short name (what answers and conditions point at; made up when left out) and, in brackets, its kind
 * and what else applies: required or optional, weight N, when <short name> is <answer>. The lines after it are its
 * text, then an optional "Hint:" line, then its choices: "- value: Label = N%" (the value may be left out: it is made
 * from the label). A yes-or-no question written without choices gets Yes = 100% and No = 0%.
 */

const SECTION = /^section:\s*(.*)$/i;
const QUESTION = /^question(?:\s+([^\s()]+))?\s*\(([^()]*)\)\s*:?\s*$/i;
const LOOKS_LIKE_QUESTION = /^question\b.*\(/i;
const HINT = /^hint:\s*(.*)$/i;
const CHOICE = /^\s*[-*]\s+(.*)$/;
const CHOICE_SCORE = /\s*=\s*(\d{1,3})\s*%?\s*$/;
const CHOICE_VALUE = /^([A-Za-z0-9_-]{1,64}):\s+(.+)$/;
const KEY = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const KIND_WORDS = new Map<string, StoredAssessmentQuestion['kind']>([
  ...QUESTION_KINDS.map((k) => [k, k] as const),
  ...QUESTION_KINDS.map((k) => [KIND_LABELS[k].toLowerCase(), k] as const),
  ['yes/no', 'yesno'], ['one', 'single'], ['single choice', 'single'], ['several', 'multiple'], ['multiple choice', 'multiple'], ['file upload', 'file'],
]);
const CHOICE_KINDS = new Set(['yesno', 'single', 'multiple']);

interface DraftQuestion {
  line: number;
  key: string | null;
  kind: StoredAssessmentQuestion['kind'] | null;
  required: boolean;
  weight: number;
  when: { question: string; equals: string; line: number } | null;
  text: string[];
  hint: string | null;
  choices: (StoredChoice & { line: number })[];
}
interface DraftSection { line: number; title: string; description: string[]; questions: DraftQuestion[] }

/** Where a question was written, to name it in a problem: `sections.<s>.questions.<q>` → its line. */
export interface TemplateLines { sections: number[]; questions: number[][] }

const problem = (line: number, message: string): FieldProblem => ({ field: 'sections', message: `line ${line}: ${message}` });
const slug = (label: string) => label.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64);

function readAttributes(q: DraftQuestion, text: string, line: number, problems: FieldProblem[]) {
  for (const raw of text.split(',')) {
    const word = raw.trim().replace(/\s+/g, ' ');
    const lower = word.toLowerCase();
    if (!word) continue;
    const kind = KIND_WORDS.get(lower);
    const weight = /^weight\s+(\d{1,3})$/i.exec(word);
    const when = /^(?:when|if|shown when)\s+(\S+)\s+(?:is|=|equals)\s+(.+)$/i.exec(word);
    if (kind) {
      if (q.kind && q.kind !== kind) problems.push(problem(line, `a question has one kind; it says both ${KIND_LABELS[q.kind].toLowerCase()} and ${KIND_LABELS[kind].toLowerCase()}`));
      q.kind = kind;
    } else if (lower === 'required') q.required = true;
    else if (lower === 'optional') q.required = false;
    else if (weight) {
      if (Number(weight[1]) > 100) problems.push(problem(line, `a weight is a whole number from 0 to 100, not ${weight[1]}`));
      q.weight = Number(weight[1]);
    } else if (when) q.when = { question: when[1], equals: when[2].trim(), line };
    else problems.push(problem(line, `"${word}" is not understood: write the kind (${QUESTION_KINDS.map((k) => KIND_LABELS[k].toLowerCase()).join(', ')}), required or optional, weight N, or when <short name> is <answer>`));
  }
  if (!q.kind) problems.push(problem(line, 'say the question\'s kind in its brackets, such as (yes or no, required, weight 2)'));
}

/**
 * Reads the text into sections, or answers every problem found (by line), never a partial template. `lines` tells
 * where each question was written, so the service's problems (`sections.0.questions.2`) can be named by line too.
 */
export function parseTemplateText(text: string): { sections: StoredSection[]; problems: FieldProblem[]; lines: TemplateLines } {
  const sections: DraftSection[] = [];
  const problems: FieldProblem[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    const section = sections.at(-1);
    const question = section?.questions.at(-1);
    const sectionMatch = SECTION.exec(trimmed);
    if (sectionMatch) {
      if (!sectionMatch[1].trim()) problems.push(problem(line, 'a section needs a title after "Section:"'));
      sections.push({ line, title: sectionMatch[1].trim(), description: [], questions: [] });
      return;
    }
    const questionMatch = QUESTION.exec(trimmed);
    if (questionMatch) {
      if (!section) return problems.push(problem(line, 'a question comes before any section: start with a line "Section: <title>"'));
      const q: DraftQuestion = { line, key: questionMatch[1] ?? null, kind: null, required: false, weight: 0, when: null, text: [], hint: null, choices: [] };
      if (q.key !== null && !KEY.test(q.key)) problems.push(problem(line, `the short name "${q.key}" must start with a letter and hold only letters, digits, - and _ (at most 64)`));
      readAttributes(q, questionMatch[2], line, problems);
      section.questions.push(q);
      return;
    }
    if (LOOKS_LIKE_QUESTION.test(trimmed) && !question?.text.length) {
      return problems.push(problem(line, 'a question starts with "Question <short name> (<kind>, …)" on a line of its own'));
    }
    if (!trimmed) {
      // A blank line inside a question's text keeps the paragraph; blank lines elsewhere only separate.
      if (question && question.text.length && !question.hint && !question.choices.length) question.text.push('');
      return;
    }
    if (!section) return problems.push(problem(line, 'the text starts with a line "Section: <title>"'));
    if (!question) {
      section.description.push(trimmed);
      return;
    }
    const hint = HINT.exec(trimmed);
    const choice = CHOICE.exec(raw);
    if (choice) {
      let body = choice[1].trim();
      const score = CHOICE_SCORE.exec(body);
      if (score) body = body.slice(0, score.index).trim();
      const valued = CHOICE_VALUE.exec(body);
      const label = (valued ? valued[2] : body).trim();
      const value = valued ? valued[1] : slug(label);
      if (!label) return problems.push(problem(line, 'the choice has no label'));
      if (!value) return problems.push(problem(line, `the choice "${label}" needs a value of letters and digits: write "- value: ${label}"`));
      if (score && Number(score[1]) > 100) problems.push(problem(line, `a choice earns 0 to 100 % of the question's weight, not ${score[1]}`));
      question.choices.push({ value, label, score: score ? Number(score[1]) : 0, line });
      return;
    }
    if (hint) {
      if (question.choices.length) return problems.push(problem(line, 'the hint comes before the choices'));
      question.hint = [question.hint, hint[1].trim()].filter(Boolean).join(' ');
      return;
    }
    if (question.choices.length || question.hint !== null) {
      return problems.push(problem(line, 'the question\'s text comes right after its "Question" line, before its hint and choices; a choice starts with "- "'));
    }
    question.text.push(trimmed);
  });
  if (!sections.length) problems.push({ field: 'sections', message: 'write at least one section: a line "Section: <title>", then its questions' });

  // Short names: the ones written, then made up for the others (q1, q2, … by position, skipping names in use).
  const used = new Set(sections.flatMap((s) => s.questions.flatMap((q) => (q.key ? [q.key] : []))));
  let n = 0;
  const freeKey = () => {
    let key: string;
    do key = `q${++n}`; while (used.has(key));
    used.add(key);
    return key;
  };
  const lines: TemplateLines = { sections: sections.map((s) => s.line), questions: sections.map((s) => s.questions.map((q) => q.line)) };
  const built: StoredSection[] = sections.map((s) => {
    if (!s.questions.length) problems.push(problem(s.line, `the section "${s.title}" has no question: each question starts with "Question <short name> (<kind>, …)"`));
    const questions = s.questions.map((q): StoredAssessmentQuestion => {
      const kind = q.kind ?? 'text';
      const textOf = q.text.join('\n').trim();
      if (!textOf) problems.push(problem(q.line, 'the question has no text: write it on the lines after "Question …"'));
      const choices = q.choices.length === 0 && kind === 'yesno'
        ? [{ value: 'yes', label: 'Yes', score: 100 }, { value: 'no', label: 'No', score: 0 }]
        : q.choices.map(({ value, label, score }) => ({ value, label, score }));
      if (CHOICE_KINDS.has(kind) && choices.length === 1) problems.push(problem(q.line, 'a question with choices needs at least two'));
      const out: StoredAssessmentQuestion = { key: q.key ?? freeKey(), text: textOf, kind, required: q.required, weight: q.weight };
      if (q.hint) out.hint = q.hint;
      if (choices.length) out.choices = choices;
      if (q.when) out.showWhen = { question: q.when.question, equals: q.when.equals };
      return out;
    });
    return { title: s.title, ...(s.description.length ? { description: s.description.join('\n') } : {}), questions };
  });

  // A condition may name the earlier question's answer by its label ("when hosting is In the EEA"): stored as its value.
  const byKey = new Map(built.flatMap((s) => s.questions).map((q) => [q.key, q]));
  for (const q of built.flatMap((s) => s.questions)) {
    const earlier = q.showWhen ? byKey.get(q.showWhen.question) : undefined;
    const equals = q.showWhen?.equals;
    if (earlier?.choices && equals !== undefined && !earlier.choices.some((c) => c.value === equals)) {
      const byLabel = earlier.choices.find((c) => c.label.toLowerCase() === equals.toLowerCase());
      if (byLabel) q.showWhen = { question: earlier.key, equals: byLabel.value };
    }
  }
  return problems.length ? { sections: [], problems, lines } : { sections: built, problems: [], lines };
}

/** A problem of the service or the schema (`sections.1.questions.0.text`) named by where it was written. */
export function placeOf(field: string, lines: TemplateLines): string {
  const q = /^sections\.(\d+)\.questions\.(\d+)/.exec(field);
  if (q) {
    const line = lines.questions[Number(q[1])]?.[Number(q[2])];
    if (line) return `line ${line} (question ${Number(q[1]) + 1}.${Number(q[2]) + 1})`;
  }
  const s = /^sections\.(\d+)/.exec(field);
  if (s && lines.sections[Number(s[1])]) return `line ${lines.sections[Number(s[1])]} (section ${Number(s[1]) + 1})`;
  return field === 'sections' ? 'the questions' : field;
}

const attributes = (q: StoredAssessmentQuestion) => [
  KIND_LABELS[q.kind].toLowerCase(), q.required ? 'required' : 'optional', ...(q.weight ? [`weight ${q.weight}`] : []),
  ...(q.showWhen ? [`when ${q.showWhen.question} is ${q.showWhen.equals}`] : []),
].join(', ');

/** The sections as the text the screen edits: reading it back gives the same sections. */
export function templateText(sections: readonly StoredSection[]): string {
  return sections.map((s) => [
    `Section: ${s.title}`,
    ...(s.description ? [s.description] : []),
    ...s.questions.map((q) => ['', `Question ${q.key} (${attributes(q)})`, q.text, ...(q.hint ? [`Hint: ${q.hint.replace(/\s*\n\s*/g, ' ')}`] : []),
      ...(q.choices ?? []).map((c) => `- ${c.value}: ${c.label} = ${c.score}%`)].join('\n')),
  ].join('\n')).join('\n\n\n');
}
