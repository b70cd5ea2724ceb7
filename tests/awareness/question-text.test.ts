import { describe, expect, test } from 'bun:test';
import { parseQuestionText, questionText } from '../../src/modules/awareness/question-text';

const messages = (text: string) => parseQuestionText(text).problems.map((p) => p.message);

describe('a test written as text on its screen', () => {
  test('( ) makes a single-choice question, [ ] a multiple-choice one, x marks the right choices; a leading number is dropped', () => {
    const { questions, problems } = parseQuestionText([
      '1. Which of these is a sign of phishing?',
      '- ( ) A message from a colleague you know',
      '- (x) A link asking for your password',
      '',
      '2) What do you report?',
      'Choose all that apply.',
      '- [x] A lost badge',
      '* [ ] A new coffee machine',
      '-   [X]   A stranger following you through a door  ',
    ].join('\r\n'));
    expect(problems).toEqual([]);
    expect(questions).toEqual([
      { text: 'Which of these is a sign of phishing?', kind: 'single', choices: ['A message from a colleague you know', 'A link asking for your password'], correct: [1] },
      { text: 'What do you report?\nChoose all that apply.', kind: 'multiple', choices: ['A lost badge', 'A new coffee machine', 'A stranger following you through a door'], correct: [0, 2] },
    ]);
  });

  test('writing the questions out and reading them back gives the same test', () => {
    const questions = [
      { text: 'Pick one', kind: 'single' as const, choices: ['a', 'b', 'c'], correct: [2] },
      { text: 'Pick all\nthat apply', kind: 'multiple' as const, choices: ['x', 'y'], correct: [0, 1] },
      { text: 'Only one right, several may be chosen', kind: 'multiple' as const, choices: ['p', 'q'], correct: [1] },
    ];
    expect(parseQuestionText(questionText(questions))).toEqual({ questions, problems: [] });
    expect(parseQuestionText('')).toEqual({ questions: [], problems: [] });
  });

  test('every problem is named with its question and line, and nothing is kept', () => {
    const result = parseQuestionText([
      '- (x) orphan',
      'One choice only',
      '- (x) alone',
      'Two right in round brackets',
      '- (x) a',
      '- (x) b',
      'Mixed',
      '- ( ) a',
      '- [x] b',
      'None right',
      '- [ ] a',
      '- [ ] b',
      'Bad choice line',
      '- a choice without brackets',
      '- ( )',
    ].join('\n'));
    expect(result.questions).toEqual([]);
    expect(result.problems.map((p) => p.message)).toEqual([
      'line 1: a choice comes before any question',
      'line 14: a choice starts with "- ( )" or "- (x)" for one answer, "- [ ]" or "- [x]" for several',
      'line 15: the choice has no text',
      'question 1 (line 2) needs at least 2 choices, it has 1',
      'question 2 (line 4) has ( ) choices, so exactly one is marked (x); 2 are',
      'question 3 (line 7) mixes ( ) and [ ]: use ( ) when one choice is right, [ ] when several may be',
      'question 4 (line 10) marks no right choice with [x]',
      'question 5 (line 13) needs at least 2 choices, it has 0',
    ]);
    expect(result.problems.every((p) => p.field === 'questions')).toBe(true);
  });

  test('at most 10 choices a question and 100 questions a test', () => {
    const eleven = ['Q', ...Array.from({ length: 11 }, (_, i) => `- [${i === 0 ? 'x' : ' '}] c${i}`)].join('\n');
    expect(messages(eleven)).toEqual(['question 1 (line 1) has 11 choices; at most 10']);
    const many = Array.from({ length: 101 }, (_, i) => `Q${i}\n- (x) a\n- ( ) b`).join('\n\n');
    expect(messages(many)).toEqual(['a test has at most 100 questions (this one has 101)']);
  });
});
