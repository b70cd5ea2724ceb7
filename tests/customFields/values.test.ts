import { describe, expect, test } from 'bun:test';
import { applyCustomFields, checkValue, customFieldsFromForm, type Definition } from '../../src/platform/records/custom-field-values';

const definition = (key: string, type: Definition['type'], extra: Partial<Definition> = {}): Definition => ({
  id: `00000000-0000-4000-8000-${String(key.length).padStart(12, '0')}`, module: 'controls', key, label: key, type, options: [],
  required: false, position: 0, createdAt: new Date(), updatedAt: new Date(), ...extra,
});

describe('custom field value rules', () => {
  test('a number must be finite', () => {
    expect(checkValue(definition('n', 'number'), 3.25)).toEqual({ value: 3.25 });
    expect(checkValue(definition('n', 'number'), Number.POSITIVE_INFINITY)).toEqual({ message: 'must be a finite number' });
    expect(checkValue(definition('n', 'number'), Number.NaN)).toEqual({ message: 'must be a finite number' });
  });

  test('a date must be a real calendar day written YYYY-MM-DD', () => {
    const date = definition('d', 'date');
    expect(checkValue(date, '2024-02-29')).toEqual({ value: '2024-02-29' });
    for (const bad of ['2023-02-29', '2024-13-01', '2024-1-05', '05/01/2024', 20240105]) {
      expect(checkValue(date, bad), String(bad)).toEqual({ message: 'must be a real date written YYYY-MM-DD' });
    }
  });

  test('text is limited to 10,000 characters; booleans are true or false', () => {
    expect(checkValue(definition('t', 'text'), 'x'.repeat(10_000))).toEqual({ value: 'x'.repeat(10_000) });
    expect(checkValue(definition('t', 'text'), 'x'.repeat(10_001))).toEqual({ message: 'must be at most 10000 characters' });
    expect(checkValue(definition('b', 'boolean'), 'true')).toEqual({ message: 'must be true or false' });
    expect(checkValue(definition('b', 'boolean'), false)).toEqual({ value: false });
  });

  test('selects take only their options; a multi select no repeats and only strings', () => {
    const single = definition('s', 'singleSelect', { options: ['a', 'b'] });
    const multi = definition('m', 'multiSelect', { options: ['a', 'b'] });
    expect(checkValue(single, 'b')).toEqual({ value: 'b' });
    expect('message' in checkValue(single, 'c')).toBe(true);
    expect('message' in checkValue(single, ['a'])).toBe(true);
    expect(checkValue(multi, ['b', 'a'])).toEqual({ value: ['b', 'a'] });
    expect(checkValue(multi, ['a', 'a'])).toEqual({ message: 'must not repeat an option' });
    expect(checkValue(multi, ['a', 1])).toEqual({ message: 'must be a list of options' });
    expect(checkValue(multi, 'a')).toEqual({ message: 'must be a list of options' });
  });

  test('an empty multi select clears the value, and a required one is then missing', () => {
    const multi = definition('m', 'multiSelect', { options: ['a'], required: true });
    const { next, problems } = applyCustomFields([multi], { m: [] }, { m: ['a'] }, 'update');
    expect(next).toEqual({});
    expect(problems).toEqual([{ field: 'customFields.m', message: 'is required' }]);
  });

  test('form strings become typed values; blanks are left out on create and cleared on update', () => {
    const definitions = [definition('n', 'number'), definition('b', 'boolean'), definition('m', 'multiSelect', { options: ['a', 'b'] }), definition('t', 'text')];
    const body = { 'cf.n': '4.5', 'cf.b': 'false', 'cf.m': ['a', 'b'], 'cf.t': '' };
    expect(customFieldsFromForm(definitions, body, 'create')).toEqual({ n: 4.5, b: false, m: ['a', 'b'] });
    expect(customFieldsFromForm(definitions, { 'cf.n': 'four' }, 'update')).toEqual({ n: 'four', b: null, m: null, t: null });
  });
});
