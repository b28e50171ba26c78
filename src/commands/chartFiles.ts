import { createReadStream } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context } from '../cli/context.js';
import { chartRefused, type ChartRecord } from '../domain/chart.js';
import type { Problem } from '../domain/errors.js';
import { delimiterOf, readCsv, valuesOf } from '../import/csv.js';
import { openInput } from './io.js';

/** The built-in standard chart shipped with books. */
export const STANDARD_CHART = fileURLToPath(
  new URL('../../fixtures/charts/standard.csv', import.meta.url),
);

/**
 * The records of a chart or counterparties file, by column name; a file whose rows cannot be read
 * (ragged rows, a bad header) is refused with every problem by row.
 */
export async function readRecords(
  ctx: Context,
  path: string,
  spec: { columns: readonly string[]; required: readonly string[]; delimiter?: string | undefined },
): Promise<{ records: ChartRecord[]; name: string }> {
  const standard = path === STANDARD_CHART;
  const { stream, name } = standard
    ? { stream: createReadStream(path), name: 'standard chart' }
    : openInput(ctx, path);
  const records: ChartRecord[] = [];
  const problems: Problem[] = [];
  const csv = readCsv(stream, {
    file: name,
    columns: spec.columns,
    required: spec.required,
    delimiter: delimiterOf(spec.delimiter),
  });
  for await (const { header, records: batch } of csv) {
    for (const r of batch) {
      records.push({ row: r.row, values: valuesOf(header, r) });
      if (r.problems) problems.push(...r.problems);
    }
  }
  if (problems.length) throw chartRefused(name, problems);
  return { records, name };
}
