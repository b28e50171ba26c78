import { expect } from 'vitest';
import type { FixtureLedger } from './fixtures.js';

/**
 * What a test runs against a fixture's ledger and keeps of it, to hold every store to the same words:
 * `json` runs a command for its JSON answer, `refused` runs one that must be refused (its exit code,
 * the words naming the problem) and proves the store unchanged. Each keeps what it saw, made neutral.
 */
export function sayings(
  ledger: () => FixtureLedger,
  said: string[],
  neutral: (text: string) => string,
) {
  return {
    json: async (args: string[], exit = 0) => {
      const r = await ledger().books([...args, '--format', 'json']);
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}${r.stdout}`).toBe(exit);
      said.push(neutral(r.stdout));
      return JSON.parse(r.stdout);
    },
    refused: async (args: string[], exit: number, ...words: string[]) => {
      const L = ledger();
      const before = L.inspect();
      const r = await L.books(args);
      expect(r.exitCode, r.stderr).toBe(exit);
      for (const w of words) expect(r.stderr).toContain(w);
      expect(L.inspect()).toBe(before);
      said.push(neutral(r.stderr));
    },
  };
}
