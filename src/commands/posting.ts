import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from '../cli/context.js';
import type { JournalEntry } from '../domain/entry.js';
import { entryInvalid, isBooksError, type Problem } from '../domain/errors.js';
import type { Ledger } from '../ledger/port.js';
import { entryText } from '../render/entry.js';

/**
 * A remote post whose first attempt went through but whose answer was lost comes back as a duplicate
 * on the retry: that is success, said as such. Returns false for any other error.
 */
export function alreadyPosted(ctx: Context, e: unknown): boolean {
  if (!isBooksError(e) || e.details.already_posted !== true) return false;
  const id = (e.details.existing_journal_entry_id as string | undefined) ?? null;
  const number = (e.details.existing_je_number as string | undefined) ?? id;
  if (ctx.json)
    ctx.outJson({
      already_posted: true,
      existing_journal_entry_id: id,
      existing_je_number: number,
    });
  else ctx.out(`Already posted${number ? ` as ${number}` : ''}: an earlier attempt went through.`);
  return true;
}

/** Shows a posted (or would-be) entry; `--format json` prints the entry object itself. */
export async function printPosted(
  ctx: Context,
  ledger: Ledger,
  entry: JournalEntry,
  exponent: number,
  dryRun: boolean,
  /** A line said after the entry (what else a dry run would post). */
  also: string | null = null,
): Promise<void> {
  if (ctx.json) return ctx.outJson(dryRun ? { dry_run: true, entry } : entry);
  const numbers = await linkedNumbers(ledger, entry);
  ctx.out(entryText(entry, exponent, dryRun ? 'Would post ' : 'Posted ', numbers));
  if (also) ctx.out(also);
  if (dryRun) ctx.out('Dry run: nothing was posted.');
}

/**
 * The JE numbers of the entries an entry is linked to (the one it reverses, those reversing it), by
 * id, for people to read; ids stay in JSON. A ledger that cannot show an entry leaves its id.
 */
export async function linkedNumbers(
  ledger: Ledger,
  entry: JournalEntry,
): Promise<Map<string, string>> {
  const ids = [entry.original_journal_entry_id, ...entry.reversed_by_journal_entry_ids];
  const numbers = new Map<string, string>();
  for (const id of ids) {
    if (!id || numbers.has(id)) continue;
    const linked = await ledger.journal.get(id).catch(() => null);
    if (linked) numbers.set(id, linked.je_number);
  }
  return numbers;
}

/**
 * A refused entry's problems, each naming the place the user gave its value (a flag, or a field of
 * the file), and reworded where the command knows better (`edit`).
 */
export function namedProblems(
  e: unknown,
  place: (path: string) => string | null,
  edit: (p: Problem) => Problem = (p) => p,
): unknown {
  if (!isBooksError(e) || e.code !== 'CAPI33' || e.errors.length === 0) return e;
  return entryInvalid(
    e.errors.map((problem) => {
      const p = edit(problem);
      const where = place(p.path);
      return where && !p.message.startsWith(where)
        ? { ...p, message: `${where}: ${p.message}` }
        : p;
    }),
  );
}

/** How long a local write waits for a rebuild to finish, as a remote one retries CAPI73. */
const REBUILD_WAIT_MS = 30_000;

/**
 * A write to the ledger that may have to wait: behind another process's import (for the write lock)
 * or, locally, behind books rebuild (CAPI73, asked again until it ends, up to 30 s). After a second,
 * a terminal is told what it waits for; nothing is said to a script.
 */
export async function waitingWrite<T>(
  ctx: Context,
  ledger: Ledger,
  write: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  let rebuilding = false;
  const tell = setTimeout(() => {
    if (!ctx.io.stderr.isTTY) return;
    const what = rebuilding
      ? 'books rebuild to finish'
      : ledger.capabilities.waitsHere
        ? 'the ledger: another process is writing to it (an import or a rebuild)'
        : `${ledger.location} to answer`;
    ctx.err(`waiting for ${what}…`);
  }, 1000);
  try {
    for (let pause = 100; ; pause = Math.min(pause * 2, 1000)) {
      try {
        return await write();
      } catch (e) {
        const retry = ledger.capabilities.waitsHere && isBooksError(e) && e.code === 'CAPI73';
        if (!retry || Date.now() - started + pause > REBUILD_WAIT_MS) throw e;
        rebuilding = true;
        await sleep(pause);
      }
    }
  } finally {
    clearTimeout(tell);
  }
}
