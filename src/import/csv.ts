import type { Readable } from 'node:stream';
import { BooksError, type Problem } from '../domain/errors.js';
import { CsvParser, CsvSyntaxError, type RawRecord } from './csvParser.js';

export interface CsvRecord {
  /** Row as a spreadsheet shows it: the header is row 1, the first data row is row 2. */
  row: number;
  /** Cells in the header's column order; a ragged row may have fewer or more. */
  cells: string[];
  /** Problems of the row's shape (ragged), or null; the caller adds those of its values. */
  problems: Problem[] | null;
}

/** Records read so far, with the file's header (lower-cased column names) they are cut by. */
export interface CsvBatch {
  header: string[];
  records: CsvRecord[];
  /** The header's cells as the file writes them (for messages). */
  names?: string[];
}

/** A record's cells by column name, for callers that read few rows (charts, counterparties). */
export function valuesOf(header: string[], record: CsvRecord): Record<string, string> {
  const values: Record<string, string> = {};
  for (let i = 0; i < header.length; i++) values[header[i]!] = record.cells[i] ?? '';
  return values;
}

export interface CsvSpec {
  file: string;
  delimiter?: string;
  /** Every column the file may have (lower case). */
  columns: readonly string[];
  /** Columns that must be present. */
  required: readonly string[];
  /** Any column is read (another system's file, whose columns a preset or --map reads). */
  acceptAny?: boolean;
  /** Columns of a family the file may also have, by name (a native file's `tag:KEY`). */
  family?: RegExp;
  /** Told the size of each chunk read, for progress. */
  onBytes?: (n: number) => void;
}

/** `;`, `,`, `tab` or `\t` as a delimiter character; anything longer is a usage error. */
export function delimiterOf(flag: string | undefined): string {
  if (flag === undefined) return ',';
  if (flag === 'tab' || flag === '\\t') return '\t';
  if ([...flag].length !== 1)
    throw new BooksError('usage', `--delimiter takes one character (or 'tab'), not '${flag}'`);
  return flag;
}

/**
 * Streams a CSV file in batches of records, cells by column position: UTF-8 with or without BOM, CRLF
 * or LF, a case-insensitive header checked against its CsvSpec (unknown, duplicate and missing columns
 * refused, naming them).
 * Blank lines are skipped but still counted, so row numbers match a spreadsheet. Malformed quoting
 * ends the read with an error naming the row.
 */
export async function* readCsv(input: Readable, spec: CsvSpec): AsyncGenerator<CsvBatch> {
  const parser = new CsvParser(spec.delimiter ?? ',');
  let header: string[] | null = null;
  let names: string[] = [];
  const shape = (raw: RawRecord[]): CsvBatch | null => {
    const records: CsvRecord[] = [];
    for (const { row, cells } of raw) {
      if (header === null) {
        header = checkHeader(cells, spec);
        names = cells.map((c) => c.trim());
        continue;
      }
      if (cells.length === 1 && cells[0] === '') continue;
      const problems =
        cells.length === header.length
          ? null
          : [
              {
                file: spec.file,
                row,
                path: '',
                reason: 'ragged_row',
                message: `has ${cells.length} cells; the header has ${header.length}`,
                code: 'invalid_input',
              },
            ];
      records.push({ row, cells, problems });
    }
    return header && records.length ? { header, records, names } : null;
  };
  try {
    for await (const chunk of input) {
      spec.onBytes?.((chunk as Buffer | string).length);
      const batch = shape(parser.push(chunk as Buffer | string));
      if (batch) yield batch;
    }
    const rest = shape(parser.end());
    if (rest) yield rest;
  } catch (e) {
    if (e instanceof CsvSyntaxError) {
      throw new BooksError(
        'invalid_input',
        `${spec.file}:${e.row}: the CSV cannot be read: ${e.message}`,
        [
          {
            file: spec.file,
            row: e.row,
            path: '',
            reason: e.reason,
            message: e.message,
            code: 'invalid_input',
          },
        ],
      );
    }
    throw e;
  }
  if (header === null) {
    throw new BooksError(
      'invalid_input',
      `${spec.file} is empty; it needs a header row (${spec.required.join(', ')}, ...)`,
      [
        {
          file: spec.file,
          row: 1,
          path: '',
          reason: 'empty_file',
          message: 'no header row',
          code: 'invalid_input',
        },
      ],
    );
  }
}

function checkHeader(cells: string[], spec: CsvSpec): string[] {
  const header = cells.map((c) => c.trim().toLowerCase());
  const problems: Problem[] = [];
  const add = (path: string, reason: string, message: string) =>
    problems.push({ file: spec.file, row: 1, path, reason, message, code: 'invalid_input' });
  // A whole header in one cell, split by another delimiter than the one read: say which to use.
  for (const d of [';', '\t', ',', '|']) {
    const parts = header.length === 1 ? header[0]!.split(d) : [];
    if (d === (spec.delimiter ?? ',') || !parts.some((p) => spec.columns.includes(p.trim())))
      continue;
    const flag = d === '\t' ? 'tab' : d;
    const message = `the header is one column: the file looks '${flag}'-separated; read it with --delimiter '${flag}'`;
    add('', 'wrong_delimiter', message);
    throw new BooksError('invalid_input', `${spec.file}: ${message}`, problems);
  }
  const seen = new Set<string>();
  header.forEach((h, i) => {
    if (!spec.acceptAny && !spec.columns.includes(h) && !spec.family?.test(h))
      add(
        h,
        'unknown_column',
        `unknown column '${cells[i]}' (columns: ${spec.columns.join(', ')})`,
      );
    else if (seen.has(h)) add(h, 'duplicate_column', `column '${h}' appears twice`);
    seen.add(h);
  });
  for (const r of spec.required)
    if (!seen.has(r)) add(r, 'missing_column', `required column '${r}' is missing`);
  if (problems.length) {
    throw new BooksError('invalid_input', `${spec.file}: the header row is not valid`, problems);
  }
  return header;
}
