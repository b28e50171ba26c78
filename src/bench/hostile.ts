import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStore } from './http.js';
import { bin, data, summary, time, type Timing } from './measure.js';

/**
 * What a hostile test pass found slow (issue 32), timed as a user meets it: OFX files of 10 MB in the
 * shapes that took minutes to read, and an automatic match of thousands of lines of one amount in a
 * week, on a ledger file and over books serve on PostgreSQL while another entity is asked meanwhile.
 */

const HEAD = 'OFXHEADER:100\nDATA:OFXSGML\n\n<OFX>';
const MB = 1 << 20;
const times = (piece: string, bytes: number) => piece.repeat(Math.ceil(bytes / piece.length));

/** 10 MB of each shape: a reading that goes back over what it read takes minutes on one of them. */
const SHAPES: [string, () => string][] = [
  ['nested tags', () => HEAD + times('<A>', 10 * MB)],
  ['comments never closed', () => HEAD + times('<!--', 10 * MB)],
  ["tags without '>'", () => HEAD + times('<A ', 10 * MB)],
  ['closing tags', () => HEAD + times('</STMTRS>', 10 * MB)],
  ['stray <', () => HEAD + '<NAME>' + times('< ', 10 * MB)],
  ['empty aggregates', () => HEAD + times('<X></X>', 10 * MB)],
  ['two aggregates alternating, never closed', () => HEAD + times('<STMTTRN><PAYEE>', 10 * MB)],
  [
    'transactions (140,000, read)',
    () =>
      HEAD +
      '<BANKMSGSRSV1><STMTTRNRS><STMTRS><BANKTRANLIST>' +
      Array.from(
        { length: 140_000 },
        (_, k) =>
          `<STMTTRN><TRNTYPE>DEBIT<DTPOSTED>20250105<TRNAMT>-1.00<FITID>T${k}<NAME>SHOP ${k}\n`,
      ).join('') +
      '</BANKTRANLIST></STMTRS></STMTTRNRS></BANKMSGSRSV1></OFX>',
  ],
];

/**
 * The ledger file's rows: each OFX shape (goal: read or refused in under 2 s) on a copy of a ledger,
 * and a match of 2,000 lines of one amount in a week (goal: under 1 s).
 */
export async function hostileFigures(
  ledger: string,
  account: string,
  n: number,
): Promise<[string, Timing][]> {
  const dir = join(data, 'hostile');
  mkdirSync(dir, { recursive: true });
  const copy = join(dir, 'ofx.sqlite');
  for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
  copyFileSync(ledger, copy);
  const rows: [string, Timing][] = [];
  for (const [what, t] of await ofxShapes(dir, copy, account, n))
    rows.push([`reconcile import --dry-run, 10 MB of OFX: ${what} (${n} runs; goal < 2 s)`, t]);
  rows.push([
    `reconcile match, ${LINES.toLocaleString('en')} lines of one amount in one week, ledger file ` +
      `(${n} runs; goal < 1 s)`,
    await matchOnFile(dir, n),
  ]);
  return rows;
}

/** `reconcile import --dry-run` of each shape, whole processes: read or refused, and how long. */
async function ofxShapes(
  dir: string,
  ledger: string,
  account: string,
  n: number,
): Promise<[string, Timing][]> {
  const out: [string, Timing][] = [];
  for (const [what, make] of SHAPES) {
    const file = join(dir, 'hostile.ofx');
    writeFileSync(file, make());
    const args = [bin, 'reconcile', 'import', file, '--account', account, '--dry-run'];
    const samples = [];
    for (let i = 0; i < n; i++)
      samples.push(await time([...args, '--ledger', ledger], undefined, [0, 1]));
    out.push([what, summary(samples)]);
    rmSync(file);
  }
  return out;
}

/** Lines of one amount in one week: every statement line could pair with every ledger line. */
const LINES = 2_000;

