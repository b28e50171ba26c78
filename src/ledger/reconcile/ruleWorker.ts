import { reconcileRefused } from '../../domain/reconcile.js';
import { onThread } from '../runtime/threads.js';

/** The most a rules run may take to read a statement's descriptions. */
export const RULES_TIME_MS = 3000;

/**
 * Which rule applies to each description (the first whose pattern it holds; -1 for none), worked
 * out on a thread of the pool (threads.ts) that is stopped after `limitMs`: a regular expression can
 * take time exponential in the text it reads, and a server must go on answering whatever a rule
 * says. The patterns were checked (they compile) before.
 */
export async function firstRules(
  patterns: string[],
  descriptions: string[],
  limitMs = RULES_TIME_MS,
  owner: object = firstRules,
): Promise<number[]> {
  return onThread<number[]>(
    owner,
    WORKER,
    { patterns, descriptions },
    {
      ms: limitMs,
      tooSlow: () =>
        reconcileRefused(
          `the rules' patterns took more than ${limitMs / 1000} s to read this statement's ` +
            'descriptions: give simpler patterns (plain text, or a regular expression without ' +
            'nested repetition)',
          'rules',
          'rules_too_slow',
        ),
      tooLarge: () =>
        reconcileRefused(
          "the rules' patterns took more memory than a rules run may to read this statement's " +
            'descriptions: give simpler patterns',
          'rules',
          'rules_too_large',
        ),
    },
  );
}

/** The thread's code: the same reading of a pattern as create.ts's testOf. */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const tests = workerData.patterns.map((p) => {
  const re = /^\\/(.+)\\/([a-z]*)$/.exec(p);
  if (re) {
    const compiled = new RegExp(re[1], re[2].replace(/[gy]/g, ''));
    return (d) => compiled.test(d);
  }
  const needle = p.toLowerCase();
  return (d) => d.toLowerCase().includes(needle);
});
parentPort.postMessage(workerData.descriptions.map((d) => tests.findIndex((t) => t(d))));
`;
