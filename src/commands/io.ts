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
  return {
    stream: createReadStream(existingFile(ctx, path), { highWaterMark: 1 << 16 }),
    name: path,
  };
}

/** Reads a whole UTF-8 text input (file or `-`); bytes that are not UTF-8 are refused, never replaced. */
export async function readText(ctx: Context, path: string): Promise<string> {
  let bytes: Buffer;
  if (path !== '-') bytes = readFileSync(existingFile(ctx, path));
  else {
    const chunks: Buffer[] = [];
    for await (const c of ctx.io.stdin) chunks.push(Buffer.isBuffer(c) ? c : Buffer.from(c));
    bytes = Buffer.concat(chunks);
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const name = path === '-' ? 'standard input' : path;
    throw new BooksError('invalid_input', `${name} is not UTF-8 text`, [
      {
        file: name,
        path: '',
        reason: 'invalid_encoding',
        message: 'not UTF-8 text (save it as UTF-8)',
      },
    ]);
  }
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
