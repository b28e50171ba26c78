const QUOTE = 34;
const LF = 10;
const CR = 13;

/** The most a cell may hold: far beyond any memo or name, and what keeps a stray quote cheap. */
export const MAX_CELL_CHARS = 65_536;
/** The most one row may hold. */
export const MAX_RECORD_CHARS = 1_048_576;

const notText = (row: number) =>
  new CsvSyntaxError(
    row,
    'the row is not UTF-8 text (save the file as CSV UTF-8)',
    'invalid_encoding',
  );

/** A record of the file with its spreadsheet row number (the header is row 1). */
export interface RawRecord {
  row: number;
  cells: string[];
}

/** Malformed CSV, with the row where parsing stopped. */
export class CsvSyntaxError extends Error {
  constructor(
    readonly row: number,
    message: string,
    readonly reason: 'malformed_csv' | 'invalid_encoding' = 'malformed_csv',
  ) {
    super(message);
  }
}

/**
 * An RFC 4180 CSV parser fed in chunks: quoted fields with `""` escapes and line breaks, CRLF or LF,
 * a UTF-8 BOM, any one-character delimiter. Records come out as soon as they are complete, so memory
 * holds one chunk, never the file. Unquoted fields are cut with indexOf-style scans, which is what
 * makes a million-line file parse in about a second where a general-purpose parser took several.
 */
export class CsvParser {
  private buf = '';
  private row = 0;
  private first = true;
  private readonly decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
  /** Set once bytes that are not UTF-8 were read (as replacement characters): the record holding one is refused. */
  private invalid = false;
  private readonly delim: number;

  /**
   * `quotesInText`: a quote inside an unquoted field is a character of it (`Firma"`), as spreadsheet
   * programs read one, for files no one edits by hand (a bank's export); else it is refused.
   */
  constructor(
    delimiter: string,
    private readonly options: { quotesInText?: boolean } = {},
  ) {
    this.delim = delimiter.charCodeAt(0);
  }

  /** Parses a chunk; returns the records it completed. */
  push(chunk: Buffer | string): RawRecord[] {
    let text = typeof chunk === 'string' ? chunk : this.decode(chunk, true);
    if (this.first && text.length > 0) {
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      this.first = false;
    }
    this.buf = this.buf.length ? this.buf + text : text;
    return this.checked(this.parse(false));
  }

  /** Parses what is left at the end of input. */
  end(): RawRecord[] {
    this.buf += this.decode(new Uint8Array(0), false);
    return this.checked(this.parse(true));
  }

  /**
   * Text of a chunk. A spreadsheet saved in another encoding (Windows-1252 from Excel, say) is not
   * read with replacement characters, which would change names and memos without a word: the bytes
   * are kept as U+FFFD only to find the record they fall in, which is then refused by row.
   */
  private decode(bytes: Uint8Array, stream: boolean): string {
    if (!this.invalid) {
      try {
        return this.decoder.decode(bytes, { stream });
      } catch {
        this.invalid = true;
      }
    }
    return new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  }

  private checked(records: RawRecord[]): RawRecord[] {
    if (!this.invalid) return records;
    for (const r of records) if (r.cells.some((c) => c.includes('\ufffd'))) throw notText(r.row);
    return records;
  }

  /**
   * The error for malformed CSV at a row. Bytes that are not text (a binary file, another encoding)
   * make stray quotes too: then the first row holding such bytes is named as not UTF-8 instead.
   */
  private syntaxError(row: number, message: string, completed: RawRecord[]): CsvSyntaxError {
    if (!this.invalid) return new CsvSyntaxError(row, message);
    const first = completed.find((r) => r.cells.some((c) => c.includes('\ufffd')));
    return notText(first?.row ?? row);
  }

