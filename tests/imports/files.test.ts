import { beforeAll, describe, expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { assets, controls } from '../../db/schema';
import { testEnv, type TestEnv } from '../helpers/app';
import { adminActor, makeToken, makeUser, unique } from '../helpers/factories';
import { postCsv, rowAt } from './helpers';
import { openCsv, parseCsv } from '../../src/platform/csv/parse';
import { csvField, csvLine, toCsv } from '../../src/platform/csv/write';
import { matchAllowed } from '../../src/platform/csv/import-type';
import { cleanFileName, csvCurrentRecords, csvTemplate, DOWNLOAD_LIMIT, errorsFirst, mapHeader, runCsvImport, templateCsv, unguard } from '../../src/platform/csv/engine';
import type { ImportType, ImportWriter } from '../../src/platform/csv/import-type';
import { CsvRefusal } from '../../src/platform/csv/parse';
import { controlImport } from '../../src/modules/controls/import';
import { MODULES } from '../../src/modules';
import { itemTemplate } from '../../src/modules/accountReviews/import';
import { DECISIONS } from '../../src/modules/accountReviews/schema';
import { valueLabel } from '../../src/platform/core/value-labels';

let env: TestEnv;
let token: string;

beforeAll(async () => {
  env = await testEnv();
  token = await makeToken(env, await adminActor(env), ['controls:create', 'controls:update', 'controls:read', 'assets:create', 'assets:update', 'assets:read', 'businessUnits:read']);
});

describe('File handling', () => {
  test('UTF-8 with BOM, CRLF, semicolons, and quoted fields holding delimiters and line breaks; lines counted in the file', async () => {
    const name = unique('Ünïcode; "quoted"');
    const csv = `\uFEFFname;description\r\n"${name.replaceAll('"', '""')}";"one, two;\r\nthree"\r\n\r\n${unique('Second')};plain\r\n`;
    const applied = await postCsv(env, token, 'controls', new TextEncoder().encode(csv), 'apply');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.data.rows.map((r) => r.line)).toEqual([2, 5]);
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, name));
    expect(row.description).toBe('one, two;\r\nthree');
  });

  test('mixed line endings (CRLF, LF and CR in one file) read every row, with line numbers as written', async () => {
    const names = [unique('Mixed a'), unique('Mixed b'), unique('Mixed c')];
    const csv = `name,description\r\n${names[0]},"kept\r\nbreak"\n${names[1]},lf\r${names[2]},cr\n`;
    const applied = await postCsv(env, token, 'controls', csv, 'apply');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.data.counts.create).toBe(3);
    expect(applied.data.rows.map((r) => r.line)).toEqual([2, 4, 5]);
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, names[0]));
    expect(row.description).toBe('kept\r\nbreak');
  });

  test('a file that is not CSV text, is empty, has only a header, or is over the size or row limit is refused with a clear message', async () => {
    const cases: [string, string | Uint8Array, string][] = [
      ['binary', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), 'not'],
      ['latin-1', new Uint8Array([0x6e, 0x61, 0x6d, 0x65, 0x0a, 0xe9, 0x74, 0xe9, 0x0a]), 'not UTF-8'],
      ['empty', '', 'empty'],
      ['blank lines', '\r\n\r\n', 'empty'],
      ['header only', 'name,description\r\n', 'only a header'],
      ['unclosed quote', 'name\n"abc\n', 'quoted field is not closed'],
      ['too many rows', `name\n${'x\n'.repeat(50_001)}`, 'more than 50,000 rows'],
      ['too large', new Uint8Array(10 * 1024 * 1024 + 1).fill(0x61), 'limit is 10 MB'],
    ];
    for (const [label, body, message] of cases) {
      const res = await postCsv(env, token, 'controls', body, 'check');
      expect(res.status, `${label}: ${res.text.slice(0, 200)}`).toBe(422);
      expect(res.error, label).toContain(message);
    }
  });

  test('a row with more fields than the header is an error row', async () => {
    const res = await postCsv(env, token, 'controls', `name,description\n${unique('A')},b,c\n`, 'check');
    expect(rowAt(res.data, 2).errors?.[0].message).toBe('has 3 fields; the header has 2');
  });

  test('the parser reports where each row starts', () => {
    const parsed = parseCsv('a,b\n"1\n2",x\n3,y\n');
    expect(parsed.rows.map((r) => r.line)).toEqual([2, 4]);
    expect(parseCsv('a;b\n1;2\n').delimiter).toBe(';');
  });

  test('read a chunk at a time, rows keep their cells and line numbers across chunk boundaries', () => {
    const text = 'a,b\r\n"one\r\ntwo",x\r\n\r\n3,"y, ""quoted"""\r\n4,z\r\n"5\n",w\r\n6,v';
    const whole = parseCsv(text).rows;
    expect(whole.map((r) => r.line)).toEqual([2, 5, 6, 7, 9]);
    expect(whole[2].cells).toEqual(['4', 'z']);
    for (const size of [1, 2, 3, 10]) {
      expect([...openCsv(text).chunks(size)].flat(), `chunks of ${size}`).toEqual(whole);
    }
    expect([...openCsv(text).chunks(2, 1)].flat()).toEqual(whole.slice(1));
  });
});

