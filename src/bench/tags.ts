import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { httpBench, type HttpResult } from './http.js';
import {
  bin,
  data,
  fmt,
  freshLedger,
  rounds,
  summary,
  time,
  type Sample,
  type Timing,
} from './measure.js';

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * The 1M-line benchmark file with three tag keys of 20 values each: `project` and `location` the
 * entry's (every row of an entry the same), `class` each line's own.
 */
async function taggedFile(dir: string): Promise<string> {
  const to = join(dir, 'tagged.csv');
  if (existsSync(to)) return to;
  const out = createWriteStream(to);
  let entry = 0;
  let last = '';
  let line = 0;
  for await (const row of createInterface({ input: createReadStream(join(dir, 'entries.csv')) })) {
    if (line++ === 0) {
      out.write(`${row},tag:project,tag:location,tag:class\n`);
      continue;
    }
    const key = row.slice(0, row.indexOf(','));
    if (key !== last) [entry, last] = [entry + 1, key];
    const tags = `p${pad((entry % 20) + 1)},l${pad(((entry * 7) % 20) + 1)},c${pad((line % 20) + 1)}`;
    if (!out.write(`${row},${tags}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return to;
}

/** The reports by tag timed on the tagged 1M-line ledger. */
const CASES: [string, string[]][] = [
  [
    'report income-statement --where project=p07, 60 monthly columns, json',
    [
      'report',
      'pnl',
      '--start',
      '2021-01-01',
      '--end',
      '2025-12-31',
      '--where',
      'project=p07',
      '--format',
      'json',
    ],
  ],
  [
    'report income-statement --columns-by project (20 values), 2025, table',
    ['report', 'pnl', '--start', '2025-01-01', '--end', '2025-12-31', '--columns-by', 'project'],
  ],
  [
    'report trial-balance --where class!=c11 as of 2025-12-31',
    ['report', 'tb', '--as-of', '2025-12-31', '--where', 'class!=c11'],
  ],
  [
    'report trial-balance --columns-by location (20 values) as of 2025-12-31, csv',
    ['report', 'tb', '--as-of', '2025-12-31', '--columns-by', 'location', '--format', 'csv'],
  ],
  [
    'report balance-sheet --where location=l03, 12 monthly columns of 2025',
    [
      'report',
      'balance-sheet',
      '--start',
      '2025-01-01',
      '--end',
      '2025-12-31',
      '--where',
      'location=l03',
    ],
  ],
  [
    'report income-statement --where project=p07 --where class=c11 (two conditions: the lines read), 2025',
    [
      'report',
      'pnl',
      '--start',
      '2025-01-01',
      '--end',
      '2025-12-31',
      '--where',
      'project=p07',
      '--where',
      'class=c11',
    ],
  ],
];

/** Posting over HTTP without and with tags, alternating, three rounds of each: their medians. */
async function posting(seconds: number): Promise<string> {
  const posts: [HttpResult[], HttpResult[]] = [[], []];
  for (let i = 0; i < 3; i++)
    for (const [n, on] of [false, true].entries())
      posts[n]!.push(await httpBench(bin, data, seconds, 8, undefined, on));
  const median = (rs: HttpResult[]) => [...rs].sort((a, b) => a.rate - b.rate)[1]!;
  const [off, on] = [median(posts[0]), median(posts[1])];
  const said = (r: HttpResult) =>
    `${r.rate.toFixed(0)} entries/s; p99 ${r.p99.toFixed(1)} ms; ${r.errors} errors`;
  const share = ((on.rate / off.rate) * 100).toFixed(0);
  return (
    '| POST /v1/journal-entries without tags / with 3 tags (2 of the entry, 1 of a line), ' +
    `8 connections, 3 × ${seconds} s alternating, medians | ${said(off)} / ${said(on)} (${share}%) | |`
  );
}

/**
 * Tags at scale: the 1M-line import with and without three tag columns (alternating), the reports by
 * tag on the tagged ledger (derived totals by tag: never a scan of the journal, but for two
 * conditions at once), and posting over HTTP with and without tags (alternating).
 */
export async function tagFigures(
  importRounds: number,
  reportRounds: number,
  seconds: number,
): Promise<string[]> {
  const dir = join(data, '1m');
  const tagged = await taggedFile(dir);
  const rows: string[] = [];
  const row = (what: string, t: Timing) => rows.push(`| ${what} | ${fmt(t)} |`);
  const plain: Sample[] = [];
  const withTags: Sample[] = [];
  let ledger = '';
  for (let i = 0; i < importRounds; i++) {
    const a = await freshLedger(dir, 'untagged.sqlite');
    plain.push(await time([bin, 'je', 'import', join(dir, 'entries.csv'), '--ledger', a]));
    ledger = await freshLedger(dir, 'tagged.sqlite');
    withTags.push(await time([bin, 'je', 'import', tagged, '--ledger', ledger]));
  }
  const [p, t] = [summary(plain), summary(withTags)];
  row(`je import of the 1M-line file, without tags (${importRounds} runs, alternating)`, p);
  const ratio = (t.median / p.median).toFixed(2);
  row(`je import of the same with 3 tag columns of 20 values (${importRounds} runs; ${ratio}×)`, t);
  const out = ['--ledger', ledger, '--output', join(dir, 'tags.out')];
  for (const [what, args] of CASES) {
    await time([bin, ...args, ...out]);
    row(
      `${what} (1M tagged lines, ${reportRounds} runs)`,
      await rounds(reportRounds, [bin, ...args, ...out]),
    );
  }
  rows.push(await posting(seconds));
  return rows;
}
