import type { StoredAnswer, StoredAssessmentQuestion, StoredReview, StoredSection } from '../../../db/schema';
import { isRealDate } from '../../platform/core/dates';
import type { FieldProblem } from '../../platform/core/errors';

/**
 * The rules of a questionnaire that need no database: which questions are shown, whether an answer fits its question,
 * and the score. Pure, so the public page, the API and the review share them.
 */

export const questionsOf = (sections: readonly StoredSection[]): StoredAssessmentQuestion[] => sections.flatMap((s) => s.questions);

const hasValue = (answer: StoredAnswer | undefined): boolean =>
  answer !== null && answer !== undefined && (Array.isArray(answer) ? answer.length > 0 : String(answer).trim() !== '');

/** Whether a question is asked given the answers so far: always, or when its earlier question has the value. */
export function isShown(question: StoredAssessmentQuestion, answers: Readonly<Record<string, StoredAnswer>>, byKey: ReadonlyMap<string, StoredAssessmentQuestion>): boolean {
  if (!question.showWhen) return true;
  const earlier = byKey.get(question.showWhen.question);
  if (!earlier || !isShown(earlier, answers, byKey)) return false;
  const answer = answers[question.showWhen.question];
  return Array.isArray(answer) ? answer.includes(question.showWhen.equals) : answer === question.showWhen.equals;
}

/** The percent of its weight an answer earns from the template: choice scores (several choices add up, at most 100); null for answers the reviewer scores. */
export function templateScore(question: StoredAssessmentQuestion, answer: StoredAnswer | undefined): number | null {
  if (!question.choices || !hasValue(answer)) return question.choices && question.weight > 0 ? 0 : null;
  const chosen = Array.isArray(answer) ? answer : [String(answer)];
  return Math.min(100, question.choices.filter((c) => chosen.includes(c.value)).reduce((sum, c) => sum + c.score, 0));
}

/**
 * The score of a response in percent: for every shown question with a weight, its weight times the percent its answer
 * earns (the reviewer's score where set, else the template's); questions nobody scored yet count as 0. Null when no
 * shown question carries a weight.
 */
export function responseScore(sections: readonly StoredSection[], answers: Readonly<Record<string, StoredAnswer>>, review: Readonly<Record<string, StoredReview>> = {}): number | null {
  const questions = questionsOf(sections);
  const byKey = new Map(questions.map((q) => [q.key, q]));
  let earned = 0;
  let total = 0;
  for (const q of questions) {
    if (q.weight === 0 || !isShown(q, answers, byKey)) continue;
    total += q.weight;
    earned += q.weight * (review[q.key]?.score ?? templateScore(q, answers[q.key]) ?? 0);
  }
  return total === 0 ? null : Math.round(earned / total);
}

/**
 * Checks answers against their questions: wrong types and unknown choices always, missing required answers of shown
 * questions when `submitting`. Answers to hidden questions are dropped. Every problem at once, per question key.
 */
export function checkAnswers(sections: readonly StoredSection[], given: Readonly<Record<string, StoredAnswer>>, submitting: boolean): { answers: Record<string, StoredAnswer>; problems: FieldProblem[] } {
  const questions = questionsOf(sections);
  const byKey = new Map(questions.map((q) => [q.key, q]));
  const problems: FieldProblem[] = [];
  const answers: Record<string, StoredAnswer> = {};
  for (const key of Object.keys(given)) if (!byKey.has(key)) problems.push({ field: key, message: 'there is no such question' });
  for (const q of questions) {
    const value = given[q.key];
    if (!hasValue(value)) continue;
    const problem = answerProblem(q, value);
    if (problem) problems.push({ field: q.key, message: problem });
    else answers[q.key] = typeof value === 'string' ? value.trim() : value;
  }
  for (const q of questions) {
    if (!isShown(q, answers, byKey)) {
      delete answers[q.key];
      continue;
    }
    if (submitting && q.required && !hasValue(answers[q.key]) && !problems.some((p) => p.field === q.key)) {
      problems.push({ field: q.key, message: q.kind === 'file' ? 'attach a file: this question needs an answer' : 'this question needs an answer' });
    }
  }
  return { answers, problems };
}

