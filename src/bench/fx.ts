import {
  copyFileSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { atomsToDecimal } from '../domain/money.js';
import { generate } from './generate.js';
import { bin, data, fmt, quick, rounds, rssProbe, summary, time } from './measure.js';

/**
 * Foreign currencies at scale (`node dist/bench/fx.js`): a ledger of 1M journal lines of which 10% are
 * on accounts kept in euros (900k lines of the usual benchmark ledger, then 50,000 two-line entries
 * between a euro bank account and a euro receivable, at rates that move day by day), and the
 * reports that read them: `report fx`, the trial balance, balance sheet and general ledger with
 * --show-foreign, and a month-end revaluation.
 */
export async function fxFigures(): Promise<string[]> {
  const dir = join(data, 'fx1m');
  const runs = quick ? 3 : 9;
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    rssProbe,
    "process.on('exit', () => require('fs').writeFileSync(process.env.BENCH_RSS_OUT, " +
      'String(process.resourceUsage().maxRSS)));\n',
  );

  const ledger = join(dir, 'fx.sqlite');
  const base = await baseLedger(dir);
  for (const s of ['', '-wal', '-shm']) rmSync(ledger + s, { force: true });
  copyFileSync(base, ledger);

  const out = join(dir, 'report.out');
  const rows: string[] = [];
  const at = ['--ledger', ledger, '--output', out];
  const cases: [string, string[]][] = [
    ['report fx as of 2025-12-31, table', ['report', 'fx', '--as-of', '2025-12-31']],
    [
      'report fx as of 2025-12-31, json',
      ['report', 'fx', '--as-of', '2025-12-31', '--format', 'json'],
    ],
    [
      'report trial-balance --show-foreign as of 2025-12-31',
      ['report', 'tb', '--as-of', '2025-12-31', '--show-foreign'],
    ],
    ['report trial-balance as of 2025-12-31 (without)', ['report', 'tb', '--as-of', '2025-12-31']],
    [
      'report balance-sheet --show-foreign, 12 monthly columns of 2025',
      ['report', 'balance-sheet', '--start', '2025-01-01', '--end', '2025-12-31', '--show-foreign'],
    ],
    [
      'report balance-sheet, 12 monthly columns of 2025 (without)',
      ['report', 'balance-sheet', '--start', '2025-01-01', '--end', '2025-12-31'],
    ],
    [
      'report gl --account eur-bank --show-foreign, 2025, csv',
      [
        'report',
        'gl',
        '--account',
        'eur-bank',
        '--start',
        '2025-01-01',
        '--end',
        '2025-12-31',
        '--show-foreign',
        '--format',
        'csv',
      ],
    ],
  ];
  for (const [what, args] of cases) {
    await time([bin, ...args, ...at]);
    rows.push(
      `| ${what} (1M lines, 10% foreign, ${runs} runs) | ${fmt(await rounds(runs, [bin, ...args, ...at]))} |`,
    );
  }
  const revalue = [];
  for (let i = 0; i < (quick ? 1 : 3); i++) {
    copyFileSync(base, ledger);
    for (const s of ['-wal', '-shm']) rmSync(ledger + s, { force: true });
    revalue.push(await time([bin, 'fx', 'revalue', '--as-of', '2025-12-31', '--ledger', ledger]));
  }
  rows.push(
    `| fx revalue as of 2025-12-31 (1M lines, 10% foreign, ${revalue.length} runs) | ${fmt(summary(revalue))} |`,
  );
  return rows;
}

// Run alone: `node dist/bench/fx.js [--quick]` prints its table.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').slice(-2).join('/')))
  console.log(
    `| what (whole process) | median (min–max) | peak RSS |\n| --- | --- | --- |\n${(await fxFigures()).join('\n')}`,
  );

/** The ledger the figures read, built once and kept in bench-data/fx1m. */
async function baseLedger(dir: string): Promise<string> {
  const base = join(dir, 'fx-base.sqlite');
  if (existsSync(base)) return base;
  await generate(dir, { lines: 900_000, startYear: 2021, years: 5 });
  writeFileSync(
    join(dir, 'fx-accounts.csv'),
    'external_id,account_number,name,account_type,parent_external_id,is_postable,is_active,currency\n' +
      'eur-bank,9001,Euro Bank,bank,,true,true,EUR\n' +
      'ar-eur,9002,Receivables in euros,accounts_receivable,,true,true,EUR\n' +
      'fx-realized,9101,Realized FX,other_income,,true,true,\n' +
      'fx-unrealized,9102,Unrealized FX,other_income,,true,true,\n',
  );
  await foreignEntries(join(dir, 'fx-entries.csv'), join(dir, 'fx-rates.csv'));
  for (const s of ['', '-wal', '-shm']) rmSync(base + s, { force: true });
  const run = (...args: string[]) => time([bin, ...args, '--ledger', base]);
  await run('init', '--first-month', '2021-01', '--chart', join(dir, 'accounts.csv'));
  await run('accounts', 'import', join(dir, 'fx-accounts.csv'));
  await run('counterparties', 'import', join(dir, 'counterparties.csv'));
  await run('rates', 'import', join(dir, 'fx-rates.csv'));
  await run('je', 'import', join(dir, 'entries.csv'));
  await run('je', 'import', join(dir, 'fx-entries.csv'));
  return base;
}

/**
 * 50,000 entries over 2021-2025, each a euro receipt: the bank debited and a customer's receivable
 * credited, both at the day's rate (100,000 foreign lines), and the rates of every day.
 */
async function foreignEntries(file: string, ratesFile: string): Promise<void> {
  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const rates = createWriteStream(ratesFile);
  rates.write('date,currency,rate\n');
  const rateOf = new Map<string, string>();
  for (let d = 0; d < 5 * 365; d++) {
    const date = new Date(Date.UTC(2021, 0, 1 + d)).toISOString().slice(0, 10);
    const r = (1.05 + 0.1 * Math.sin(d / 60) + rand() * 0.01).toFixed(4);
    rateOf.set(date, r);
    rates.write(`${date},EUR,${r}\n`);
  }
  rates.end();
  await once(rates, 'finish');
  const w = createWriteStream(file);
  w.write(
    'entry,entry_date,gl_account_id,line_type,amount,counterparty_type,counterparty_external_id,' +
      'fx_currency,fx_amount,fx_rate\n',
  );
  for (let e = 1; e <= 50_000; e++) {
    const date = new Date(Date.UTC(2021, 0, 1 + Math.floor((e / 50_000) * (5 * 365 - 1))))
      .toISOString()
      .slice(0, 10);
    const rate = rateOf.get(date)!;
    const eur = 100 + Math.floor(rand() * 500_000);
    const usd = BigInt(eur) * BigInt(rate.replace('.', ''));
    // Half to even, to whole cents.
    const q = usd / 10000n;
    const r = usd % 10000n;
    const cents = r > 5000n || (r === 5000n && q % 2n === 1n) ? q + 1n : q;
    const amount = atomsToDecimal(cents, 2);
    const fx = `EUR,${atomsToDecimal(eur, 2)},${rate}`;
    const customer = `C${1 + (e % 200)}`;
    w.write(`X${e},${date},eur-bank,debit,${amount},,,${fx}\n`);
    w.write(`X${e},${date},ar-eur,credit,${amount},customer,${customer},${fx}\n`);
  }
  w.end();
  await once(w, 'finish');
}
