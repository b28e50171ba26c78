import { expect } from 'vitest';
import type { FixtureLedger } from '../support/fixtures.js';
import { books, type RunResult } from '../support/helpers.js';
import { copyTemplate } from '../support/ledgers.js';

/** Runs books on a ledger, expecting exit 0 (the command and its error said otherwise); its output. */
export function succeeding(run: (args: string[]) => Promise<RunResult>) {
  return async (...args: string[]): Promise<string> => {
    const r = await run(args);
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(0);
    return r.stdout;
  };
}

/** A fixture's ledger run through the real books, each command expected to succeed. */
export const okOn = (L: FixtureLedger) => succeeding((args) => L.books(args));

/** A copy of the fx template's ledger file: books run on it as it answers, and expected to succeed. */
export function fxFile() {
  const { dir, ledger } = copyTemplate('fx');
  const run = (...args: string[]) => books([...args, '--ledger', ledger], { cwd: dir });
  return { dir, ledger, run, ok: succeeding((args) => run(...args)) };
}
