import {
  closeSync,
  createWriteStream,
  lstatSync,
  openSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
} from 'node:fs';
import { once } from 'node:events';
import { basename, dirname, join, resolve } from 'node:path';
import { errors } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import type { Context } from './context.js';
import { Gathered, writeWaiting } from './gather.js';

/** Where a command's output goes: standard output, or the file of --output. */
export interface Output {
  /** Writes a piece, waiting while the reader or the disk is behind. */
  write(text: string): Promise<void>;
  /**
   * Gathers a piece without waiting: true once enough is gathered (64 KiB) that `drain` is due. A
   * stream of small pieces (a line each) pushes and drains, rather than awaiting every piece.
   */
  push(text: string): boolean;
  /** Hands on what is gathered, waiting while the reader or the disk is behind. */
  drain(): Promise<void>;
  /** Ends the output: a file is put in place only now (a failed command leaves what was there). */
  finish(): Promise<void>;
  abort(): Promise<void>;
  /** True for a terminal (tables fit its width; colour may be used). */
  readonly terminal: boolean;
}

const SQLITE_MAGIC = 'SQLite format 3\u0000';

/**
 * The output of a command: standard output, or `--output FILE`. A file is written whole or not at
 * all (to a temporary file beside it, then renamed into place); through a symbolic link, the file it
 * points to is written and the link stays; a device or pipe (/dev/null, a FIFO) is written as it is.
 * The ledger's own files, and any SQLite database, are refused: a report never replaces a ledger.
 */
export async function openOutput(ctx: Context, flag: string | undefined): Promise<Output> {
  if (flag === undefined) {
    return {
      write: (text) => ctx.write(text),
      push: (text) => ctx.push(text),
      drain: () => ctx.flush(),
      finish: () => ctx.flush(),
      abort: async () => {},
      terminal: Boolean(ctx.io.stdout.isTTY),
    };
  }
  const path = resolve(ctx.cwd, flag);
  const real = realTarget(path);
  refuseLedgerFiles(ctx, flag, real);
  const device = real.exists && !real.isFile;
  const tmp = device
    ? real.path
    : join(dirname(real.path), `.${basename(real.path)}.${process.pid}.tmp`);
  let stream: WriteStream;
  try {
    stream = createWriteStream(tmp, device ? { flags: 'a' } : { flags: 'wx', mode: real.mode });
    await once(stream, 'open');
  } catch (e) {
    throw errors.usage(`--output ${flag}: cannot write: ${(e as Error).message}`);
  }
  const failed = (e: unknown) =>
    errors.usage(`--output ${flag}: cannot write: ${(e as Error).message}`);
  // Pieces are gathered into writes of 64 KiB; a write waits while the disk is behind.
  const gathered = new Gathered();
  let broken: unknown = null;
  stream.on('error', (e) => (broken = e));
  const flush = async () => {
    if (!broken) await writeWaiting(stream, gathered.take());
    if (broken) throw failed(broken);
  };
  const push = (text: string) => gathered.add(text);
  return {
    terminal: false,
    push,
    drain: flush,
    async write(text) {
      if (push(text)) await flush();
    },
    async finish() {
      await flush();
      stream.end();
      try {
        await once(stream, 'finish');
        if (!device) renameSync(tmp, real.path);
      } catch (e) {
        if (!device) rmSync(tmp, { force: true });
        throw failed(e);
      }
      ctx.err(`wrote ${flag}`);
    },
    async abort() {
      stream.destroy();
      if (!device) rmSync(tmp, { force: true });
    },
  };
}

/** The file a path names once symbolic links are followed, and what it is. */
function realTarget(path: string): {
  path: string;
  exists: boolean;
  isFile: boolean;
  mode: number;
} {
  let real = path;
  try {
    if (lstatSync(path).isSymbolicLink()) real = realpathSync(path);
  } catch {
    // No such file yet: it will be created.
  }
  try {
    const s = statSync(real);
    return { path: real, exists: true, isFile: s.isFile(), mode: s.mode & 0o777 };
  } catch {
    return { path: real, exists: false, isFile: true, mode: 0o644 };
  }
}

function refuseLedgerFiles(
  ctx: Context,
  flag: string,
  real: { path: string; exists: boolean; isFile: boolean },
): void {
  const target = ctx.target();
  if (target.kind === 'local') {
    const ledger = realOrSelf(target.path);
    for (const suffix of ['', '-wal', '-shm', '-journal']) {
      if (real.path === ledger + suffix) {
        throw errors.usage(
          `--output ${flag} is the ledger's own file${suffix ? ` (${suffix})` : ''}; name another file`,
        );
      }
    }
  }
  if (real.exists && real.isFile && startsWith(real.path, SQLITE_MAGIC)) {
    throw errors.usage(
      `--output ${flag} is a SQLite database (perhaps a ledger); it will not be overwritten`,
    );
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function startsWith(path: string, magic: string): boolean {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(magic.length);
    return readSync(fd, buf, 0, buf.length, 0) === buf.length && buf.toString('latin1') === magic;
  } finally {
    closeSync(fd);
  }
}

/** Runs a command's writing to an output: finished when it succeeds, abandoned (no partial file) when not. */
export async function writeTo(out: Output, write: () => Promise<void>): Promise<void> {
  try {
    await write();
  } catch (e) {
    await out.abort();
    throw e;
  }
  await out.finish();
}

/**
 * A listing whose first item is read before anything is written, so that a refused listing writes
 * nothing (no partial file); `refused` may reword its error.
 */
export async function readFirst<T>(
  items: AsyncIterable<T>,
  refused: (e: unknown) => unknown = (e) => e,
): Promise<AsyncIterable<T>> {
  const it = items[Symbol.asyncIterator]();
  const first = await it.next().catch((e: unknown) => {
    throw refused(e);
  });
  return {
    async *[Symbol.asyncIterator]() {
      for (let r = first; !r.done; r = await it.next()) yield r.value;
    },
  };
}

/** One JSON document `{"object": "list", "data": [...]}`, written as the items come. */
export async function writeJsonList(
  write: (text: string) => Promise<void>,
  items: AsyncIterable<unknown>,
): Promise<void> {
  let first = true;
  await write('{\n  "object": "list",\n  "data": [');
  for await (const e of items) {
    await write(`${first ? '' : ','}\n    ${toJson(e, 2).replace(/\n/g, '\n    ')}`);
    first = false;
  }
  await write(`${first ? '' : '\n  '}]\n}\n`);
}
