import { describe, expect, test } from 'bun:test';
import { CSV_LIMITS, CsvRefusal, decodeCsv, openCsv, parseCsv } from '../../src/platform/csv/parse';

// The file rules of every CSV import, without a database (the same rules through the API: files.test.ts).

const bytes = (text: string) => new TextEncoder().encode(text);

/** The refusal's message, or undefined when the file was accepted. */
function refusalOf(run: () => unknown): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    if (!(error instanceof CsvRefusal)) throw error;
    return error.message;
  }
}

describe('the bytes of an upload', () => {
  test('UTF-8 with or without a byte order mark is read; the mark is not part of the first column name', () => {
    expect(decodeCsv(bytes('name\nx'))).toBe('name\nx');
    expect(openCsv(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('name\nx')])).header).toEqual(['name']);
    expect(openCsv('\uFEFFname\nx').header).toEqual(['name']);
  });

  test('only a byte order mark at the very start is dropped: a quoted first column name stays a name, a mark inside a cell is kept', () => {
    expect(openCsv(new Uint8Array([0xef, 0xbb, 0xbf, ...bytes('"name","description"\nx,y')])).header).toEqual(['name', 'description']);
    expect(openCsv('\uFEFF"name"\nx\n').header).toEqual(['name']);
    expect(parseCsv('name\nzero\uFEFFwidth\n').rows).toEqual([{ line: 2, cells: ['zero\uFEFFwidth'] }]);
  });

  test('a file whose lines hold only empty quoted cells is refused as empty, like a blank one', () => {
    expect(refusalOf(() => openCsv('""\n" "\n'))).toBe('The file is empty.');
    expect(refusalOf(() => openCsv(bytes('"",""\n')))).toBe('The file is empty.');
  });

  test('an empty file, a file of only blank space, and no bytes at all are refused as empty', () => {
    expect(refusalOf(() => decodeCsv(new Uint8Array()))).toBe('The file is empty.');
    expect(refusalOf(() => openCsv(bytes(' \r\n \n')))).toBe('The file is empty.');
    expect(refusalOf(() => openCsv(''))).toBe('The file is empty.');
  });

  test('a file over the size limit is refused with its size and the limit', () => {
    const over = new Uint8Array(CSV_LIMITS.maxBytes + 1).fill(0x61);
    expect(refusalOf(() => decodeCsv(over))).toBe('The file is 10.0 MB; the limit is 10 MB. Split it into smaller files.');
    expect(refusalOf(() => decodeCsv(new Uint8Array(CSV_LIMITS.maxBytes).fill(0x61)))).toBeUndefined();
  });

  test('text that is not UTF-8, or holds binary data, is refused saying how to save it', () => {
    expect(refusalOf(() => decodeCsv(new Uint8Array([0x6e, 0x61, 0x6d, 0xe9, 0x0a])))).toBe('The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.');
    expect(refusalOf(() => decodeCsv(bytes('name\n\u0000x')))).toBe('The file is not a CSV text file (it contains binary data).');
  });
});

describe('header, delimiter and rows', () => {
  test('the header names are trimmed; a file of only a header has no rows', () => {
    const file = openCsv(' name , description \n');
    expect(file.header).toEqual(['name', 'description']);
    expect(file.rowCount).toBe(0);
    expect(file.firstRow).toBeNull();
    expect(refusalOf(() => parseCsv('name\n'))).toBe('The file has only a header row and no records.');
  });

  test('semicolons are the delimiter when the header line has more of them than commas, outside quotes', () => {
    expect(openCsv('a;b;c\n1;2;3\n').delimiter).toBe(';');
    expect(openCsv('a,b;c\n1,2;3\n').delimiter).toBe(',');
    expect(openCsv('a;b\n1;2\n').delimiter).toBe(';');
    // Quoted delimiters do not count; a tie is a comma; the lines after the header do not count either.
    expect(openCsv('"x;y;z",b\n1,2\n').delimiter).toBe(',');
    expect(openCsv('"x,y,z";b\n1;2\n').delimiter).toBe(';');
    expect(openCsv('a;b,c\n1;2,3\n').delimiter).toBe(',');
    expect(openCsv('a\n1;2;3\n').delimiter).toBe(',');
    expect(openCsv('a,b\r\n1;2;3;4\r\n').delimiter).toBe(',');
    expect(openCsv('a;b\r1,2,3,4\r').delimiter).toBe(';');
  });

  test('each row starts on its line: quoted line breaks and skipped blank lines are counted', () => {
    const parsed = parseCsv('name,description\n\nfirst,"two\nlines"\n\n\nsecond,x\nthird,"a\r\nb"\nfourth,y');
    expect(parsed.rows).toEqual([
      { line: 3, cells: ['first', 'two\nlines'] },
      { line: 7, cells: ['second', 'x'] },
      { line: 8, cells: ['third', 'a\r\nb'] },
      { line: 10, cells: ['fourth', 'y'] },
    ]);
    expect(parsed.header).toEqual(['name', 'description']);
    expect(openCsv('name\n\n\nx\n').firstRow).toEqual({ line: 4, cells: ['x'] });
  });

  test('an unterminated quote refuses the file, naming the line where its row starts', () => {
    expect(refusalOf(() => openCsv('name,description\nok,fine\nbad,"never closed\nmore\n'))).toStartWith('Line 3: a quoted field is not closed');
    expect(refusalOf(() => openCsv('"name\nx\n'))).toStartWith('Line 1: a quoted field is not closed');
  });

  test('more rows than the limit refuse the file; exactly the limit is read', () => {
    const rows = (count: number) => `name\n${'x\n'.repeat(count)}`;
    expect(openCsv(rows(CSV_LIMITS.maxRows)).rowCount).toBe(CSV_LIMITS.maxRows);
    expect(refusalOf(() => openCsv(rows(CSV_LIMITS.maxRows + 1)))).toBe('The file has more than 50,000 rows; the limit is 50,000. Split it into smaller files.');
  });

  test('chunks hand out the rows in order, a chunk at a time, from any start', () => {
    const file = openCsv('n,v\na,1\nb,"2\n2"\nc,3\nd,4\ne,5\n');
    expect(file.rowCount).toBe(5);
    expect([...file.chunks(2)].map((chunk) => chunk.map((row) => row.cells[0]))).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
    expect([...file.chunks(2, 3)].map((chunk) => chunk.map((row) => row.line))).toEqual([[6, 7]]);
    expect([...file.chunks(10, 5)]).toEqual([]);
    expect([...file.chunks(5)]).toHaveLength(1);
    expect([...file.chunks(5)][0][1]).toEqual({ line: 3, cells: ['b', '2\n2'] });
  });

  test('CRLF files cut into chunks keep every row whole', () => {
    const file = openCsv('n;v\r\na;1\r\nb;"x\r\ny"\r\nc;3\r\n');
    expect([...file.chunks(1)].flat()).toEqual([
      { line: 2, cells: ['a', '1'] },
      { line: 3, cells: ['b', 'x\r\ny'] },
      { line: 5, cells: ['c', '3'] },
    ]);
  });
});
