import { describe, expect, test } from 'bun:test';
import { SHIPPED_TEMPLATES } from '../../src/modules/assessments/shipped';
import { parseTemplateText, placeOf, templateText } from '../../src/modules/assessments/template-text';
import { STARTER_TEXT } from '../../src/modules/assessments/template-views';
import { sectionProblems } from '../../src/modules/assessments/scoring';

/** A template written as text on its screen: every kind, scores, conditions; read back exactly; every problem by its line. */

const messages = (text: string) => parseTemplateText(text).problems.map((p) => p.message);

describe('template text', () => {
  test('the shipped templates written as text read back as the same sections', () => {
    for (const shipped of SHIPPED_TEMPLATES) {
      const parsed = parseTemplateText(templateText(shipped.sections));
      expect(parsed.problems).toEqual([]);
      expect(parsed.sections).toEqual(JSON.parse(JSON.stringify(shipped.sections)));
    }
  });

  test('every kind, required and optional, weights, choice scores, a hint, a described section and a condition', () => {
    const { sections, problems } = parseTemplateText([
      'Section: Hosting',
      'Where and how our data lives.',
      '',
      'Question hosted (yes/no, required, weight 3)',
      'Do you host our data yourselves?',
      '',
      'Question provider (text, required, when hosted is No)',
      'Which provider hosts it?',
      'Hint: The company, not the product.',
      '',
      'Question region (one choice, weight 2)',
      'Where is it hosted?',
      '- eea: In the EEA = 100%',
      '- Elsewhere = 25%',
      '',
      'Question controls (several choices, required, weight 1)',
      'Which apply?',
      '- a: Backups',
      '- b: Encryption = 60',
      '',
      'Section: Figures',
      'Question (number)',
      'How many staff?',
      'Question since (date, optional)',
      'Since when?',
      'Question report (file upload, required)',
      'Attach the report.',
    ].join('\n'));
    expect(problems).toEqual([]);
    expect(sections).toEqual([
      {
        title: 'Hosting', description: 'Where and how our data lives.', questions: [
          { key: 'hosted', text: 'Do you host our data yourselves?', kind: 'yesno', required: true, weight: 3, choices: [{ value: 'yes', label: 'Yes', score: 100 }, { value: 'no', label: 'No', score: 0 }] },
          // The condition named the answer by its label; it is stored as the choice's value.
          { key: 'provider', text: 'Which provider hosts it?', hint: 'The company, not the product.', kind: 'text', required: true, weight: 0, showWhen: { question: 'hosted', equals: 'no' } },
          { key: 'region', text: 'Where is it hosted?', kind: 'single', required: false, weight: 2, choices: [{ value: 'eea', label: 'In the EEA', score: 100 }, { value: 'elsewhere', label: 'Elsewhere', score: 25 }] },
          { key: 'controls', text: 'Which apply?', kind: 'multiple', required: true, weight: 1, choices: [{ value: 'a', label: 'Backups', score: 0 }, { value: 'b', label: 'Encryption', score: 60 }] },
        ],
      },
      {
        title: 'Figures', questions: [
          { key: 'q1', text: 'How many staff?', kind: 'number', required: false, weight: 0 },
          { key: 'since', text: 'Since when?', kind: 'date', required: false, weight: 0 },
          { key: 'report', text: 'Attach the report.', kind: 'file', required: true, weight: 0 },
        ],
      },
    ]);
    expect(sectionProblems(sections)).toEqual([]);
  });

  test('the text a new template starts from is a valid template with a condition', () => {
    const { sections, problems } = parseTemplateText(STARTER_TEXT);
    expect(problems).toEqual([]);
    expect(sectionProblems(sections)).toEqual([]);
    expect(sections[0].questions.find((q) => q.key === 'policyFile')?.showWhen).toEqual({ question: 'policy', equals: 'yes' });
  });

  test('every problem is told with its line, and nothing is read from a text with problems', () => {
    const text = [
      'Question early (text)',          // 1: before any section
      'Section: One',
      'Question a (text, weight 200)',  // 3: weight too high
      'What?',
      'Question b (sometimes, required)', // 5: unknown word, no kind
      'Why?',
      'Question c (one choice)',        // 7: one choice only
      'Pick',
      '- x: Only = 150%',               // 9: score too high
      'Section:',                        // 10: no title, no question
    ].join('\n');
    const parsed = parseTemplateText(text);
    expect(parsed.sections).toEqual([]);
    expect(parsed.problems.map((p) => p.message)).toEqual([
      'line 1: a question comes before any section: start with a line "Section: <title>"',
      'line 3: a weight is a whole number from 0 to 100, not 200',
      'line 5: "sometimes" is not understood: write the kind (yes or no, one choice, several choices, text, number, date, file), required or optional, weight N, or when <short name> is <answer>',
      'line 5: say the question\'s kind in its brackets, such as (yes or no, required, weight 2)',
      'line 9: a choice earns 0 to 100 % of the question\'s weight, not 150',
      'line 10: a section needs a title after "Section:"',
      'line 7: a question with choices needs at least two',
      'line 10: the section "" has no question: each question starts with "Question <short name> (<kind>, …)"',
    ]);
    expect(messages('')).toEqual(['write at least one section: a line "Section: <title>", then its questions']);
    expect(messages('Section: S\nQuestion q (text)\n- a choice first\nText after')).toEqual([
      'line 4: the question\'s text comes right after its "Question" line, before its hint and choices; a choice starts with "- "',
      'line 2: the question has no text: write it on the lines after "Question …"',
    ]);
  });

  test('the service\'s problems are placed at the line of their question', () => {
    const parsed = parseTemplateText('Section: S\n\nQuestion a (text)\nA?\n\nQuestion a (text, when zz is 1)\nB?');
    expect(parsed.problems).toEqual([]);
    expect(sectionProblems(parsed.sections).map((p) => `${placeOf(p.field, parsed.lines)}: ${p.message}`)).toEqual([
      'line 6 (question 1.2): the key a is used twice',
      'line 6 (question 1.2): its condition must name an earlier question (zz is not one)',
    ]);
  });
});
