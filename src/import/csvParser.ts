const QUOTE = 34;
const LF = 10;
const CR = 13;

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

  constructor(delimiter: string) {
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

  private parse(final: boolean): RawRecord[] {
    const s = this.buf;
    const len = s.length;
    const d = this.delim;
    const out: RawRecord[] = [];
    let pos = 0;
    records: while (pos < len) {
      const cells: string[] = [];
      let p = pos;
      const row = this.row + 1;
      for (;;) {
        if (p < len && s.charCodeAt(p) === QUOTE) {
          let q = p + 1;
          let value = '';
          for (;;) {
            const close = s.indexOf('"', q);
            if (close === -1) {
              if (!final) break records;
              throw this.syntaxError(
                row,
                'a quoted field is not closed before the end of the file',
                out,
              );
            }
            if (close + 1 >= len && !final) break records;
            if (s.charCodeAt(close + 1) === QUOTE) {
              value += s.slice(q, close + 1);
              q = close + 2;
              continue;
            }
            value += s.slice(q, close);
            p = close + 1;
            break;
          }
          cells.push(value);
          if (p >= len) {
            if (!final) break records;
            break;
          }
          const c = s.charCodeAt(p);
          if (c === d) {
            p++;
            continue;
          }
          if (c === LF) {
            p++;
            break;
          }
          if (c === CR) {
            if (p + 1 >= len && !final) break records;
            p += s.charCodeAt(p + 1) === LF ? 2 : 1;
            break;
          }
          throw this.syntaxError(row, `unexpected character '${s[p]}' after a closing quote`, out);
        }
        let q = p;
        let c = 0;
        while (q < len) {
          c = s.charCodeAt(q);
          if (c === d || c === LF || c === CR) break;
          if (c === QUOTE)
            throw this.syntaxError(
              row,
              'a quote inside an unquoted field (quote the whole field and double the quote)',
              out,
            );
          q++;
        }
        if (q >= len && !final) break records;
        cells.push(s.slice(p, q));
        if (q >= len) {
          p = q;
          break;
        }
        if (c === d) {
          p = q + 1;
          if (p >= len && final) {
            cells.push('');
            break;
          }
          continue;
        }
        if (c === CR) {
          if (q + 1 >= len && !final) break records;
          p = s.charCodeAt(q + 1) === LF ? q + 2 : q + 1;
        } else p = q + 1;
        break;
      }
      this.row = row;
      out.push({ row, cells });
      pos = p;
    }
    this.buf = pos >= len ? '' : s.slice(pos);
    return out;
  }
}
