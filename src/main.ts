import { CommanderError } from 'commander';
import { buildProgram } from './cli/program.js';
import { Context, toJson, type GlobalFlags, type Io } from './cli/context.js';
import { EXIT, exitCodeFor } from './cli/exit.js';
import { BooksError, isBooksError, type Problem } from './domain/errors.js';
import type { Env } from './config/config.js';

/** Runs the command line and returns the exit code; the one place that turns an error into one. */
export async function run(
  argv: string[],
  io: Io = { stdout: process.stdout, stderr: process.stderr, stdin: process.stdin },
  env: Env = process.env,
  cwd: string = process.cwd(),
  makeContext: (flags: GlobalFlags) => Context = (flags) => new Context(io, env, cwd, flags),
): Promise<number> {
  let context: Context | null = null;
  const program = buildProgram(io, (flags) => (context = makeContext(flags)));
  try {
    await program.parseAsync(argv, { from: 'user' });
    return EXIT.ok;
  } catch (e) {
    if (e instanceof CommanderError) {
      if (
        e.code === 'commander.helpDisplayed' ||
        e.code === 'commander.version' ||
        e.code === 'commander.help'
      )
        return EXIT.ok;
      return EXIT.usage;
    }
    const err = toBooksError(e);
    report(err, io, wantsJson(argv));
    return exitCodeFor(err.code);
  } finally {
    await (context as Context | null)?.dispose();
  }
}

function toBooksError(e: unknown): BooksError {
  if (isBooksError(e)) return e;
  const name = (e as { name?: string })?.name;
  if (name === 'ExitPromptError' || name === 'AbortPromptError')
    return new BooksError('cancelled', 'cancelled; nothing was posted');
  const code = (e as { code?: string })?.code;
  if (code === 'SQLITE_BUSY')
    return new BooksError(
      'unavailable',
      'the ledger is locked by another writer; try again shortly',
    );
  if (code === 'EPIPE') return new BooksError('unavailable', 'output closed');
  // Anything else is a defect: say so plainly, keep the stack for BOOKS_DEBUG only.
  const err = new BooksError(
    'unavailable',
    `internal error: ${(e as Error)?.message ?? String(e)}`,
  );
  if (process.env.BOOKS_DEBUG) console.error(e);
  return err;
}

function wantsJson(argv: string[]): boolean {
  const i = argv.indexOf('--format');
  return argv.includes('--format=json') || (i >= 0 && argv[i + 1] === 'json');
}

/** A problem as one line: `file:row: CODE reason: message` for data files, `path: message (reason)` otherwise. */
export function problemLine(p: Problem, code: string): string {
  if (p.row !== undefined)
    return `${p.file ?? 'input'}:${p.row}: ${p.code ?? code} ${p.reason}: ${p.path ? `${p.path}: ` : ''}${p.message}`;
  return `${p.path ? `${p.path}: ` : ''}${p.message} (${p.reason})`;
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
    err.errors.some((p) => p.row !== undefined || p.message !== err.message);
  if (listed) for (const p of err.errors) lines.push(`  ${problemLine(p, err.code)}`);
  const more = err.details.more_errors;
  if (typeof more === 'number' && more > 0) lines.push(`  … and ${more} more`);
  io.stderr.write(printable(lines.join('\n')) + '\n');
}

/** Control characters from input (a binary file, an escape sequence in a cell) are shown, not sent to the terminal. */
function printable(text: string): string {
  return text.replace(
    /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