describe('The header', () => {
  const columns = [{ name: 'id' }, { name: 'name' }, { name: 'description' }];
  const refusals = [{ area: 'things', columns: ['secret', 'hidden'], reason: 'kept by another module' }];
  const refusal = (header: string[], refused = refusals) => {
    try {
      mapHeader(header, columns, refused);
      return 'mapped';
    } catch (error) {
      expect(error).toBeInstanceOf(CsvRefusal);
      return (error as Error).message;
    }
  };

  test('column names ignore case, spaces around them and one trailing *, and may come in any order', () => {
    expect(mapHeader([' Name * ', 'DESCRIPTION', 'id*'], columns)).toEqual([columns[1], columns[2], columns[0]]);
    expect(mapHeader(['description'], columns)).toEqual([columns[2]]);
    // A custom field's key may have capitals (riskTier): its column is matched ignoring case too.
    const custom = { name: 'cf.riskTier' };
    expect(mapHeader(['cf.risktier', 'name'], [...columns, custom])).toEqual([custom, columns[1]]);
  });

  test('an unknown, blank or repeated column refuses the file, naming each and the columns there are', () => {
    const known = 'The columns are: id, name, description.';
    expect(refusal(['colour'])).toBe(`Unknown column "colour". ${known}`);
    expect(refusal(['*name', 'name'])).toBe(`Unknown column "*name". ${known}`);
    expect(refusal(['name', '', ' * '])).toBe(`Unknown columns "(blank name in column 2)", "(blank name in column 3)". ${known}`);
    expect(refusal(['name', 'NAME*', 'description', 'Description'])).toBe('The header repeats "NAME*", "Description"; each column may appear once.');
  });

  test('a column declared never to be imported is refused with its reason, before anything else is said of the header', () => {
    expect(refusal(['name', 'Secret *'])).toBe('The column "Secret *" cannot be imported: kept by another module.');
    expect(refusal(['colour', 'hidden', 'secret', 'name', 'name'])).toBe('The columns "hidden", "secret" cannot be imported: kept by another module.');
    expect(refusal(['name', 'description'])).toBe('mapped');
    expect(refusal(['name', 'colour'], [])).toBe('Unknown column "colour". The columns are: id, name, description.');
  });
});