function books(args: string[]): string {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** A ledger's checking account with LINES equal amounts over a week, and a statement of as many. */
function sameAmounts(dir: string, at: string[]): void {
  const date = (d: number) => `2025-03-0${1 + (d % 7)}`;
  const entries = ['entry,entry_date,gl_account_id,debit,credit'];
  const statement = ['Date,Description,Amount'];
  for (let i = 0; i < LINES; i++) {
    const d = date(i * 3 + Math.floor(i / 5));
    entries.push(`E${i},${d},checking,4.75,`, `E${i},${d},sales,,4.75`);
    statement.push(`${date(i)},CARD SALE,4.75`);
  }
  writeFileSync(join(dir, 'same-entries.csv'), entries.join('\n') + '\n');
  writeFileSync(join(dir, 'same-statement.csv'), statement.join('\n') + '\n');
  books(['init', '--chart', 'standard', '--first-month', '2025-01', ...at]);
  books(['je', 'import', join(dir, 'same-entries.csv'), ...at]);
  books(['reconcile', 'import', join(dir, 'same-statement.csv'), '--account', 'checking', ...at]);
}

/** `reconcile match` of LINES same-amount lines on a ledger file, a fresh copy each round. */
async function matchOnFile(dir: string, n: number): Promise<Timing> {
  const ledger = join(dir, 'same.sqlite');
  for (const s of ['', '-wal', '-shm']) rmSync(ledger + s, { force: true });
  sameAmounts(dir, ['--ledger', ledger]);
  const copy = join(dir, 'same-copy.sqlite');
  const samples = [];
  for (let i = 0; i < n; i++) {
    for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
    copyFileSync(ledger, copy);
    samples.push(
      await time([bin, 'reconcile', 'match', '--account', 'checking', '--ledger', copy]),
    );
  }
  return summary(samples);
}

/** The match over books serve on PostgreSQL, and how long another entity's requests took meanwhile. */
export interface MatchServed {
  matchMs: number;
  matched: number;
  /** GET /v1/entity of another entity, one after another while the match ran. */
  others: { n: number; maxMs: number; p99Ms: number };
}

export async function matchServed(url: string, dir: string): Promise<MatchServed> {
  const a = ['--ledger', url, '--entity', 'match-a'];
  const b = ['--ledger', url, '--entity', 'match-b'];
  sameAmounts(dir, a);
  const both = [
    '--permission',
    'customer_api:post_journal_entries',
    '--permission',
    'customer_api:read',
  ];
  const keyA = books(['keys', 'create', ...both, ...a]).trim();
  books(['init', '--chart', 'standard', '--first-month', '2025-01', ...b]);
  const keyB = books(['keys', 'create', '--permission', 'customer_api:read', ...b]).trim();
  const server = await serveStore(bin, ['--ledger', url]);
  try {
    let running = true;
    const latencies: number[] = [];
    const asking = (async () => {
      while (running) {
        const t = performance.now();
        const r = await fetch(`${server.url}/v1/entity`, {
          headers: { Authorization: `Bearer ${keyB}` },
        });
        await r.arrayBuffer();
        latencies.push(performance.now() - t);
      }
    })();
    const started = performance.now();
    const r = await fetch(`${server.url}/v1/reconciliation/match`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${keyA}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ account: 'checking' }),
    });
    const body = (await r.json()) as { matched?: unknown[] };
    const matchMs = performance.now() - started;
    running = false;
    await asking;
    if (r.status !== 200) throw new Error(`match: ${r.status} ${JSON.stringify(body)}`);
    const sorted = [...latencies].sort((x, y) => x - y);
    return {
      matchMs,
      matched: body.matched?.length ?? 0,
      others: {
        n: sorted.length,
        maxMs: sorted[sorted.length - 1] ?? 0,
        p99Ms: sorted[Math.floor(sorted.length * 0.99)] ?? 0,
      },
    };
  } finally {
    await server.stop();
  }
}
