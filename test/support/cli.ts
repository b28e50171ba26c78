import { PassThrough } from 'node:stream';
import { Context, type Io } from '../../src/cli/context.js';
import type { Prompter } from '../../src/cli/prompter.js';
import { run, type RunOptions } from '../../src/main.js';

export interface CliResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  cwd?: string;
  input?: string;
  env?: Record<string, string>;
  /** Standard input is a terminal (for interactive entry). */
  tty?: boolean;
  now?: () => Date;
  prompter?: Prompter;
  runF?: RunOptions['runF'];
}

/**
 * Runs a command line in this process, through the same `run` the binary calls, with its streams
 * captured: for the many tests of what a command says and refuses, where starting a process each
 * time would cost more than the test. End-to-end tests start the real binary instead.
 */
export async function cli(args: string[], opts: CliOptions = {}): Promise<CliResult> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = Object.assign(new PassThrough(), opts.tty ? { isTTY: true } : {});
  if (opts.input !== undefined) stdin.end(opts.input);
  else stdin.end();
  let out = '';
  let err = '';
  stdout.on('data', (c) => (out += c));
  stderr.on('data', (c) => (err += c));
  const io: Io = { stdout, stderr, stdin };
  const cwd = opts.cwd ?? process.cwd();
  const env = { NO_COLOR: '1', BOOKS_CONFIG: `${cwd}/no-config.json`, ...opts.env };
  const exitCode = await run(args, io, env, cwd, {
    makeContext: (flags) => new Context(io, env, cwd, flags, opts.now, opts.prompter ?? null),
    ...(opts.runF ? { runF: opts.runF } : {}),
  });
  return { exitCode, stdout: out, stderr: err };
}

/** The options a command line gives its command, without running it (gh's runF seam). */
export async function optionsOf(
  args: string[],
): Promise<{ path: string; options: unknown } | CliResult> {
  let seen: { path: string; options: unknown } | null = null;
  const r = await cli(args, {
    runF: async (path, options) => {
      seen = { path, options };
    },
  });
  return seen ?? r;
}