  /**
   * Cuts the complete records out of the buffer; an incomplete last one waits for the next chunk.
   * Each chunk is scanned once: a record that stays incomplete is bounded by MAX_RECORD_CHARS, so
   * that an unclosed quote or a file without line breaks fails at once instead of being rescanned
   * with every chunk.
   */
  private parse(final: boolean): RawRecord[] {
    const s = this.buf;
    const out: RawRecord[] = [];
    let pos = 0;
    while (pos < s.length) {
      const row = this.row + 1;
      const cells = this.record(s, pos, final, row, out);
      if (cells === null) {
        if (s.length - pos > MAX_RECORD_CHARS)
          throw this.syntaxError(row, tooLong('row', MAX_RECORD_CHARS), out);
        break;
      }
      this.row = row;
      out.push({ row, cells });
      pos = this.at;
    }
    this.buf = pos >= s.length ? '' : s.slice(pos);
    return out;
  }

  /** Where the field or record just read ends (a field and not an object per cell: a million rows read faster). */
  private at = 0;

  /** One record from `pos` (its end in `at`), or null when it is not complete yet. */
  private record(
    s: string,
    pos: number,
    final: boolean,
    row: number,
    out: RawRecord[],
  ): string[] | null {
    const cells: string[] = [];
    let p = pos;
    for (;;) {
      const value =
        s.charCodeAt(p) === QUOTE
          ? this.quoted(s, p, final, row, out)
          : this.plain(s, p, final, row, out);
      if (value === null) return null;
      cells.push(value);
      p = this.at;
      if (p >= s.length) return final ? cells : null;
      const c = s.charCodeAt(p);
      if (c === this.delim) {
        this.at = ++p;
        if (p >= s.length && final) {
          cells.push('');
          return cells;
        }
        continue;
      }
      if (c === LF) this.at = p + 1;
      else if (p + 1 >= s.length && !final)
        return null; // CR, perhaps followed by LF in the next chunk
      else this.at = s.charCodeAt(p + 1) === LF ? p + 2 : p + 1;
      return cells;
    }
  }

  /** A quoted field from its opening quote: `""` is a quote; what follows the closing quote must end the field. */
  private quoted(
    s: string,
    p: number,
    final: boolean,
    row: number,
    out: RawRecord[],
  ): string | null {
    let q = p + 1;
    let value = '';
    for (;;) {
      const close = s.indexOf('"', q);
      if (close === -1 || close - p > MAX_CELL_CHARS) {
        if (close === -1 && s.length - p <= MAX_CELL_CHARS) {
          if (!final) return null;
          throw this.syntaxError(
            row,
            'a quoted field is not closed before the end of the file',
            out,
          );
        }
        throw this.syntaxError(
          row,
          `${tooLong('cell', MAX_CELL_CHARS)}; is a closing quote missing?`,
          out,
        );
      }
      if (close + 1 >= s.length && !final) return null;
      if (s.charCodeAt(close + 1) === QUOTE) {
        value += s.slice(q, close + 1);
        q = close + 2;
        continue;
      }
      const next = s.charCodeAt(close + 1);
      if (close + 1 < s.length && next !== this.delim && next !== LF && next !== CR) {
        throw this.syntaxError(
          row,
          `unexpected character '${s[close + 1]}' after a closing quote`,
          out,
        );
      }
      this.at = close + 1;
      return value + s.slice(q, close);
    }
  }

  /** An unquoted field: up to the delimiter or the end of the line; a quote inside is refused. */
  private plain(
    s: string,
    p: number,
    final: boolean,
    row: number,
    out: RawRecord[],
  ): string | null {
    const d = this.delim;
    let q = p;
    while (q < s.length) {
      const c = s.charCodeAt(q);
      if (c === d || c === LF || c === CR) break;
      if (c === QUOTE && !this.options.quotesInText) {
        throw this.syntaxError(
          row,
          'a quote inside an unquoted field (quote the whole field and double the quote)',
          out,
        );
      }
      q++;
    }
    if (q - p > MAX_CELL_CHARS) throw this.syntaxError(row, tooLong('cell', MAX_CELL_CHARS), out);
    if (q >= s.length && !final) return null;
    this.at = q;
    return s.slice(p, q);
  }
}

const tooLong = (what: string, limit: number) =>
  `a ${what} is longer than ${limit.toLocaleString('en')} characters, the most a CSV ${what} may hold`;
