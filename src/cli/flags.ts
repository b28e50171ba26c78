import { errors } from '../domain/errors.js';
import { idempotencyKeyProblem } from '../domain/idempotency.js';
import { readDate, readMonth, readWholeNumber, type Read } from '../domain/input.js';

/**
 * Flag values read with the domain's readers. A value that cannot be read is a usage error (exit 2)
 * naming the flag; a readable value the ledger refuses is the ledger's to say (docs/cli.md).
 */
function flagValue<T>(
  flag: string,
  text: string | undefined,
  read: (t: string) => Read<T>,
): T | undefined {
  if (text === undefined) return undefined;
  const r = read(text);
  if (r.ok) return r.value;
  throw errors.usage(`${flag}: ${r.message}`, [
    { path: flag, reason: r.reason, message: r.message },
  ]);
}

export const dateFlag = (flag: string, text: string | undefined) => flagValue(flag, text, readDate);

export const monthFlag = (flag: string, text: string | undefined) =>
  flagValue(flag, text, readMonth);

export const wholeFlag = (flag: string, text: string | undefined, min: number, max?: number) =>
  flagValue(flag, text, (t) => readWholeNumber(t, min, max));

/** A flag that must be given (commander's requiredOption says so already; this narrows the type). */
export function required<T>(flag: string, v: T | undefined): T {
  if (v === undefined) throw errors.usage(`${flag} is required`);
  return v;
}

/**
 * An --idempotency-key: readable whatever it holds, but the ledger's rule for keys (CAPI34, exit 1)
 * is applied here, where the flag can be named, and before anything is sent.
 */
export function keyFlag(key: string | undefined): string | undefined {
  if (key === undefined) return undefined;
  const problem = idempotencyKeyProblem(key, '--idempotency-key');
  if (problem) throw errors.idempotencyKeyRefused(problem, '--idempotency-key');
  return key;
}
