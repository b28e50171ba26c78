import { hash } from 'node:crypto';

/**
 * 128-bit keys with a positive 32-bit value each, in typed arrays (open addressing, linear probing).
 * An import remembers every entry it has seen (its group key, its content): as Map entries of strings
 * that costs ~100 bytes a key plus work for every garbage collection; here it is 20 bytes a slot.
 */
export class KeyTable {
  private mask: number;
  private size = 0;
  private keys: Int32Array;
  private values: Int32Array;

  /** `slots` is a power of two; the table doubles when three quarters are used. */
  constructor(slots = 4096) {
    this.mask = slots - 1;
    this.keys = new Int32Array(slots * 4);
    this.values = new Int32Array(slots);
  }

  /** The value of a key, or 0 when it is absent. */
  get(k: Int32Array): number {
    const i = this.find(k);
    return this.values[i]!;
  }

  /** Sets a key's value (at least 1). */
  set(k: Int32Array, value: number): void {
    const i = this.find(k);
    const added = this.values[i] === 0;
    if (added) this.keys.set(k, i * 4);
    this.values[i] = value;
    if (added && ++this.size * 4 > (this.mask + 1) * 3) this.grow();
  }

  /** The slot holding the key, or the empty slot where it would go. */
  private find(k: Int32Array): number {
    const a = k[0]!;
    const b = k[1]!;
    const c = k[2]!;
    const d = k[3]!;
    let i = mix(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(c, 0x85ebca77) ^ d) & this.mask;
    const keys = this.keys;
    while (this.values[i] !== 0) {
      const at = i * 4;
      if (keys[at] === a && keys[at + 1] === b && keys[at + 2] === c && keys[at + 3] === d)
        return i;
      i = (i + 1) & this.mask;
    }
    return i;
  }

  private grow(): void {
    const [keys, values] = [this.keys, this.values];
    const slots = (this.mask + 1) * 2;
    this.mask = slots - 1;
    this.keys = new Int32Array(slots * 4);
    this.values = new Int32Array(slots);
    const k = new Int32Array(4);
    for (let i = 0; i < values.length; i++) {
      if (values[i] === 0) continue;
      k.set(keys.subarray(i * 4, i * 4 + 4));
      const j = this.find(k);
      this.keys.set(k, j * 4);
      this.values[j] = values[i]!;
    }
  }
}

function mix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/**
 * A text as a 128-bit key, exactly: up to 15 characters of U+00FF or below are packed with their
 * length (group keys such as `E1042` or `JE-42`); anything longer is its SHA-256, marked so that the
 * two kinds never meet. The result is written into `out`.
 */
export function textKey(text: string, out: Int32Array): Int32Array {
  const len = text.length;
  if (len <= 15) {
    let w = len;
    let packed = true;
    out.fill(0);
    for (let i = 0; i < len; i++) {
      const c = text.charCodeAt(i);
      if (c > 0xff) {
        packed = false;
        break;
      }
      const byte = i + 1;
      w |= c << ((byte & 3) * 8);
      if ((byte & 3) === 3 || i === len - 1) {
        out[byte >> 2] = w;
        w = 0;
      }
    }
    if (packed) return out;
  }
  const digest = hash('sha256', text, 'buffer') as unknown as Buffer;
  for (let i = 0; i < 4; i++) out[i] = digest.readInt32LE(i * 4);
  // The first byte of a packed key is its length (0 to 15); 0xff marks a digest.
  out[0] = (out[0]! & ~0xff) | 0xff;
  return out;
}

const BASE64URL = new Int8Array(128).fill(-1);
for (const [i, c] of [
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_',
].entries())
  BASE64URL[c.charCodeAt(0)] = i;

/**
 * The first 120 bits of a base64url digest (20 characters, 30 bits to a word) as a key, written into
 * `out`: reading the characters costs less than asking the hash for bytes as well.
 */
export function base64urlKey(text: string, out: Int32Array): Int32Array {
  for (let w = 0; w < 4; w++) {
    let v = 0;
    for (let i = w * 5; i < w * 5 + 5; i++) v = (v << 6) | BASE64URL[text.charCodeAt(i)]!;
    out[w] = v;
  }
  return out;
}
