import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from './main.js';

/**
 * `npm start`: builds ./demo.sqlite from the demo fixtures (a bakery's chart, counterparties and a year
 * of entries) through the same commands a bookkeeper runs, then prints the reports of its year-end
 * close: the trial balance, the income statement by quarter and the balance sheet by month.
 */
const fixtures = fileURLToPath(new URL('../fixtures/demo', import.meta.url));
const ledger = process.env.BOOKS_DEMO_LEDGER ?? 'demo.sqlite';

/** Runs one books command; setup steps report on standard error so that standard output is the sheet. */
async function step(args: string[], quiet = false): Promise<void> {
  const io = {
    stdout: quiet ? process.stderr : process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
  };
  const code = await run([...args, '--ledger', ledger], io);
  if (code !== 0) {
    process.stderr.write(`demo: books ${args.join(' ')} failed (exit ${code})\n`);
    process.exit(code);
  }
}

if (!existsSync(ledger)) {
  await step(
    [
      'init',
      '--name',
      'Harbor Bakery',
      '--currency',
      'USD',
      '--first-month',
      '2025-01',
      '--chart',
      join(fixtures, 'accounts.csv'),
    ],
    true,
  );
  await step(['counterparties', 'import', join(fixtures, 'counterparties.csv')], true);
  await step(['je', 'import', join(fixtures, 'entries.csv')], true);
}
// The reports of a year-end close: trial balance, income statement and cash flow by quarter, balance
// sheet by month.
for (const report of [
  ['trial-balance', '--as-of', '2025-12-31'],
  ['income-statement', '--start', '2025-01-01', '--end', '2025-12-31', '--period', 'quarterly'],
  ['cash-flow', '--start', '2025-01-01', '--end', '2025-12-31', '--period', 'quarterly'],
  ['balance-sheet', '--start', '2025-01-01', '--end', '2025-12-31', '--period', 'monthly'],
]) {
  await step(['report', ...report]);
  process.stdout.write('\n');
}
