/**
 * PostgreSQL's own CSV (`COPY … TO STDOUT WITH (FORMAT csv)`) rewritten, byte by byte, into the CSV every other
 * download of the service writes (write.ts): CRLF line ends; a field that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) given a leading apostrophe; quotes around a field exactly when
 * it holds a quote, comma, semicolon or line break (PostgreSQL quotes no semicolon, and quotes an empty string).
 *
 * It reads PostgreSQL's output as PostgreSQL writes it: fields split by commas, quoted with `"` (a quote inside doubled),
 * records ended by a line feed outside quotes. Nothing is decoded: the bytes of UTF-8 text pass as they are (no byte
 * of a multi-byte character is one of the ASCII bytes looked at), so a register of 100,000 rows costs one pass.
 */

const QUOTE = 34;
const COMMA = 44;
const SEMICOLON = 59;
const LF = 10;
const CR = 13;
const APOSTROPHE = 39;

/** = + - @, a tab or a carriage return: what opens a formula in a spreadsheet (write.ts guards the same). */
const opensFormula = (byte: number) => byte === 61 || byte === 43 || byte === 45 || byte === 64 || byte === 9 || byte === CR;
/** What makes write.ts quote a field: a quote, comma, semicolon, carriage return or line feed. */
const needsQuotes = (byte: number) => byte === QUOTE || byte === COMMA || byte === SEMICOLON || byte === CR || byte === LF;

/** Where the reader is in PostgreSQL's CSV. */
const enum At {
  FieldStart,
  Unquoted,
  /** Just after a quoted field's opening quote. */
  QuotedFirst,
  Quoted,
  /** After a quote inside a quoted field: a doubled quote, or the field's end. */
  QuotedQuote,
}

export class MalformedCsvError extends Error {}

/** Output gathered before it is handed on: a download is written in pieces of this size, not a row at a time. */
const PIECE = 64 * 1024;

/**
 * A rewriter keeps its place across chunks (a chunk may end anywhere, even inside a field): `write` takes the next
 * chunk and gives the completed records once PIECE bytes of them are ready; `end` gives the rest.
 */
export class PostgresCsvRewriter {
  private out = new Uint8Array(PIECE * 2);
  private length = 0;
  /** Where the last whole record ends in `out`: only whole records are handed on. */
  private recordEnd = 0;
  /** Where the current field starts in `out` (its opening quote, when it has one). */
  private fieldStart = 0;
  private at = At.FieldStart;
  /** A quoted field whose text needs its quotes kept; an unquoted one given quotes (it holds a semicolon). */
  private quoted = false;

  write(chunk: Uint8Array): Uint8Array | undefined {
    // Each byte gives at most three ("a;" rewritten as "\"a;\"" grows by two bytes per one-byte field).
    this.reserve(chunk.length * 3 + 8);
    const out = this.out;
    let o = this.length;
    let at = this.at;
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i];
      switch (at) {
        case At.FieldStart:
          this.fieldStart = o;
          if (byte === QUOTE) {
            out[o++] = QUOTE;
            this.quoted = false;
            at = At.QuotedFirst;
          } else if (byte === COMMA) {
            out[o++] = COMMA;
          } else if (byte === LF) {
            out[o++] = CR;
            out[o++] = LF;
            this.recordEnd = o;
          } else {
            if (opensFormula(byte)) out[o++] = APOSTROPHE;
            this.quoted = false;
            o = this.unquotedByte(byte, o);
            at = At.Unquoted;
          }
          break;
        case At.Unquoted:
          if (byte === COMMA || byte === LF) {
            if (this.quoted) out[o++] = QUOTE;
            o = this.fieldEnd(byte, o);
            at = At.FieldStart;
          } else if (byte === SEMICOLON) {
            o = this.unquotedByte(byte, o);
          } else {
            out[o++] = byte;
          }
          break;
        case At.QuotedFirst:
          if (byte === QUOTE) {
            at = At.QuotedQuote;
          } else {
            if (opensFormula(byte)) out[o++] = APOSTROPHE;
            if (needsQuotes(byte)) this.quoted = true;
            out[o++] = byte;
            at = At.Quoted;
          }
          break;
        case At.Quoted:
          if (byte === QUOTE) at = At.QuotedQuote;
          else {
            if (needsQuotes(byte)) this.quoted = true;
            out[o++] = byte;
          }
          break;
        case At.QuotedQuote:
          if (byte === QUOTE) {
            // A doubled quote: a quote in the text, kept doubled inside the field's quotes.
            this.quoted = true;
            out[o++] = QUOTE;
            out[o++] = QUOTE;
            at = At.Quoted;
          } else if (byte === COMMA || byte === LF) {
            if (this.quoted) out[o++] = QUOTE;
            else {
              // Quoted by PostgreSQL for none of the reasons write.ts quotes (an empty string, "\."): written bare.
              out.copyWithin(this.fieldStart, this.fieldStart + 1, o);
              o--;
            }
            o = this.fieldEnd(byte, o);
            at = At.FieldStart;
          } else {
            throw new MalformedCsvError('a quoted field is followed by neither a comma nor the end of its line');
          }
          break;
      }
    }
    this.length = o;
    this.at = at;
    return this.recordEnd >= PIECE ? this.take() : undefined;
  }

  /** What is left: every record must be whole. */
  end(): Uint8Array | undefined {
    if (this.at !== At.FieldStart || this.length !== this.recordEnd) throw new MalformedCsvError('the CSV ends inside a record');
    return this.recordEnd ? this.take() : undefined;
  }

  /** A byte of an unquoted field (never a quote, comma or line break): a semicolon puts the field in quotes. */
  private unquotedByte(byte: number, o: number): number {
    const out = this.out;
    if (byte === SEMICOLON && !this.quoted) {
      out.copyWithin(this.fieldStart + 1, this.fieldStart, o);
      out[this.fieldStart] = QUOTE;
      o++;
      this.quoted = true;
    }
    out[o++] = byte;
    return o;
  }

  /** A comma before the next field, or the record's CRLF. */
  private fieldEnd(byte: number, o: number): number {
    if (byte === COMMA) {
      this.out[o++] = COMMA;
      return o;
    }
    this.out[o++] = CR;
    this.out[o++] = LF;
    this.recordEnd = o;
    return o;
  }

  /** The whole records so far, handed on; the record under way moves to the front. */
  private take(): Uint8Array {
    const records = this.out.slice(0, this.recordEnd);
    this.out.copyWithin(0, this.recordEnd, this.length);
    this.length -= this.recordEnd;
    this.fieldStart -= this.recordEnd;
    this.recordEnd = 0;
    return records;
  }

  private reserve(more: number): void {
    if (this.length + more <= this.out.length) return;
    const grown = new Uint8Array(Math.max(this.out.length * 2, this.length + more));
    grown.set(this.out.subarray(0, this.length));
    this.out = grown;
  }
}

/** PostgreSQL's CSV chunks as the service's CSV, in pieces of about PIECE bytes. */
export async function* rewritePostgresCsv(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  const rewriter = new PostgresCsvRewriter();
  for await (const chunk of chunks) {
    const piece = rewriter.write(chunk);
    if (piece) yield piece;
  }
  const rest = rewriter.end();
  if (rest) yield rest;
}
