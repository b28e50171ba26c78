import type { CsvRecord } from './csv.js';
import { cell, type Layout } from './layout.js';

/**
 * The `tag:KEY` cells of an entry's rows: the entry's tag where every row gives the same value, else
 * each row's own (a blank cell: none on that line). Effective tags are what a file says either way.
 */
export function tagCells(
  records: CsvRecord[],
  l: Layout,
  body: Record<string, unknown>,
  lines: Record<string, unknown>[],
): void {
  // Each key's cells row by row: a file's tag:KEY columns, then the tags a preset read (JSON).
  const columns = new Map<string, string[]>();
  for (const [key, i] of l.tags)
    columns.set(
      key,
      records.map((r) => cell(r, i).trim()),
    );
  if (l.tagsAt >= 0)
    records.forEach((r, n) => {
      const json = cell(r, l.tagsAt);
      if (!json) return;
      for (const [key, v] of Object.entries(JSON.parse(json) as Record<string, string>)) {
        let values = columns.get(key);
        if (!values) columns.set(key, (values = records.map(() => '')));
        values[n] = v;
      }
    });
  let entryTags: Record<string, string> | null = null;
  for (const [key, values] of columns) {
    const first = values[0]!;
    let same = first !== '';
    for (let n = 1; n < values.length && same; n++) same = values[n] === first;
    if (same) (entryTags ??= {})[key] = first;
    else
      values.forEach((v, n) => {
        if (v === '') return;
        const line = lines[n]!;
        ((line.tags as Record<string, string> | undefined) ?? (line.tags = {}))[key] = v;
      });
  }
  if (entryTags) body.tags = entryTags;
}
