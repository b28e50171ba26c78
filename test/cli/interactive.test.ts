import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { Context, type Io } from '../../src/cli/context.js';
import type { Choice, Prompter } from '../../src/cli/prompter.js';
import { run } from '../../src/main.js';
import { snapshot, standardLedger } from '../e2e/helpers.js';

/** Answers prompts from a script; a search answer picks the first choice whose name contains it. */
function scripted(answers: (string | boolean)[], asked: string[]): Prompter {
  const next = (message: string) => {
    asked.push(message);
    if (!answers.length) throw new Error(`no scripted answer for: ${message}`);
    return answers.shift()!;
  };
  const pick = <T>(message: string, choices: Choice<T>[]) => {
    const want = String(next(message));
    const hit = choices.find((c) => c.name.includes(want));
    if (!hit)
      throw new Error(
        `no choice '${want}' for '${message}' in ${choices.map((c) => c.name).join(' | ')}`,
      );
    return hit.value;
  };
  return {
    async input(message, options = {}) {
      const a = String(next(message));
      const value = a === '' && options.default !== undefined ? options.default : a;
      const ok = options.validate?.(value) ?? true;
      if (ok !== true) throw new Error(`scripted answer '${value}' refused: ${ok}`);
      return value;
    },
    async select(message, choices) {
      return pick(message, choices);
    },
    async search(message, source) {
      return pick(message, source(''));
    },
    async confirm(message) {
      return Boolean(next(message));
    },
  };
}

async function interactive(ledger: string, cwd: string, answers: (string | boolean)[]) {
  const out = new PassThrough();
  const err = new PassThrough();
  const stdin = Object.assign(new PassThrough(), { isTTY: true });
  let stdout = '';
  let stderr = '';
  out.on('data', (c) => (stdout += c));
  err.on('data', (c) => (stderr += c));
  const io: Io = { stdout: out, stderr: err, stdin };
  const asked: string[] = [];
  const env = { NO_COLOR: '1', BOOKS_CONFIG: `${cwd}/none.json` };
  const code = await run(
    ['je', 'post', '--ledger', ledger],
    io,
    env,
    cwd,
    (flags) =>
      new Context(
        io,
        env,
        cwd,
        flags,
        () => new Date('2025-03-10T12:00:00Z'),
        scripted(answers, asked),
      ),
  );
  return { code, stdout, stderr, asked };
}

describe('interactive je post (on a terminal)', () => {
  it('builds an entry with account search and running totals, validates it, and posts on confirmation', async () => {
    const { ledger, dir } = await standardLedger();
    const r = await interactive(ledger, dir, [
      '',
      'March rent',
      'Rent',
      'Debit',
      '1,500',
      'Operating Checking',
      'Credit',
      '',
      'Finish',
      true,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('debits 1,500.00   credits 0.00   out of balance by 1,500.00');
    expect(r.stderr).toContain('debits 1,500.00   credits 1,500.00   balanced');
    expect(r.stdout).toMatch(/Posted JE-1 .* 2025-03-10/);
    expect(r.asked).toContain('Post this entry?');
  });

  it('asks for the customer of a receivable line and shows the ledger’s refusal before posting', async () => {
    const { ledger, dir } = await standardLedger();
    const before = snapshot(ledger);
    const r = await interactive(ledger, dir, [
      '2024-12-31',
      '',
      'Accounts Receivable',
      'Debit',
      '200',
      'Harbor Cafe',
      'Sales',
      'Credit',
      '',
      'Finish',
      'Cancel',
    ]);
    expect(r.code).toBe(130);
    expect(r.stderr).toContain('error CAPI33: 2024-12-31 is before the books start on 2025-01-01');
    expect(snapshot(ledger)).toBe(before);
  });

  it('posts nothing when the user declines', async () => {
    const { ledger, dir } = await standardLedger();
    const before = snapshot(ledger);
    const r = await interactive(ledger, dir, [
      '',
      '',
      'Rent',
      'Debit',
      '10',
      'Savings',
      'Credit',
      '',
      'Finish',
      false,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('Not posted.');
    expect(snapshot(ledger)).toBe(before);
  });
});
