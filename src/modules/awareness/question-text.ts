import type { FieldProblem } from '../../platform/core/errors';
import type { Question } from './schema';

/**
 * A program's test written as plain text on its screen, so a person writes questions without JavaScript or JSON:
 *
 *   Which of these is a sign of phishing?
 *   - ( ) A message from a known colleague
 *   - (x) A link asking for your password
 *
 *   Which should you report? (all that apply)
 *   - [x] A lost badge
 *   - [ ] A new coffee machine
 *   - [x] A stranger following you through a door
 *
 * A line that is not a choice starts a question (its next lines, before the first choice, continue it). Round
 * brackets make a single-choice question, square brackets a multiple-choice one; an x marks a right choice.
 */
const CHOICE = /^\s*[-*]\s*(\(\s*([xX]?)\s*\)|\[\s*([xX]?)\s*\])\s*(.*)$/;
const LOOKS_LIKE_CHOICE = /^\s*[-*]\s/;
const MIN_CHOICES = 2;
const MAX_CHOICES = 10;
const MAX_QUESTIONS = 100;

interface Draft { line: number; text: string[]; choices: { text: string; right: boolean; round: boolean; line: number }[] }

const problem = (message: string): FieldProblem => ({ field: 'questions', message });

/** Reads the text into questions, or answers every problem found (by line), never a partial test. */
export function parseQuestionText(text: string): { questions: Question[]; problems: FieldProblem[] } {
  const drafts: Draft[] = [];
  const problems: FieldProblem[] = [];
  text.split(/\r\n|\r|\n/).forEach((raw, index) => {
    const line = index + 1;
    if (!raw.trim()) return;
    const current = drafts.at(-1);
    const choice = CHOICE.exec(raw);
    if (choice) {
      if (!current) return problems.push(problem(`line ${line}: a choice comes before any question`));
      const choiceText = choice[4].trim();
      if (!choiceText) return problems.push(problem(`line ${line}: the choice has no text`));
      current.choices.push({ text: choiceText, right: Boolean(choice[2] || choice[3]), round: choice[1].startsWith('('), line });
      return;
    }
    if (LOOKS_LIKE_CHOICE.test(raw)) {
      return problems.push(problem(`line ${line}: a choice starts with "- ( )" or "- (x)" for one answer, "- [ ]" or "- [x]" for several`));
    }
    const questionText = raw.trim().replace(/^\d{1,3}[.)]\s+/, '');
    if (current && current.choices.length === 0) current.text.push(questionText);
    else drafts.push({ line, text: [questionText], choices: [] });
  });
  if (drafts.length > MAX_QUESTIONS) problems.push(problem(`a test has at most ${MAX_QUESTIONS} questions (this one has ${drafts.length})`));
  const questions = drafts.map((draft, i): Question => {
    const where = `question ${i + 1} (line ${draft.line})`;
    const { choices } = draft;
    if (choices.length < MIN_CHOICES) problems.push(problem(`${where} needs at least ${MIN_CHOICES} choices, it has ${choices.length}`));
    if (choices.length > MAX_CHOICES) problems.push(problem(`${where} has ${choices.length} choices; at most ${MAX_CHOICES}`));
    const round = choices.filter((c) => c.round).length;
    const kind = round === choices.length && choices.length ? 'single' : 'multiple';
    const correct = choices.flatMap((c, index) => (c.right ? [index] : []));
    if (choices.length) {
      if (round && round !== choices.length) problems.push(problem(`${where} mixes ( ) and [ ]: use ( ) when one choice is right, [ ] when several may be`));
      else if (kind === 'single' && correct.length !== 1) problems.push(problem(`${where} has ( ) choices, so exactly one is marked (x); ${correct.length} are`));
      else if (kind === 'multiple' && correct.length === 0) problems.push(problem(`${where} marks no right choice with [x]`));
    }
    return { text: draft.text.join('\n'), kind, choices: choices.map((c) => c.text), correct };
  });
  return problems.length ? { questions: [], problems } : { questions, problems: [] };
}

/** The test as the text its screen edits: reading it back gives the same questions. */
export function questionText(questions: readonly Question[]): string {
  return questions.map((q) => {
    const mark = (right: boolean) => (q.kind === 'single' ? (right ? '(x)' : '( )') : (right ? '[x]' : '[ ]'));
    return [q.text, ...q.choices.map((choice, i) => `- ${mark(q.correct.includes(i))} ${choice}`)].join('\n');
  }).join('\n\n');
}
