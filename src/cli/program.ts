import { actingAs, terminalWho } from '../ledger/runtime/actor.js';
import { Command, InvalidArgumentError, Option } from 'commander';
import { errors } from '../domain/errors.js';
import type { CommandSpec, FlagSpec, Raw } from './command.js';
import type { Context, GlobalFlags, Io } from './context.js';

import { COMMANDS, GROUP_ACTIONS, GROUPS } from './commands.js';

export { COMMANDS };

export const EXIT_CODES = `
Exit codes:
  0    success
  1    refused by the ledger's rules or bad input data (CAPI33, CAPI34, CAPI67, CAPI69, reconcile_refused,
       CSV errors, check failures)
  2    usage: unknown command or flag, bad flag value, no ledger, operation not offered by the profile
  3    authentication or permission (CAPI11, CAPI71)
  4    unavailable, worth retrying later (CAPI73, network failure, ledger locked)
  130  interactive entry cancelled`;

/** Global flags that take a value: skipped when looking for the command in the arguments. */
const VALUE_FLAGS = new Set(['--ledger', '--entity', '--profile', '--format']);

/** The command paths the arguments name, and the group whose commands all load (for its help). */
function named(argv: string[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < argv.length && words.length < 3; i++) {
    const a = argv[i]!;
    if (a === '--') break;
    if (a.startsWith('-')) {
      if (VALUE_FLAGS.has(a)) i++;
      continue;
    }
    words.push(a);
  }
  if (words[0] === 'help') words.shift();
  const [first, second] = words;
  if (first === undefined) return [];
  if (GROUPS[first] === undefined) return [first];
  // A group that is a command of its own: when no subcommand of it is named (its flags' values are
  // words too: `books reconcile --account checking`).
  const sub = COMMANDS.some((c) => c.path === `${first} ${second ?? ''}`);
  if (GROUP_ACTIONS[first] && !sub && !(second && COMMANDS.some((c) => c.alias === second)))
    return [first];
  const leaf = COMMANDS.find(
    (c) =>
      c.path === `${first} ${second ?? ''}` ||
      (c.alias !== undefined && c.alias === second && c.path.startsWith(`${first} `)),
  );
  return leaf
    ? [leaf.path]
    : COMMANDS.filter((c) => c.path.startsWith(`${first} `)).map((c) => c.path);
}

export interface ProgramOptions {
  io: Io;
  makeContext: (flags: GlobalFlags) => Context;
  /** Replaces a command's run: tests see the options a command line gives, without running it. */
  runF?: (path: string, options: unknown, ctx: Context) => Promise<void>;
}

/**
 * The command tree for these arguments: every command listed, with the flags of those the arguments
 * name (and of the group whose help is asked for) declared from their modules.
 */
export async function buildProgram(argv: string[], opts: ProgramOptions): Promise<Command> {
  const { io } = opts;
  const output = {
    writeOut: (s: string) => io.stdout.write(s),
    writeErr: (s: string) => io.stderr.write(s),
    outputError: () => {},
  };
  const program = new Command('books')
    .description(
      'Double-entry bookkeeping: post journal entries, import CSV batches, read the reports of a month-end close.',
    )
    .version('0.1.0', '-V, --version')
    .option(
      '--ledger <path|url>',
      'ledger file, or a postgresql:// database URL (env BOOKS_LEDGER; default ./books.sqlite)',
    )
    .option('--entity <slug>', "entity of a database's ledger (env BOOKS_ENTITY)")
    .option('--profile <name>', 'named profile from the config file (env BOOKS_PROFILE)')
    .addOption(new Option('--format <format>', 'output format').choices(['table', 'json', 'csv']))
    .configureOutput(output)
    .exitOverride()
    .addHelpText('after', EXIT_CODES);
  const parents = new Map<string, Command>([['', program]]);
  for (const [name, description] of Object.entries(GROUPS)) {
    parents.set(
      name,
      program.command(name).description(description).exitOverride().configureOutput(output),
    );
  }
  const wanted = new Set(named(argv));
  for (const [group, load] of Object.entries(GROUP_ACTIONS))
    if (wanted.has(group)) declare(parents.get(group)!, group, (await load()).default, opts);
  for (const c of COMMANDS) {
    const words = c.path.split(' ');
    const parent = parents.get(words.length > 1 ? words[0]! : '')!;
    const cmd = parent
      .command(words[words.length - 1]!)
      .description(c.summary)
      .aliases(c.alias ? [c.alias] : [])
      .exitOverride()
      .configureOutput(output);
    if (wanted.has(c.path)) declare(cmd, c.path, (await c.load()).default, opts);
    else cmd.allowUnknownOption().allowExcessArguments();
  }
  return program;
}

/** Declares a command's arguments, flags and help from its spec, and runs it when it is called. */
function declare(
  cmd: Command,
  path: string,
  spec: CommandSpec<unknown>,
  opts: ProgramOptions,
): void {
  for (const a of spec.args ?? [])
    cmd.argument(a.optional ? `[${a.name}]` : `<${a.name}>`, a.description);
  for (const f of spec.flags ?? []) cmd.addOption(option(f));
  const formats = spec.formats ?? ['table', 'json'];
  const after = [
    spec.help,
    `Formats (--format): ${formats.join(', ')}.`,
    spec.examples?.length
      ? `Examples:\n${spec.examples.map((e) => `  ${e}`).join('\n')}`
      : undefined,
  ];
  cmd.addHelpText('after', '\n' + after.filter(Boolean).join('\n\n'));
  cmd.action(async (...params: unknown[]) => {
    const self = params[params.length - 1] as Command;
    const ctx = opts.makeContext(self.optsWithGlobals() as GlobalFlags);
    if (!formats.includes(ctx.format)) {
      throw errors.usage(
        `--format ${ctx.format} is not offered by books ${path}; it writes ${formats.join(' or ')}`,
      );
    }
    const raw: Raw = { flags: self.opts(), args: params.slice(0, -2) as string[] };
    const options = spec.options(raw);
    const go = () => (opts.runF ? opts.runF(path, options, ctx) : spec.run(ctx, options as never));
    // The audit trail's actor and via for every change the command makes.
    await (spec.setsActor ? go() : actingAs(terminalWho(path), go));
  });
}

function option(f: FlagSpec): Option {
  const o = new Option(f.flags, f.description);
  if (f.choices) o.choices(f.choices);
  // A repeatable flag's parser replaces the one choices() sets: it checks the choices itself.
  if (f.repeat)
    o.argParser((v: string, acc: string[] | undefined) => {
      if (f.choices && !f.choices.includes(v))
        throw new InvalidArgumentError(`Allowed choices are ${f.choices.join(', ')}.`);
      return [...(acc ?? []), v];
    });
  else if (f.default !== undefined) o.default(f.default);
  return o;
}
