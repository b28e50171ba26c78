import { headerScore, layoutOf, type Layout } from './bankColumns.js';
import type { Add, CsvLayoutFlags } from './bankCsv.js';
import type { RawRecord } from './csvParser.js';

/** Where a bank CSV's table is: its delimiter, its header (after any title lines), its rows. */

const DELIMITERS = [',', ';', '\t', '|'];

/**
 * The delimiter given, else the one that splits the file's first lines alike into most columns
 * (counted outside quotes, line by line: one malformed line does not hide the rest).
 */
export function delimiterOf(text: string, given: string | null): string {
  if (given) return given;
  const lines = text
    .slice(0, 16_384)
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .slice(0, 30);
  let best = ',';
  let bestScore = 0;
  for (const d of DELIMITERS) {
    const counts = new Map<number, number>();
    for (const line of lines) {
      let n = 1;
      let quoted = false;
      for (const ch of line) {
        if (ch === '"') quoted = !quoted;
        else if (ch === d && !quoted) n++;
      }
      if (n > 1) counts.set(n, (counts.get(n) ?? 0) + 1);
    }
    for (const [n, k] of counts)
      if (k * Math.log2(n) > bestScore) [best, bestScore] = [d, k * Math.log2(n)];
  }
  return best;
}

export const blank = (x: RawRecord) => x.cells.every((c) => c.trim() === '');

/** The header (or the columns' numbers), the roles of its columns, and the rows after it. */
/** How many of a file's first rows may come before its header. */
const HEADER_WITHIN = 50;

export function headerOf(
  records: RawRecord[],
  flags: CsvLayoutFlags,
  add: Add,
): {
  header: string[];
  layout: Layout;
  body: RawRecord[];
  passedOver: number[];
  headerRow: number | null;
} | null {
  const filled = records.filter((x) => !blank(x));
  // The first row that names a date and an amount (`--map` applied) is the header, title lines
  // before it; when none does, the first that names some role, whose missing columns are named.
  // A bank puts a few title lines before its header, never pages of them: the first rows are read.
  const scores = flags.noHeader
    ? []
    : filled.slice(0, HEADER_WITHIN).map((x) => headerScore(x.cells, flags.map));
  const best = [2, 1].map((n) => scores.indexOf(n)).find((i) => i >= 0);
  const found = flags.noHeader ? 0 : best;
  const at = flags.skipRows ?? found ?? 0;
  const first = filled[at];
  if (!first) {
    add(1, '', 'empty_file', 'the file has no statement lines');
    return null;
  }
  const index = records.indexOf(first);
  const widest = Math.max(...filled.map((x) => x.cells.length));
  const header = flags.noHeader
    ? Array.from({ length: widest }, (_, i) => String(i + 1))
    : first.cells.map((c) => c.trim());
  const layout = layoutOf(header, flags.map, flags.noHeader);
  if ('unknownSource' in layout) {
    const where = flags.noHeader ? 'the file' : 'the header';
    add(
      first.row,
      '--map',
      'unknown_column',
      `--map: no column '${layout.unknownSource}' in ${where}`,
    );
    return null;
  }
  const missing: [string, string][] = [];
  if (layout.date === null)
    missing.push(['date', 'date (date, posting date, Buchungstag, Datum, …)']);
  if (layout.amount === null && (layout.deposit === null || layout.withdrawal === null))
    missing.push(['amount', 'amount (amount, or deposit and withdrawal; Betrag, Montant, …)']);
  for (const [path, what] of missing)
    add(
      flags.noHeader ? 1 : first.row,
      path,
      'missing_column',
      `no ${what} column among ${header.map((h) => `'${h}'`).join(', ')}: name one with ` +
        `--map SOURCE=${path}`,
    );
  if (missing.length) return null;
  const before = records.slice(0, flags.noHeader ? index : index + 1);
  return {
    header,
    layout,
    body: records.slice(flags.noHeader ? index : index + 1),
    passedOver: flags.noHeader
      ? before.filter((x) => !blank(x)).map((x) => x.row)
      : before
          .slice(0, -1)
          .filter((x) => !blank(x))
          .map((x) => x.row),
    headerRow: flags.noHeader ? null : first.row,
  };
}