function answerProblem(q: StoredAssessmentQuestion, value: StoredAnswer): string | null {
  const values = new Set((q.choices ?? []).map((c) => c.value));
  switch (q.kind) {
    case 'yesno':
    case 'single':
      return typeof value === 'string' && values.has(value) ? null : 'choose one of the answers offered';
    case 'multiple':
      return Array.isArray(value) && value.every((v) => values.has(v)) ? null : 'choose among the answers offered';
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^-?\d+([.,]\d+)?$/.test(value.trim()) ? Number(value.trim().replace(',', '.')) : NaN;
      return Number.isFinite(n) ? null : 'must be a number, such as 24';
    }
    case 'date':
      return typeof value === 'string' && isRealDate(value.trim()) ? null : 'must be a date written YYYY-MM-DD, such as 2026-03-31';
    case 'text':
      return typeof value === 'string' ? (value.length > 20_000 ? 'must be at most 20,000 characters' : null) : 'must be text';
    case 'file':
      return typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value) ? null : 'attach a file';
  }
}

/** Numbers typed on the page are stored as numbers. */
export function normalised(sections: readonly StoredSection[], answers: Record<string, StoredAnswer>): Record<string, StoredAnswer> {
  const byKey = new Map(questionsOf(sections).map((q) => [q.key, q]));
  return Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, byKey.get(k)?.kind === 'number' && typeof v === 'string' ? Number(v.replace(',', '.')) : v]));
}

/** Problems of a template's sections: unique keys, choices where they belong, conditions on earlier questions. */
export function sectionProblems(sections: readonly StoredSection[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const seen = new Map<string, StoredAssessmentQuestion>();
  sections.forEach((s, si) => s.questions.forEach((q, qi) => {
    const field = `sections.${si}.questions.${qi}`;
    if (seen.has(q.key)) problems.push({ field, message: `the key ${q.key} is used twice` });
    const choiceKinds = q.kind === 'yesno' || q.kind === 'single' || q.kind === 'multiple';
    if (choiceKinds && !(q.choices?.length)) problems.push({ field, message: `a ${q.kind} question needs its choices with their scores` });
    if (!choiceKinds && q.choices?.length) problems.push({ field, message: `a ${q.kind} question has no choices (the reviewer scores it)` });
    if (q.kind === 'yesno' && q.choices?.length && q.choices.map((c) => c.value).sort().join() !== 'no,yes') problems.push({ field, message: 'a yes/no question has exactly the choices yes and no' });
    if (new Set((q.choices ?? []).map((c) => c.value)).size !== (q.choices ?? []).length) problems.push({ field, message: 'two choices have the same value' });
    if (q.showWhen) {
      const earlier = seen.get(q.showWhen.question);
      if (!earlier) problems.push({ field, message: `its condition must name an earlier question (${q.showWhen.question} is not one)` });
      else if (earlier.choices && !earlier.choices.some((c) => c.value === q.showWhen!.equals)) problems.push({ field, message: `${q.showWhen.question} has no answer ${q.showWhen.equals}` });
    }
    seen.set(q.key, q);
  }));
  return problems;
}

/** An answer in words: choice labels, the number or date as typed, a file by its name. */
export function answerText(q: StoredAssessmentQuestion, answer: StoredAnswer | undefined, fileNames: ReadonlyMap<string, string> = new Map()): string {
  if (!hasValue(answer)) return '';
  if (q.choices) {
    const chosen = Array.isArray(answer) ? answer : [String(answer)];
    return chosen.map((v) => q.choices!.find((c) => c.value === v)?.label ?? v).join(', ');
  }
  if (q.kind === 'file') return fileNames.get(String(answer)) ?? 'a file';
  return String(answer);
}
