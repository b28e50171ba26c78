import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/domain/audit.js';
import type { DumpRecord } from '../../src/domain/dump.js';
import { isBooksError } from '../../src/domain/errors.js';
import type { Ledger } from '../../src/ledger/port.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';
import { AUDIT_VERSION } from '../../src/ledger/sqlite/schema.js';
import { databaseUrl } from '../support/fixtures.js';
import { books } from '../support/helpers.js';
import { copyTemplate, emptyLedger } from '../support/ledgers.js';

async function trail(ledger: Ledger): Promise<AuditEvent[]> {
  const out: AuditEvent[] = [];
  for await (const e of ledger.audit.list({})) out.push(e);
  return out;
}

async function dumpOf(file: string): Promise<DumpRecord[]> {
  const source = SqliteLedger.open(file);
  try {
    const out: DumpRecord[] = [];
    for await (const r of source.maintenance.dump()) out.push(r);
    return out;
  } finally {
    await source.close();
  }
}

async function* each<T>(xs: T[]): AsyncGenerator<T> {
  yield* xs;
}

/** A post of the tests: five dollars of rent. */
const post = ['je', 'post', '--date', '2025-02-01', '--debit', 'rent=5', '--credit', 'checking=5'];

describe('the audit trail moved between stores', () => {
  it('books migrate keeps the chain, event for event, and appends its own', async () => {
    const { ledger: file } = copyTemplate('demo');
    expect((await books([...post, '--ledger', file])).exitCode).toBe(0);
    const source = SqliteLedger.open(file);
    const before = await trail(source);
    await source.close();
    const url = databaseUrl();
    const entity = `a-${randomBytes(5).toString('hex')}`;
    const r = await books(['migrate', '--from', file, '--to', url, '--entity', entity]);
    expect(r.exitCode, r.stderr).toBe(0);
    const at = ['--ledger', url, '--entity', entity];
    const listed = await books(['audit', 'list', '--format', 'json', ...at]);
    const after = (JSON.parse(listed.stdout) as { data: AuditEvent[] }).data;
    expect(after.slice(0, before.length)).toEqual(before);
    expect(after.slice(before.length).map((e) => [e.seq, e.action, e.via])).toEqual([
      [before.length + 1, 'ledger.migrated', 'cli migrate'],
    ]);
    const verified = await books(['audit', 'verify', ...at]);
    expect(verified.exitCode, verified.stderr).toBe(0);
    // And posting there goes on from the chain's head.
    expect((await books([...post, ...at])).exitCode).toBe(0);
    expect((await books(['check', ...at])).exitCode).toBe(0);
  });

  it('a dump whose chain does not verify is refused on the way in, and nothing is restored', async () => {
    const records = await dumpOf(copyTemplate('demo').ledger);
    const i = records.findIndex((r) => r.type === 'audit_event');
    const changed = { ...records[i]!, summary: 'something else' } as DumpRecord;
    const target = SqliteLedger.open(emptyLedger('USD'));
    try {
      const refused = await target.maintenance
        .restore(each(records.map((r, j) => (j === i ? changed : r))))
        .then(
          () => null,
          (e: unknown) => e,
        );
      expect(isBooksError(refused) && refused.code).toBe('invalid_input');
      expect(String((refused as Error).message)).toContain('audit event 1 does not follow');
      expect(await trail(target)).toEqual([]);
      expect((await target.entity.record()).entry_count).toBe(0);
    } finally {
      await target.close();
    }
  });

  it('a dump written before the trail starts one that records its entries', async () => {
    const records = (await dumpOf(copyTemplate('demo').ledger)).filter(
      (r) => r.type !== 'audit_event',
    );
    const end = records.at(-1) as Extract<DumpRecord, { type: 'end' }>;
    end.counts = { ...end.counts, audit_events: 0 };
    const target = SqliteLedger.open(emptyLedger('USD'));
    try {
      await target.maintenance.restore(each(records));
      const events = await trail(target);
      expect(events.map((e) => [e.action, e.entries])).toEqual([
        ['trail.started', 333],
        ['ledger.migrated', 0],
      ]);
      expect((await target.audit.verify()).problems).toEqual([]);
    } finally {
      await target.close();
    }
  });

  it('a ledger file written before the trail starts it when first opened: check holds at once', async () => {
    const { ledger: file } = copyTemplate('demo');
    // As a books without the trail left it: no table, the schema of the version before it.
    const db = new Database(file);
    db.exec('DROP TABLE audit_events');
    db.pragma(`user_version = ${AUDIT_VERSION - 1}`);
    db.close();
    const checked = await books(['check', '--ledger', file]);
    expect(checked.exitCode, checked.stderr).toBe(0);
    const r = await books([...post, '--ledger', file]);
    expect(r.exitCode, r.stderr).toBe(0);
    const shown = await books(['je', 'show', 'JE-1', '--ledger', file]);
    expect(shown.stdout).toContain(
      'Posted before the audit trail started (audit event 1 records it)',
    );
    const ledger = SqliteLedger.open(file);
    try {
      const events = await trail(ledger);
      expect(events.map((e) => [e.seq, e.action, e.entries])).toEqual([
        [1, 'trail.started', 333],
        [2, 'entry.posted', 1],
      ]);
      expect((await ledger.maintenance.check()).problems).toEqual([]);
    } finally {
      await ledger.close();
    }
  });
});
