import { describe, expect, it } from 'vitest';
import { CsvParser, CsvSyntaxError, type RawRecord } from '../../src/import/csvParser.js';

/** Feeds text in pieces of every size from 1 up, so that every chunk boundary is crossed. */
function parseAll(text: string, delimiter = ','): RawRecord[][] {
  const results: RawRecord[][] = [];
  for (const size of [1, 2, 3, 7, text.length || 1]) {
    const p = new CsvParser(delimiter);
    const out: RawRecord[] = [];
    const bytes = Buffer.from(text, 'utf8');
    for (let i = 0; i < bytes.length; i += size) out.push(...p.push(bytes.subarray(i, i + size)));
    out.push(...p.end());
    results.push(out);
  }
  return results;
}

function parse(text: string, delimiter = ','): string[][] {
  const [first, ...rest] = parseAll(text, delimiter);
  for (const r of rest) expect(r).toEqual(first);
  return first!.map((r) => r.cells);
}

describe('CsvParser', () => {
  it('reads plain, quoted and empty fields with LF or CRLF, with or without a final newline', () => {
    expect(parse('a,b,c\n1,2,3\n')).toEqual([
      ['a', 'b', 'c'],
      ['1', '2', '3'],
    ]);
    expect(parse('a,b\r\n1,"x, y"\r\n,\r\n"",""')).toEqual([
      ['a', 'b'],
      ['1', 'x, y'],
      ['', ''],
      ['', ''],
    ]);
    expect(parse('a,b,\n')).toEqual([['a', 'b', '']]);
  });

  it('keeps doubled quotes and line breaks inside quoted fields, counting one row per record', () => {
    const [records] = parseAll('memo,n\n"He said ""hi""",1\n"two\r\nlines",2\n\n"é ✓",3');
    expect(records!.map((r) => [r.row, ...r.cells])).toEqual([
      [1, 'memo', 'n'],
      [2, 'He said "hi"', '1'],
      [3, 'two\r\nlines', '2'],
      [4, ''],
      [5, 'é ✓', '3'],
    ]);
  });

  it('drops a UTF-8 byte-order mark and splits on another delimiter', () => {
    expect(parse('\ufeffa;b\n1,5;2\n', ';')).toEqual([
      ['a', 'b'],
      ['1,5', '2'],
    ]);
    expect(parse('a\tb\n1\t2', '\t')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ]);
  });

  it.each([
    ['an unclosed quote', 'a,b\n1,"open\n', 2, 'not closed'],
    ['text after a closing quote', 'a,b\n"x"y,1\n', 2, "unexpected character 'y'"],
    ['a quote inside an unquoted field', 'a,b\n1,2\nab"c,3\n', 3, 'quote inside an unquoted field'],
  ])('refuses %s, naming the row', (_n, text, row, message) => {
    for (const size of [1, 4, 100]) {
      const p = new CsvParser(',');
      const bytes = Buffer.from(text);
      let error: unknown;
      try {
        for (let i = 0; i < bytes.length; i += size) p.push(bytes.subarray(i, i + size));
        p.end();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CsvSyntaxError);
      expect((error as CsvSyntaxError).row).toBe(row);
      expect((error as Error).message).toContain(message);
    }
  });
});
