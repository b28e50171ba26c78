import { spawnSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GENESIS, sealed, type EventDraft } from '../domain/audit.js';
import type { DumpRecord } from '../domain/dump.js';
import { createLedger, openLedger } from '../ledger/open.js';
import { bin, data, fmt, quick, rounds } from './measure.js';

/**
 * The audit trail's figures: verifying the 1M-line ledger's chain (its import's event records every
 * line), and listing and verifying trails of 500k and 1M events, whose memory must not grow with
 * the trail (`books audit list` streams).
 */
export async function auditFigures(ledger1m: string): Promise<string[]> {
  const rows: string[] = [];
  const n = quick ? 1 : 3;
  const row = (what: string, t: Awaited<ReturnType<typeof rounds>>) =>
    rows.push(`| ${what} | ${fmt(t)} |`);
  row(
    `books audit verify, 1M-line ledger (${n} runs)`,
    await rounds(n, [bin, 'audit', 'verify', '--ledger', ledger1m]),
  );
  for (const [name, count] of [
    // Both past what the ledger's page cache holds (64 MB): memory must not grow from one to the other.
    ['500k', 500_000],
    ['1M', 1_000_000],
  ] as const) {
    const ledger = await trailOf(count);
    row(
      `books audit list --format csv to /dev/null, ${name} events (${n} runs)`,
      await rounds(n, [
        bin,
        'audit',
        'list',
        '--format',
        'csv',
        '--output',
        '/dev/null',
        '--ledger',
        ledger,
      ]),
    );
    row(
      `books audit verify, ${name} events (${n} runs)`,
      await rounds(n, [bin, 'audit', 'verify', '--ledger', ledger]),
    );
  }
  return rows;
}

/**
 * A ledger whose trail holds `count` events (changes that wrote no entry), made once: a new ledger's
 * dump with the events added to its chain, restored into another (which verifies the chain on the
 * way in, as books migrate does).
 */
async function trailOf(count: number): Promise<string> {
  const file = join(data, `audit-${count}.sqlite`);
  if (existsSync(file)) return file;
  const seed = join(data, `audit-seed-${process.pid}.sqlite`);
  rmSync(seed, { force: true });
  const made = spawnSync(process.execPath, [bin, 'init', '--chart', 'standard', '--ledger', seed]);
  if (made.status !== 0) throw new Error(`books init: ${String(made.stderr)}`);
  const ctx = { env: process.env, clock: () => new Date() };
  const source = await openLedger({ kind: 'local', path: seed, profile: null }, ctx);
  const records: DumpRecord[] = [];
  for await (const r of source.maintenance.dump()) records.push(r);
  await source.close();
  rmSync(seed, { force: true });
  const end = records.pop() as Extract<DumpRecord, { type: 'end' }>;
  const last = records.at(-1);
  let head =
    last?.type === 'audit_event' ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS };
  const who = { actor: 'cli:bench', via: 'cli rates add' };
  const at = new Date().toISOString();
  async function* all(): AsyncGenerator<DumpRecord> {
    yield* records;
    for (let done = head.seq; done < count;) {
      const drafts: EventDraft[] = [];
      for (let i = 0; i < 10_000 && done + i < count; i++)
        drafts.push({
          who,
          action: 'rates.imported',
          objects: ['EUR'],
          summary: `exchange rates: 1 created, 0 replaced, 0 unchanged (${done + i})`,
          entries: 0,
          record: null,
        });
      const events = sealed(head, at, drafts);
      for (const e of events) yield { type: 'audit_event', ...e };
      head = events[events.length - 1]!;
      done += events.length;
    }
    yield { type: 'end', counts: { ...end.counts, audit_events: count } };
  }
  const target = await createLedger(
    { kind: 'local', path: file, profile: null },
    { name: 'Audit Bench', currency: 'USD', books_start: null, fiscal_year_start_month: 1 },
    ctx,
  );
  try {
    await target.maintenance.restore(all());
  } catch (e) {
    await target.close();
    rmSync(file, { force: true });
    throw e;
  }
  await target.close();
  return file;
}
