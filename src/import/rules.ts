import { BooksError, type Problem } from '../domain/errors.js';
import type { CreateRule } from '../ledger/port.js';
import { CsvParser, CsvSyntaxError } from './csvParser.js';

const COLUMNS = ['pattern', 'offset_account', 'counterparty', 'memo'];

/** The rules file of `reconcile create --rules`: pattern,offset_account,counterparty,memo. */
export function readRules(text: string, file: string): CreateRule[] {
  const refuse = (problems: Problem[]): never => {
    throw new BooksError(
      'invalid_input',
      problems.length === 1
        ? `${file}:${problems[0]!.row ?? 1}: ${problems[0]!.message}`
        : `${file}: ${problems.length} problems`,
      problems,
    );
  };
  const parser = new CsvParser(',');
  let records;
  try {
    records = [...parser.push(text), ...parser.end()];
  } catch (e) {
    if (!(e instanceof CsvSyntaxError)) throw e;
    return refuse([{ file, row: e.row, path: '', reason: e.reason, message: e.message }]);
  }
  const [head, ...rows] = records;
  const header = head?.cells.map((c) => c.trim().toLowerCase()) ?? [];
  const problems: Problem[] = [];
  header.forEach((h) => {
    if (!COLUMNS.includes(h))
      problems.push({
        file,
        row: 1,
        path: h,
        reason: 'unknown_column',
        message: `unknown column '${h}' (columns: ${COLUMNS.join(', ')})`,
      });
  });
  for (const c of ['pattern', 'offset_account'])
    if (!header.includes(c))
      problems.push({
        file,
        row: 1,
        path: c,
        reason: 'missing_column',
        message: `required column '${c}' is missing`,
      });
  if (problems.length) refuse(problems);
  const at = (cells: string[], c: string) => cells[header.indexOf(c)]?.trim() ?? '';
  const rules = rows
    .filter((r) => !(r.cells.length === 1 && r.cells[0] === ''))
    .map((r) => ({
      row: r.row,
      pattern: at(r.cells, 'pattern'),
      offset_account: at(r.cells, 'offset_account'),
      counterparty: at(r.cells, 'counterparty') || null,
      memo: at(r.cells, 'memo') || null,
    }));
  if (rules.length === 0)
    refuse([{ file, row: 1, path: '', reason: 'empty_file', message: 'the file has no rules' }]);
  return rules;
}
