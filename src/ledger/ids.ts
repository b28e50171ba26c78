import { randomBytes } from 'node:crypto';

let idPool = Buffer.alloc(0);
let idPoolAt = 0;
let idMs = -1;
let idTime = '';

/**
 * A fresh id with a type prefix (`je_…`, `acct_…`): milliseconds in base 36, then 72 random bits, so ids
 * are unique across processes yet arrive in order, and a batch appends to the id index instead of
 * writing all over it. Random bytes are drawn in blocks, as a batch needs many.
 */
export function newId(prefix: string): string {
  if (idPoolAt + 9 > idPool.length) {
    idPool = randomBytes(9 * 4096);
    idPoolAt = 0;
  }
  idPoolAt += 9;
  const ms = Date.now();
  if (ms !== idMs) [idMs, idTime] = [ms, ms.toString(36).padStart(9, '0')];
  return `${prefix}_${idTime}${idPool.toString('base64url', idPoolAt - 9, idPoolAt)}`;
}
