import { createReadStream, existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Readable } from 'node:stream';
import type { ArgSpec, FlagSpec } from '../cli/command.js';
import type { Context } from '../cli/context.js';
import { BooksError, errors, type Problem } from '../domain/errors.js';

/** The file an import reads, and how its fields are separated: the same for every importing command. */
export const CSV_FILE_ARG: ArgSpec = {
  name: 'path',
  description: "CSV file ('-' for standard input)",
};
export const DELIMITER_FLAG: FlagSpec = {
  flags: '--delimiter <char>',
  description: "field delimiter: one character (',' by default, ';', '|' …) or 'tab'",
  default: ',',
};

/** The full path of a file argument; a missing file is a usage error naming it. */
export function existingFile(ctx: Context, path: string): string {
  const full = resolve(ctx.cwd, path);
  if (!existsSync(full)) throw errors.usage(`cannot read ${path}: no such file`);
  return full;
}

/** An input file (or `-`) as a stream, its name for messages, and its size when it is a regular file. */
export function openInput(
  ctx: Context,
  path: string,
): { stream: Readable; name: string; size: number | null } {
  if (path === '-') return { stream: ctx.io.stdin, name: 'stdin', size: null };
  const full = existingFile(ctx, path);
  const stat = statSync(full);
  return {
    stream: createReadStream(full, { highWaterMark: 1 << 16 }),
    name: path,
    size: stat.isFile() ? stat.size : null,
  };
}

/**
 * Reads a whole UTF-8 text input (a file or `-`) of at most `limit` bytes; a larger one (or an endless
 * one, such as /dev/zero) is refused as soon as it passes the limit (readBytes), and bytes that are not
 * UTF-8 are refused, never replaced.
 */
export async function readText(ctx: Context, path: string, limit: number): Promise<string> {
  const name = path === '-' ? 'standard input' : path;
  const bytes = await readBytes(ctx, path, limit);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const message = 'not UTF-8 text (save it as UTF-8)';
    throw new BooksError('invalid_input', `${name} is not UTF-8 text`, [
      { file: name, path: '', reason: 'invalid_encoding', message },
    ]);
  }
}

/** A whole input (a file or `-`) of at most `limit` bytes, as bytes; a larger one is refused. */
export async function readBytes(ctx: Context, path: string, limit: number): Promise<Buffer> {
  const name = path === '-' ? 'standard input' : path;
  const { stream } = openInput(ctx, path);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stream) {
    const chunk = Buffer.isBuffer(c) ? c : Buffer.from(c as string);
    size += chunk.length;
    if (size > limit) {
      stream.destroy();
      const message = `${name} is larger than ${limit} bytes, the most one entry may take`;
      throw new BooksError('invalid_input', message, [
        { file: name, path: '', reason: 'too_large', message },
      ]);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * A problem of a request's rows (`rows[2].period`) as the file's they came from: its spreadsheet row
 * and column (a field the file names otherwise renamed).
 */
export function ofFile(
  p: Problem,
  rows: { row?: number }[],
  rename: Record<string, string> = {},
): Problem {
  const m = /^rows\[(\d+)\]\.(\w+)$/.exec(p.path);
  if (!m) return p;
  const row = rows[Number(m[1])]?.row ?? p.row;
  return { ...p, ...(row !== undefined ? { row } : {}), path: rename[m[2]!] ?? m[2]! };
}
