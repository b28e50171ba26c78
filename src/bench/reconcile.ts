import { execFileSync } from 'node:child_process';
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDecimal, atomsToDecimal } from '../domain/money.js';
import { BUSY_ACCOUNT } from './generate.js';
import { bin, summary, time, type Timing } from './measure.js';

/** Statement lines of the benchmark: as many as a busy account gives a bank in about half a year. */
export const STATEMENT_LINES = 10_000;

/**
 * A bank statement of the busy account made from its own lines in the ledger (the general ledger's
 * CSV): the bank's date 0 to 3 days after the books', amounts in the account's sign, a running
 * balance, and every 50th line a bank fee the books do not hold.
 */
export async function statementOf(ledger: string, dir: string): Promise<string> {
  const gl = join(dir, 'statement-gl.csv');
  await time([
    bin,
    ...['report', 'gl', '--account', BUSY_ACCOUNT, '--start', '2021-01-01', '--end', '2025-12-31'],
    ...['--format', 'csv', '--output', gl, '--ledger', ledger],
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

/**
 * `reconcile import` then `reconcile match` of the statement, each a whole process, on a fresh copy
 * of the ledger each round: the time of the two together and the larger peak memory.
 */
export async function reconcileRounds(
  ledger: string,
  statement: string,
  n: number,
): Promise<Timing & { matched: number }> {
  const samples = [];
  const copy = `${ledger}.reconcile.sqlite`;
  for (let i = 0; i < n; i++) {
    for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
    copyFileSync(ledger, copy);
    const account = ['--account', BUSY_ACCOUNT, '--ledger', copy];
    const a = await time([bin, 'reconcile', 'import', statement, ...account]);
    const b = await time([bin, 'reconcile', 'match', ...account]);
    samples.push({ ms: a.ms + b.ms, rssMb: Math.max(a.rssMb, b.rssMb) });
  }
  // What the last round matched: the statement lines are all the ledger's but the fees.
  const status = JSON.parse(
    execFileSync(
      process.execPath,
      [bin, 'reconcile', 'status', '--account', BUSY_ACCOUNT, '--ledger', copy, '--format', 'json'],
      { encoding: 'utf8', maxBuffer: 1 << 30 },
    ),
  ) as { matched: number };
  for (const s of ['', '-wal', '-shm']) rmSync(copy + s, { force: true });
  return { ...summary(samples), matched: status.matched };
}
