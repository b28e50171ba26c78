import { JsonFraction } from './json.js';
import { sha256 } from './sha256.js';

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
  return sha256(`${endpoint}\0${canonicalJson(body)}`);
}

/**
 * JSON with object keys sorted, so that the same content always gives the same text. Stored
 * request hashes are compared with new ones: the text never changes from one build to the next.
 * Written as loops: it runs on every post's body.
 */
export function canonicalJson(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v !== 'object' || v === null) {
    return typeof v === 'bigint' ? String(v) : (JSON.stringify(v) ?? 'null');
  }
  if (v instanceof JsonFraction) return v.text;
  if (Array.isArray(v)) {
    let out = '[';
    for (let i = 0; i < v.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(v[i]);
    return out + ']';
  }
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  // A body's keys often come sorted already; sorting is then skipped.
  for (let i = 1; i < keys.length; i++) {
    if (keys[i - 1]! > keys[i]!) {
      keys.sort();
      break;
    }
  }
  let out = '{';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    out += `${i === 0 ? '' : ','}${JSON.stringify(k)}:${canonicalJson(o[k])}`;
  }
  return out + '}';
}
