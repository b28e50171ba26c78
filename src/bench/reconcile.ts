import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDecimal, atomsToDecimal } from '../domain/money.js';
import { BUSY_ACCOUNT } from './generate.js';
import { bin, summary, time, type Sample, type Timing } from './measure.js';

/** Statement lines of the benchmark: as many as a busy account gives a bank in about half a year. */
export const STATEMENT_LINES = 10_000;

/**
 * A bank statement of the busy account made from its own lines in the ledger (the general ledger's
 * CSV): the bank's date 0 to 3 days after the books', amounts in the account's sign, a running
 * balance, and every 50th line a bank fee the books do not hold.
 */
export async function statementOf(at: string[], dir: string): Promise<string> {
  const gl = join(dir, 'statement-gl.csv');
  await time([
    bin,
    ...['report', 'gl', '--account', BUSY_ACCOUNT, '--start', '2021-01-01', '--end', '2025-12-31'],
    ...['--format', 'csv', '--output', gl, ...at],
  ]);
  const rows = readFileSync(gl, 'utf8').split('\n').slice(1);
  const lines: string[] = ['date,description,amount,balance'];
  let balance = 0n;
  const atoms = (s: string | undefined) => {
    const p = s ? parseDecimal(s, 2) : null;
    return p?.ok ? p.atoms : 0n;
  };
  const add = (date: string, what: string, amount: bigint) => {
    balance += amount;
    lines.push(`${date},${what},${atomsToDecimal(amount, 2)},${atomsToDecimal(balance, 2)}`);
  };
  // The last lines of the account, so that the statement is the most recent half-year or so.
  const body = rows.filter((r) => r.split(',')[4] === 'line');
  for (const [i, r] of body.slice(-STATEMENT_LINES + STATEMENT_LINES / 50).entries()) {
    const c = r.split(',');
    const day = new Date(Date.parse(`${c[5]}T00:00:00Z`) + (i % 4) * 86_400_000);
    const date = day.toISOString().slice(0, 10);
    add(date, `BANK ${c[6]}`, atoms(c[12]) - atoms(c[13]));
    if (i % 49 === 48) add(date, 'SERVICE FEE', -250n);
  }
  const file = join(dir, 'statement.csv');
  writeFileSync(file, lines.join('\n') + '\n');
  return file;
}

/** `reconcile import` then `reconcile match` of the statement, each a whole process, on a ledger. */
export async function reconcileOnce(at: string[], statement: string): Promise<Sample> {
  const account = ['--account', BUSY_ACCOUNT, ...at];
  const a = await time([bin, 'reconcile', 'import', statement, ...account]);
  const b = await time([bin, 'reconcile', 'match', ...account]);
  return { ms: a.ms + b.ms, rssMb: Math.max(a.rssMb, b.rssMb) };
}

/** How many statement lines the account's reconciliation has matched. */
export function matchedOn(at: string[]): number {
  const args = [bin, 'reconcile', 'status', '--account', BUSY_ACCOUNT, ...at, '--format', 'json'];
  const out = execFileSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 1 << 30 });
  return (JSON.parse(out) as { matched: number }).matched;
}

/** Rounds on a ledger file: a fresh copy of it each time. */
export async function reconcileRounds(
  ledger: string,
  statement: string,
  n: number,
): Promise<Timing & { matched: number }> {
  const samples: Sample[] = [];
  const copy = `${ledger}.reconcile.sqlite`;
  let matched = 0;
  for (let i = 0; i < n; i++) {
    for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
    copyFileSync(ledger, copy);
    samples.push(await reconcileOnce(['--ledger', copy], statement));
    matched = matchedOn(['--ledger', copy]);
  }
  for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
  return { ...summary(samples), matched };
}
