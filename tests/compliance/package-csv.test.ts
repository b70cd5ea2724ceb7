import { beforeAll, describe, expect, test } from 'bun:test';
import { count, eq } from 'drizzle-orm';
import { compliancePackages } from '../../db/schema';
import { parsePackageCsv } from '../../src/modules/compliance/package-csv';
import type { PackageInput } from '../../src/modules/compliance/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, unique } from '../helpers/factories';
import { refusalOf, refusedWith } from '../helpers/refusals';

describe('parsing a CSV package file', () => {
  test('a UTF-8 file with a byte order mark, semicolons, quoted newlines and a parent header', () => {
    const text = '\uFEFFCode;Name;Description;Parent;Kind\r\n'
      + 'CH1;Chapter 1;;;Heading\r\n'
      + 'ART5;"Principles relating\nto processing";"Lawful; fair\nand transparent";CH1;\r\n'
      + '\r\n'
      + 'ART6;Lawfulness;;CH1;requirement\r\n'
      + 'REC1;Recital 1;;;additional';
    const { input, problems } = parsePackageCsv(text, { name: 'GDPR', standard: 'Regulation (EU) 2016/679', version: '2016' });
    expect(problems).toEqual([]);
    expect(input).toEqual({
      name: 'GDPR', standard: 'Regulation (EU) 2016/679', version: '2016', description: '',
      items: [
        { code: 'CH1', name: 'Chapter 1', description: '', parentCode: null, kind: 'heading' },
        { code: 'ART5', name: 'Principles relating\nto processing', description: 'Lawful; fair\nand transparent', parentCode: 'CH1', kind: '' },
        { code: 'ART6', name: 'Lawfulness', description: '', parentCode: 'CH1', kind: 'requirement' },
        { code: 'REC1', name: 'Recital 1', description: '', parentCode: null, kind: 'additional' },
      ],
    });
  });

  test('a comma-separated file with parent_code and only the required columns', () => {
    const { input, problems } = parsePackageCsv('code,name,parent_code\nA,"Access, control",\nA.1,"Account ""review""",A\n', { name: 'Mini' });
    expect(problems).toEqual([]);
    expect(input.items).toEqual([
      { code: 'A', name: 'Access, control', description: '', parentCode: null, kind: '' },
      { code: 'A.1', name: 'Account "review"', description: '', parentCode: 'A', kind: '' },
    ]);
  });

  test('problems are reported by the file line the row starts on, counting quoted newlines', () => {
    const text = 'code,name,parent_code,kind\n'
      + 'A,"first\nsecond\nthird",,\n' // lines 2-4
      + ',Nameless,,\n' // line 5
      + 'A,Repeat,,\n' // line 6
      + 'B,Orphan,Z,\n' // line 7
      + 'C,Wrong kind,,control\n' // line 8
      + 'D,,,\n'; // line 9
    const { problems } = parsePackageCsv(text, { name: 'Broken' });
    expect(problems).toEqual([
      { line: 5, field: 'code', message: 'must not be empty' },
      { line: 6, code: 'A', field: 'code', message: 'repeats the code on line 2' },
      { line: 7, code: 'B', field: 'parent_code', message: 'names Z, which is not in the package' },
      { line: 8, code: 'C', field: 'kind', message: 'must be requirement, additional, heading or blank (blank means requirement)' },
      { line: 9, code: 'D', field: 'name', message: 'must not be empty' },
    ]);
  });

  test('a cycle, a missing required column, an unknown column and a missing package name', () => {
    expect(parsePackageCsv('code,name,parent\nA,a,B\nB,b,A\n', { name: 'Cycle' }).problems).toEqual([
      { line: 2, code: 'A', field: 'parent_code', message: 'parents form a cycle: A → B → A' },
      { line: 3, code: 'B', field: 'parent_code', message: 'parents form a cycle: A → B → A' },
    ]);
    expect(parsePackageCsv('code,title\nA,a\n', { name: 'X' }).problems).toEqual([
      { line: 1, field: 'header', message: 'unknown column title' },
      { line: 1, field: 'header', message: 'the column name is required' },
    ]);
    expect(parsePackageCsv('code,name\nA,a\n', {}).problems).toEqual([{ field: 'name', message: 'must not be empty' }]);
    expect(parsePackageCsv('', { name: 'Empty' }).problems[0]).toMatchObject({ line: 1, field: 'header' });
    expect(parsePackageCsv('code,name\n', { name: 'No rows' }).problems).toEqual([{ field: 'items', message: 'the file has no item rows' }]);
  });

  test('an over-long code is reported on its line', () => {
    const { problems } = parsePackageCsv(`code,name\n${'c'.repeat(101)},Long\n`, { name: 'Long' });
    expect(problems).toEqual([{ line: 2, code: 'c'.repeat(101), field: 'code', message: 'at most 100 characters' }]);
  });
});

describe('CSV package import over REST', () => {
  let env: TestEnv;
  let token: string;
  beforeAll(async () => {
    env = await testEnv();
    token = await makeToken(env, await adminActor(env), ['compliance:read', 'compliance:create']);
  });
  const postCsv = (csv: string, query: Record<string, string>, secret = token) =>
    env.request(`/api/v1/compliance/packages/csv?${new URLSearchParams(query)}`, {
      method: 'POST', body: csv, headers: { authorization: `Bearer ${secret}`, 'content-type': 'text/csv; charset=utf-8' },
    });

  test('a CSV file becomes a package that exports like the equivalent JSON', async () => {
    const name = unique('CSV framework');
    const res = await postCsv('\uFEFFcode;name;parent;kind\nH;Heading;;heading\nR1;"Two\nlines";H;\nX1;Extra;H;additional\n', { name, standard: 'Std', version: '1.0' });
    expect(res.status, await res.clone().text()).toBe(201);
    const { data } = (await res.json()) as { data: { id: string } };
    const exported = (await (await env.request(`/api/v1/compliance/packages/${data.id}/export`, { headers: { authorization: `Bearer ${token}` } })).json()) as PackageInput;
    expect(exported).toEqual({
      name, standard: 'Std', version: '1.0', description: '',
      items: [
        { code: 'H', name: 'Heading', description: '', parentCode: null, kind: 'heading' },
        { code: 'R1', name: 'Two\nlines', description: '', parentCode: 'H', kind: 'requirement' },
        { code: 'X1', name: 'Extra', description: '', parentCode: 'H', kind: 'additional' },
      ],
    });
  });

  test('a refused CSV lists its problems by line and writes nothing', async () => {
    const name = unique('Refused CSV');
    const res = await postCsv('code,name,parent_code\nA,a,\nA,again,\nB,b,missing\n', { name });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: string; problems: { line: number; field: string }[] };
    expect(body.problems.map((p) => `${p.line}:${p.field}`)).toEqual(['3:code', '4:parent_code']);
    expect(body.error).toContain('line 3');
    const [{ n }] = await env.ctx.db.select({ n: count() }).from(compliancePackages).where(eq(compliancePackages.name, name));
    expect(n).toBe(0);
  });

  test('the CSV import needs a token with compliance:create', async () => {
    const readOnly = await makeToken(env, await adminActor(env), ['compliance:read']);
    expect(await refusalOf(env, async () => postCsv('code,name\nA,a\n', { name: unique('Denied') }, readOnly))).toEqual(refusedWith(403, 'forbidden', 'token scope compliance:create missing'));
    const anonymous = await env.request('/api/v1/compliance/packages/csv?name=x', { method: 'POST', body: 'code,name\nA,a\n', headers: { 'content-type': 'text/csv' } });
    expect(anonymous.status).toBe(401);
  });
});
