import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/domain/audit.js';
import { FIXTURES, fromTemplate, type FixtureLedger } from '../support/fixtures.js';
import { tamper } from '../support/tamper.js';

/**
 * What someone with the tables (sqlite3 on a file, psql on a database) can do to the trail or to
 * what it records: books audit verify and books check name the first event that does not follow.
 */

const STORES = FIXTURES.filter((f) => f.name !== 'served').map((f) => [f.name, f] as const);

/** The statements that let the trail's rows be changed at all, around `sql`. */
function unguarded(L: FixtureLedger, sql: string): string {
  if (L.file)
    return `DROP TRIGGER audit_events_kept_on_update; DROP TRIGGER audit_events_kept_on_delete; ${sql}`;
  return `BEGIN; ALTER TABLE audit_events DISABLE TRIGGER audit_events_kept; ${sql};
    ALTER TABLE audit_events ENABLE TRIGGER audit_events_kept; COMMIT;`;
}

/** Runs several statements on the store's tables (each as tamper runs one). */
function tamperAll(L: FixtureLedger, sql: string): void {
  if (!L.file) return tamper(L, sql);
  for (const one of sql.split(';').map((s) => s.trim()))
    if (one && !/^(BEGIN|COMMIT)$/.test(one)) tamper(L, one);
}

/** A ledger with three posts after its history; the events of the three. */
async function posted(L: FixtureLedger): Promise<AuditEvent[]> {
  for (const amount of [10, 20, 30]) {
    const r = await L.books([
      ...['je', 'post', '--date', '2025-02-01', '--debit', `rent=${amount}`],
      ...['--credit', `checking=${amount}`],
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
  }
  const events: AuditEvent[] = [];
  for await (const e of L.store.audit.list({})) events.push(e);
  return events.slice(-3);
}

/** books audit verify and books check both exit 1 naming event `seq` as the first that does not follow. */
async function named(L: FixtureLedger, seq: number): Promise<void> {
  for (const args of [['audit', 'verify'], ['check']]) {
    const r = await L.books(args);
    expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBe(1);
    expect(r.stderr, args.join(' ')).toContain(`audit event ${seq} does not follow`);
  }
}

describe.each(STORES)('a trail changed outside books, on %s', (_name, fixture) => {
  const cases: [
    string,
    (L: FixtureLedger, e: AuditEvent[]) => string,
    (e: AuditEvent[]) => number,
  ][] = [
    [
      "an entry's line",
      (_L, e) =>
        `UPDATE journal_lines SET memo = 'edited' WHERE entity_id = '{entity}' AND entry_seq =
             (SELECT seq FROM journal_entries WHERE entity_id = '{entity}' AND je_number = '${e[1]!.objects[1]}')`,
      (e) => e[1]!.seq,
    ],
    [
      "an event's summary",
      (L, e) =>
        unguarded(
          L,
          `UPDATE audit_events SET summary = 'nothing' WHERE entity_id = '{entity}' AND seq = ${e[1]!.seq}`,
        ),
      (e) => e[1]!.seq,
    ],
    [
      "an event's actor",
      (L, e) =>
        unguarded(
          L,
          `UPDATE audit_events SET actor = 'cli:someone' WHERE entity_id = '{entity}' AND seq = ${e[0]!.seq}`,
        ),
      (e) => e[0]!.seq,
    ],
    [
      'an event deleted',
      (L, e) =>
        unguarded(
          L,
          `DELETE FROM audit_events WHERE entity_id = '{entity}' AND seq = ${e[1]!.seq}`,
        ),
      (e) => e[1]!.seq,
    ],
    [
      'two events reordered',
      (L, e) => {
        const [a, b] = [e[1]!.seq, e[2]!.seq];
        const set = (from: number, to: number) =>
          `UPDATE audit_events SET seq = ${to} WHERE entity_id = '{entity}' AND seq = ${from}`;
        return unguarded(L, [set(a, -1), set(b, a), set(-1, b)].join('; '));
      },
      (e) => e[1]!.seq,
    ],
  ];

  it.each(cases)(
    '%s: audit verify and check name the first event that does not follow',
    async (_w, sql, first) => {
      const L = await fromTemplate(fixture, 'demo');
      try {
        const events = await posted(L);
        expect((await L.books(['audit', 'verify'])).exitCode).toBe(0);
        tamperAll(L, sql(L, events));
        await named(L, first(events));
      } finally {
        await L.close();
      }
    },
  );

  it('a guard dropped or turned off: check names it', async () => {
    const L = await fromTemplate(fixture, 'demo');
    const off = L.file
      ? 'DROP TRIGGER audit_events_kept_on_delete'
      : 'ALTER TABLE audit_events DISABLE TRIGGER audit_events_kept';
    try {
      tamper(L, off);
      const r = await L.books(['check']);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toContain("the audit trail's guard");
    } finally {
      if (!L.file) tamper(L, 'ALTER TABLE audit_events ENABLE TRIGGER audit_events_kept');
      await L.close();
    }
  });

  it('the trail refuses an update or a delete made without dropping its guard', async () => {
    const L = await fromTemplate(fixture, 'demo');
    try {
      const [e] = await posted(L);
      const edit = `UPDATE audit_events SET summary = 'x' WHERE entity_id = '{entity}' AND seq = ${e!.seq}`;
      expect(() => tamper(L, edit)).toThrow(/never changed/);
      expect((await L.books(['audit', 'verify'])).exitCode).toBe(0);
    } finally {
      await L.close();
    }
  });

  it('an anchor kept elsewhere: the chain must still pass through it', async () => {
    const L = await fromTemplate(fixture, 'demo');
    try {
      await posted(L);
      const head = (await L.books(['audit', 'head'])).stdout.trim();
      const ok = await L.books(['audit', 'verify', '--anchor', head]);
      expect(ok.exitCode, ok.stderr).toBe(0);
      const [seq] = head.split(':');
      const wrong = await L.books(['audit', 'verify', '--anchor', `${seq}:${'0'.repeat(64)}`]);
      expect(wrong.exitCode).toBe(1);
      expect(wrong.stderr).toContain(`audit event ${seq}'s hash is`);
      const beyond = await L.books([
        'audit',
        'verify',
        '--anchor',
        `${Number(seq) + 5}:${'0'.repeat(64)}`,
      ]);
      expect(beyond.exitCode).toBe(1);
      expect(beyond.stderr).toContain(`the trail has no event ${Number(seq) + 5}`);
    } finally {
      await L.close();
    }
  });
});
