import type { Context, Format } from './context.js';

/** A flag as commander declares it (`--date <YYYY-MM-DD>`, `--dry-run`), with its help text. */
export interface FlagSpec {
  flags: string;
  description: string;
  default?: string;
  /** The values it takes; commander refuses others as a usage error naming the flag. */
  choices?: readonly string[];
  /** Repeatable: the values are collected in order. */
  repeat?: boolean;
}

export interface ArgSpec {
  name: string;
  description: string;
  optional?: boolean;
}

/** What commander hands a command: its flags by camel-cased name, and its arguments in order. */
export interface Raw {
  flags: Record<string, unknown>;
  args: string[];
}

/**
 * One command as gh declares one: its flags next to its typed options, a function from what was
 * typed to those options (refusing unreadable values as usage errors naming the flag), and the run
 * function. Tests replace `run` (the runF seam) to see the options without running anything.
 */
export interface CommandSpec<O = unknown> {
  args?: readonly ArgSpec[];
  flags?: readonly FlagSpec[];
  /** Examples, each a full `books …` line: shown in --help, and run by a test on a fresh ledger. */
  examples?: readonly string[];
  /** More help text, shown after the flags and before the examples. */
  help?: string;
  /** The output formats the command writes; any other --format is a usage error. Default: table, json. */
  formats?: readonly Format[];
  /**
   * The command says who acts itself, around what it changes (`books serve`: each request's key),
   * rather than being run as the terminal's user throughout.
   */
  setsActor?: true;
  options(raw: Raw): O;
  run(ctx: Context, options: O): Promise<void>;
}

/** Declares a command; the identity, for its types. */
export function command<O>(spec: CommandSpec<O>): CommandSpec<O> {
  return spec;
}

/** A string flag's value as given, or undefined. */
export function str(raw: Raw, name: string): string | undefined {
  const v = raw.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** A boolean flag: true when given. */
export function bool(raw: Raw, name: string): boolean {
  return raw.flags[name] === true;
}

/** A repeatable flag's values, in order. */
export function list(raw: Raw, name: string): string[] {
  const v = raw.flags[name];
  return Array.isArray(v) ? (v as string[]) : [];
}
