import { createHash } from 'node:crypto';
import { JsonFraction } from './json.js';

/** How long a used idempotency key is remembered (docs/api.md, "Decisions"). */
export const IDEMPOTENCY_WINDOW_MS = 60 * 60 * 1000;
export const MAX_KEY_LENGTH = 128;

export interface KeyProblem {
  reason: 'missing_idempotency_key' | 'invalid_idempotency_key';
  message: string;
}

/**
 * Checks an idempotency key before anything is sent or looked up: present, not blank, at most 128
 * characters, and only visible ASCII (and inner spaces), which is what an HTTP header carries
 * unchanged. `name` is how the message names the key (a flag, a header). Null when the key is fine.
 */
export function idempotencyKeyProblem(
  key: string | undefined | null,
  name = 'the idempotency key',
): KeyProblem | null {
  const missing = (message: string): KeyProblem => ({ reason: 'missing_idempotency_key', message });
  if (key === undefined || key === null) return missing(`${name} is missing`);
  if (key.trim() === '') return missing(`${name} is empty`);
  if (key.length > MAX_KEY_LENGTH) {
    return missing(`${name} is ${key.length} characters; at most ${MAX_KEY_LENGTH} are allowed`);
  }
  if (!/^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/.test(key)) {
    return {
      reason: 'invalid_idempotency_key',
      message: `${name} may hold only ASCII letters, digits, punctuation and inner spaces`,
    };
  }
  return null;
}

/** A stable hash of a request, to tell a repeated request from a different one under the same key. */
export function requestHash(endpoint: string, body: unknown): string {
  return createHash('sha256')
    .update(endpoint)
    .update('\0')
    .update(canonicalJson(body))
    .digest('hex');
}

/** JSON with object keys sorted, so that the same content always gives the same text. */
export function canonicalJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonicalJson).join(',')}]`;
  if (typeof v === 'bigint' || v instanceof JsonFraction) return String(v);
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    const keys = Object.keys(o).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}
