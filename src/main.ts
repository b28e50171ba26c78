import { CommanderError } from 'commander';
import { buildProgram, type ProgramOptions } from './cli/program.js';
import { Context, OutputClosed, toJson, type GlobalFlags, type Io } from './cli/context.js';
import { EXIT, exitCodeFor } from './cli/exit.js';
import { printable } from './render/text.js';
import { BooksError, isBooksError, type Problem } from './domain/errors.js';
import type { Env } from './config/config.js';

export interface RunOptions {
  makeContext?: (flags: GlobalFlags) => Context;
  runF?: ProgramOptions['runF'];
}

/** Runs the command line and returns the exit code; the one place that turns an error into one. */
export async function run(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  env: Env = process.env,
  cwd: string = process.cwd(),
  options: RunOptions = {},
): Promise<number> {
  let context: Context | null = null;
  const closed = (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE' && context) context.outputClosed = true;
  };
  io.stdout.on('error', closed);
  const makeContext =
    options.makeContext ?? ((flags: GlobalFlags) => new Context(io, env, cwd, flags));
  try {
    const program = await buildProgram(argv, {
      io,
      makeContext: (flags) => (context = makeContext(flags)),
      ...(options.runF ? { runF: options.runF } : {}),
    });
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof OutputClosed || (context as Context | null)?.outputClosed) return EXIT.ok;
    if (
      e instanceof CommanderError &&
      ['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(e.code)
    ) {
      return EXIT.ok;
    }
    const err = toBooksError(e);
    report(err, io, wantsJson(argv));
    return exitCodeFor(err.code);
  } finally {
    io.stdout.off('error', closed);
    await (context as Context | null)?.dispose();
  }
}

function toBooksError(e: unknown): BooksError {
  if (isBooksError(e)) return e;
  if (e instanceof CommanderError) {
    const message = e.message.replace(/^error: /, '');
    // A value such as an id may start with '-'; commander takes whatever follows '--' as operands.
    const hint =
      e.code === 'commander.unknownOption' ? "; a value that starts with '-' goes after '--'" : '';
    return new BooksError('usage', `${message} (run with --help for usage${hint})`, [], {
      usage: e.code.replace('commander.', ''),
    });
  }
  const code = (e as { code?: string })?.code;
  if (code === 'SQLITE_BUSY')
    return new BooksError(
      'unavailable',
      'the ledger is locked by another writer; try again shortly',
    );
  // Anything else is a defect: say so plainly, keep the stack for BOOKS_DEBUG only.
  if (process.env.BOOKS_DEBUG) console.error(e);
  return new BooksError('unavailable', `internal error: ${(e as Error)?.message ?? String(e)}`);
}

function wantsJson(argv: string[]): boolean {
  const i = argv.indexOf('--format');
  return argv.includes('--format=json') || (i >= 0 && argv[i + 1] === 'json');
}

/** A problem as one line: `file:row: CODE reason: message` for data files, `path: message (reason)` otherwise. */
export function problemLine(p: Problem, code: string): string {
  if (p.row !== undefined) {
    return `${p.file ?? 'input'}:${p.row}: ${p.code ?? code} ${p.reason}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
  }
  // A message that names its own place (a flag, a field) is not prefixed with the body path again.
  const named = p.message.startsWith('--') || p.message.startsWith(p.path);
  const at = p.path && !named ? `${p.path}: ` : '';
  return `${at}${p.message} (${p.reason})`;
}

function report(err: BooksError, io: Io, json: boolean): void {
  if (json) {
    io.stdout.write(
      toJson({
        error: { code: err.code, message: err.message, errors: err.errors, ...err.details },
      }) + '\n',
    );
    return;
  }
  const lines = [`error ${err.code}: ${err.message}`];
  const listed =
    err.errors.length > 1 ||
    err.errors.some((p) => p.row !== undefined || !err.message.includes(p.message));
  if (listed) for (const p of err.errors) lines.push(`  ${problemLine(p, err.code)}`);
  const more = err.details.more_errors;
  if (typeof more === 'number' && more > 0) lines.push(`  … and ${more} more`);
  io.stderr.write(printable(lines.join('\n')) + '\n');
}