describe('File names and the help row', () => {
  test('a file name is recorded as its last path segment, printable, trimmed, at most 200 characters, upload.csv when nothing is left', () => {
    expect(cleanFileName('C:\\Users\\me\\risks.csv')).toBe('risks.csv');
    expect(cleanFileName('exports/2026/risks.csv')).toBe('risks.csv');
    expect(cleanFileName(' risks\u0007\u007f.csv ')).toBe('risks.csv');
    expect(cleanFileName(`${'x'.repeat(250)}.csv`)).toBe('x'.repeat(200));
    for (const blank of [undefined, null, '', '   ', 'folder/', '\u0001']) expect(cleanFileName(blank), String(blank)).toBe('upload.csv');
  });

  test('a template is the header and a help row whose first cell starts with "# "; without comments only the header', () => {
    const columns = [{ name: 'title', help: 'text', required: true }, { name: 'status', help: 'open, closed' }, { name: 'notes', help: 'text' }];
    expect(templateCsv(columns)).toBe('\uFEFFtitle,status,notes\r\n# required: text,"open, closed",text\r\n');
    expect(templateCsv(columns, false)).toBe('\uFEFFtitle,status,notes\r\n');
  });

  test('only the help row itself is skipped: a first row that says the same without "# ", or says it with "# " inside a cell, is a record', async () => {
    const admin = await adminActor(env);
    const run = (csv: string) => runCsvImport(env.ctx.db, controlImport, admin, { name: 'help.csv', bytes: new TextEncoder().encode(csv) }, 'check');
    const help = 'required: text, up to 300 characters';
    expect((await run(`name,description\n"${help}",text\n`)).rows).toMatchObject([{ line: 2, outcome: 'create', title: help }]);
    expect((await run(`name,description\n"# ${help}",te# xt\n`)).rows).toMatchObject([{ line: 2, outcome: 'create', title: `# ${help}` }]);
    // The help row as the template writes it is skipped, as it is with the columns moved.
    await expect(run(`name,description\n"# ${help}",text\n`)).rejects.toThrow('The file has only a header row and no records.');
  });

  test('the screen lists error rows first, then by line', () => {
    const rows = [{ line: 4, outcome: 'update' }, { line: 5, outcome: 'error' }, { line: 2, outcome: 'create' }, { line: 3, outcome: 'error' }, { line: 6, outcome: 'unchanged' }] as const;
    expect(errorsFirst([...rows]).map((r) => r.line)).toEqual([3, 5, 2, 4, 6]);
  });

  test("a template with only its help row has no records; the help row is left out of the progress's total", async () => {
    const admin = await adminActor(env);
    const template = await csvTemplate(env.ctx.db, controlImport);
    const helpOnly = runCsvImport(env.ctx.db, controlImport, admin, { name: 'template.csv', bytes: new TextEncoder().encode(template) }, 'check');
    await expect(helpOnly).rejects.toThrow(new CsvRefusal('The file has only a header row and no records.'));
    const width = template.replace(/^\uFEFF/, '').split('\r\n')[0].split(',').length;
    const filled = `${template},${unique('Filled')}${','.repeat(width - 2)}\r\n,${unique('Filled')}${','.repeat(width - 2)}\r\n`;
    const progress: [number, number][] = [];
    const result = await runCsvImport(env.ctx.db, controlImport, admin, { name: 'template.csv', bytes: new TextEncoder().encode(filled) }, 'check', {
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(result.counts.create).toBe(2);
    expect(progress).toEqual([[2, 2]]);
  });
});

describe('Writing CSV', () => {
  test('cells starting with = + - @ tab or carriage return are neutralised in every CSV the service writes', () => {
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(csvField(value).replace(/^"/, '').startsWith("'")).toBe(true);
    expect(csvField('plain')).toBe('plain');
    expect(csvField('a,b')).toBe('"a,b"');
    expect(toCsv([['a'], ['=x']])).toBe("\uFEFFa\r\n'=x\r\n");
  });

  test('a field is quoted when it holds a quote, comma, semicolon or line break, quotes doubled; numbers, flags and blanks as text', () => {
    expect(['a;b', 'say "hi"', 'two\nlines', 'cr\r', '"'].map(csvField)).toEqual(['"a;b"', '"say ""hi"""', '"two\nlines"', '"cr\r"', '""""']);
    expect(csvField('=a,"b"')).toBe('"\'=a,""b"""');
    expect([12, -3, 0, true, false, null, undefined, ''].map(csvField)).toEqual(['12', "'-3", '0', 'true', 'false', '', '', '']);
    expect(csvField(' =x')).toBe(' =x');
    expect(csvLine(['a', null, 3, 'x;y'])).toBe('a,,3,"x;y"');
    expect(csvLine([])).toBe('');
  });

  test('a cell read back loses only the apostrophe that guarded a formula character at its start', () => {
    for (const value of ['=1+1', '+1', '-1', '@SUM(A1)', '\tx', '\rx']) expect(unguard(csvField(value).replace(/^"|"$/g, '')), JSON.stringify(value)).toBe(value);
    for (const cell of ["'plain", "''=x", "a'=b", "'", "it's", '=x']) expect(unguard(cell), cell).toBe(cell);
  });

  test('template: the header and a comment row of allowed values; a filled-in template imports', async () => {
    const { signedInBrowser } = await import('../helpers/browser');
    const { ADMIN_EMAIL, ADMIN_PASSWORD } = await import('../helpers/app');
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await b.get('/controls/import/template.csv');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/csv');
    const template = await res.text();
    const [header, comment] = template.replace(/^\uFEFF/, '').split('\r\n');
    expect(header.startsWith('id,name,description,type,status,owner,owner_group')).toBe(true);
    expect(comment).toContain('Policy, Process, Technical, Physical, Other (blank gives Process)');
    expect(comment).toContain('Planned, Active, Retired (blank gives Active)');
    expect(comment).not.toContain('policy, process');
    const name = unique('From template');
    // The template's help row stays in place; the new row fills in only the name (id blank: create).
    const filled = `${template},${name}${','.repeat(header.split(',').length - 2)}\r\n`;
    const applied = await postCsv(env, token, 'controls', filled, 'apply');
    expect(applied.status, applied.text).toBe(200);
    expect(applied.data.counts.create).toBe(1);
  });
});

describe("The template's help row", () => {
  test('names the values of every keyed column of every import type by their labels, as the screens do, never by stored keys', async () => {
    const templates = [
      ...await Promise.all(MODULES.flatMap((m) => ('imports' in m ? [...(m.imports ?? [])] : [])).map(async (type) => {
        const columns = (type.columns as { name: string; values?: readonly string[] }[]).filter((c) => c.values);
        return { title: type.title, help: parseCsv(await csvTemplate(env.ctx.db, type)).rows[0].cells, keyed: columns };
      })),
      { title: 'Account review items', help: parseCsv(itemTemplate()).rows[0].cells, keyed: [{ name: 'decision', values: DECISIONS }] },
    ];
    expect(templates.filter((t) => t.keyed.length).length).toBeGreaterThanOrEqual(7);
    for (const { title, help, keyed } of templates) {
      // A stored key written as such ("in_progress", "partially_compliant") is never what a person reads.
      expect(help.filter((cell) => /\b[a-z]+_[a-z_]+\b/.test(cell.replace(/^# /, ''))), title).toEqual([]);
      for (const { values } of keyed) {
        expect(help.some((cell) => cell.includes(values!.map(valueLabel).join(', '))), `${title}: ${values!.join(', ')}`).toBe(true);
      }
    }
  });

  test('a help row written by an older template, with stored keys, is still skipped; its labels import as the keys would', async () => {
    const name = unique('Older template');
    const csv = `name,type,status\n"# required: text, up to 300 characters","policy, process, technical, physical, other (blank gives process)","planned, active, retired (blank gives active)"\n${name},Technical,Planned\n`;
    const checked = await postCsv(env, token, 'controls', csv, 'apply');
    expect(checked.data.counts, checked.text).toEqual({ create: 1, update: 0, unchanged: 0, error: 0 });
    const [row] = await env.ctx.db.select().from(controls).where(eq(controls.name, name));
    expect([row.type, row.status]).toEqual(['technical', 'planned']);
  });
});

describe('Download current records', () => {
  test('an edited download re-imported shows only the edited rows as Update and everything else Unchanged, formula cells included', async () => {
    const { signedInBrowser } = await import('../helpers/browser');
    const { ADMIN_EMAIL, ADMIN_PASSWORD } = await import('../helpers/app');
    const first = unique('Round trip');
    const formula = `=HYPERLINK("http://evil.example","${unique('x')}")`;
    const seed = `name,description,business_unit,owner\n${first},"multi\nline, with comma",,\n"${formula.replaceAll('"', '""')}",-5 minus,,\n`;
    expect((await postCsv(env, token, 'assets', seed, 'apply')).status).toBe(200);
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const res = await b.get('/assets/import/current.csv');
    expect(res.status).toBe(200);
    const download = await res.text();
    expect(download).toContain(`"'${formula.replaceAll('"', '""')}"`);
    expect(download).toContain("'-5 minus");
    expect(download).not.toMatch(/(^|\r\n|,)=HYPERLINK/);

    const unchanged = await postCsv(env, token, 'assets', download, 'check', 'assets.csv');
    expect(unchanged.status, unchanged.text).toBe(200);
    expect(unchanged.data.counts.unchanged).toBe(unchanged.data.total);

    const edited = download.replace(`,${first},`, `,${first} (edited),`);
    const checked = await postCsv(env, token, 'assets', edited, 'check', 'assets.csv', '&outcome=update');
    expect(checked.data.counts.update).toBe(1);
    expect(checked.data.counts.unchanged).toBe(unchanged.data.total - 1);
    const update = checked.data.rows.find((r) => r.outcome === 'update')!;
    expect(update.changes).toEqual([{ column: 'name', old: first, new: `${first} (edited)` }]);
    expect((await postCsv(env, token, 'assets', edited, 'apply', 'assets.csv')).status).toBe(200);
    const [stored] = await env.ctx.db.select().from(assets).where(eq(assets.name, `${first} (edited)`));
    expect(stored.description).toBe('multi\nline, with comma');
  });

  test('risks round-trip too: levels, classification, owner and status written as the import reads them', async () => {
    const { signedInBrowser } = await import('../helpers/browser');
    const { ADMIN_EMAIL, ADMIN_PASSWORD } = await import('../helpers/app');
    // Read on assets and business units too: the download names the links of every risk, other tests' included.
    const riskToken = await makeToken(env, await adminActor(env), ['risks:create', 'risks:update', 'risks:read', 'assets:read', 'businessUnits:read']);
    const title = unique('Risk round trip');
    const seed = `title,classification,inherent_likelihood,inherent_impact,owner,status\n${title},Operational,Likely,Minor,${ADMIN_EMAIL},closed\n`;
    expect((await postCsv(env, riskToken, 'risks', seed, 'apply')).status).toBe(200);
    const b = await signedInBrowser(env, ADMIN_EMAIL, ADMIN_PASSWORD);
    const download = await (await b.get('/risks/import/current.csv')).text();
    const again = await postCsv(env, riskToken, 'risks', download, 'check');
    expect(again.data.counts.unchanged, again.text.slice(0, 500)).toBe(again.data.total);
    const edited = download.replace(`${title},,Operational,4,2,`, `${title},,Operational,4,Major,`);
    expect(edited).not.toBe(download);
    const checked = await postCsv(env, riskToken, 'risks', edited, 'check', 'test.csv', '&outcome=update');
    expect(checked.data.counts.update).toBe(1);
    expect(checked.data.rows.find((r) => r.outcome === 'update')?.changes).toEqual([{ column: 'inherent_impact', old: '2', new: '4' }]);
  });
});

describe('Download limit', () => {
  /** A type whose writer holds `stored` records and notes the limit it was asked for. */
  const holding = (stored: number, asked: number[]): ImportType => ({
    ...controlImport,
    writer: (): ImportWriter => ({
      label: 'Thing',
      stored: async () => new Map(),
      create: async () => [],
      update: async () => [],
      current: async (_db, _actor, limit) => {
        asked.push(limit);
        return Array.from({ length: Math.min(stored, limit) }, (_, i) => ({ id: `id-${i + 1}`, name: `Thing ${i + 1}` }));
      },
    }),
  });

  test(`a download holds at most ${DOWNLOAD_LIMIT} records, oldest first, and says when there were more`, async () => {
    const admin = await adminActor(env);
    for (const [stored, truncated] of [[DOWNLOAD_LIMIT + 1, true], [DOWNLOAD_LIMIT, false], [2, false]] as const) {
      const asked: number[] = [];
      const download = await csvCurrentRecords(env.ctx.db, holding(stored, asked), admin);
      const rows = parseCsv(download.csv).rows;
      expect(asked, String(stored)).toEqual([DOWNLOAD_LIMIT + 1]);
      expect([rows.length, download.truncated], String(stored)).toEqual([Math.min(stored, DOWNLOAD_LIMIT), truncated]);
      expect(rows.at(-1)?.cells.slice(0, 2), String(stored)).toEqual([`id-${Math.min(stored, DOWNLOAD_LIMIT)}`, `Thing ${Math.min(stored, DOWNLOAD_LIMIT)}`]);
      // A field the record does not hold is a blank cell.
      expect(rows.at(-1)?.cells.slice(2).filter((cell) => cell !== ''), String(stored)).toEqual([]);
    }
  });

  test('a download needs the read right', async () => {
    const writer = await makeUser(env, { 'controls:create': 'all', 'controls:update': 'all' });
    const refused = await csvCurrentRecords(env.ctx.db, holding(1, []), await writer.actor()).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: 'FORBIDDEN', deniedReason: 'user right controls:read missing' });
  });
});

describe('Allowed values', () => {
  test('a stored key and its label as the screens show it are both accepted', () => {
    expect(matchAllowed(['non_compliant', 'compliant'], 'Non-compliant')).toEqual({ value: 'non_compliant' });
    expect(matchAllowed(['non_compliant', 'compliant'], 'non_compliant')).toEqual({ value: 'non_compliant' });
    expect(matchAllowed(['in_progress'], 'In progress')).toEqual({ value: 'in_progress' });
    expect(matchAllowed(['open'], 'Shut')).toEqual({ problem: '"Shut" is not one of: open' });
  });
});
