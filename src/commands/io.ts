import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { Context } from '../cli/context.js';
import { isIsoDate, isIsoMonth } from '../domain/dates.js';
import { BooksError, errors } from '../domain/errors.js';

/** The full path of a file argument; a missing file is a usage error naming it. */
export function existingFile(ctx: Context, path: string): string {
  const full = resolve(ctx.cwd, path);
  if (!existsSync(full)) throw errors.usage(`cannot read ${path}: no such file`);
  return full;
}

/** Opens a file argument for streaming, or standard input for `-`. */
export function openInput(ctx: Context, path: string): { stream: Readable; name: string } {
  if (path === '-') return { stream: ctx.io.stdin, name: 'stdin' };
  return { stream: createReadStream(existingFile(ctx, path), { highWaterMark: 1 << 16 }), name: path };
}

/** Reads a whole text input (file or `-`). */
export async function readText(ctx: Context, path: string): Promise<string> {
  if (path !== '-') return readFileSync(existingFile(ctx, path), 'utf8');
  const chunks: Buffer[] = [];
  for await (const c of ctx.io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
  return Buffer.concat(chunks).toString('utf8');
}

/** A date flag, checked: a bad value is a usage error naming the flag. */
export function dateFlag(flag: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!isIsoDate(v)) throw new BooksError('usage', `${flag} '${v}' is not a date (YYYY-MM-DD)`);
  return v;
}

/** A month flag (YYYY-MM), checked. */
export function monthFlag(flag: string, v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  if (!isIsoMonth(v)) throw new BooksError('usage', `${flag} '${v}' is not a month (YYYY-MM)`);
  return v;
}
