import { copyFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { inject } from 'vitest';
import type { TemplateName } from './globalSetup.js';
import { SqliteLedger } from '../../src/ledger/sqlite/ledger.js';

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), 'books-test-'));
}

/** A fresh copy of a template ledger (built once per run by the global setup), in a folder of its own. */
export function copyTemplate(
  name: TemplateName,
  file = 'books.sqlite',
): { dir: string; ledger: string } {
  const dir = tempDir();
  const ledger = join(dir, file);
  copyFileSync(join(inject('templates'), `${name}.sqlite`), ledger);
  return { dir, ledger };
}

/**
 * Resolves once another connection holds the ledger's write lock (an import under way), asking
 * without waiting for it: the state a test means to reach, not a guess at how long it takes.
 */
export async function untilWriteLocked(path: string, timeoutMs = 30_000): Promise<void> {
  const db = new Database(path, { timeout: 0 });
  db.pragma('busy_timeout = 0');
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      try {
        db.exec('BEGIN IMMEDIATE');
        db.exec('ROLLBACK');
      } catch (e) {
        if ((e as { code?: string }).code?.startsWith('SQLITE_BUSY')) return;
        throw e;
      }
      if (Date.now() > deadline)
        throw new Error(`nothing took the write lock of ${path} in ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    db.close();
  }
}

/** Resolves once `ready()` holds, checking every few milliseconds (a state, not a fixed sleep). */
export async function until(
  ready: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Runs SQL on a ledger file through a connection of its own (a trigger is then seen by every connection). */
export function exec(path: string, sql: string): void {
  const db = new Database(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}

/**
 * SQL that takes a ledger file back to schema 12 (before foreign currencies, cash_flow and tags), for
 * tests of older schemas; each later migration adds its undoing here.
 */
export const BACK_TO_SCHEMA_12 = `ALTER TABLE accounts DROP COLUMN cash_flow;
  ALTER TABLE journal_entries DROP COLUMN tags;
  ALTER TABLE journal_lines DROP COLUMN tags;
  DROP TABLE tag_month_totals;
  DROP INDEX journal_lines_fx;
  ALTER TABLE journal_lines DROP COLUMN fx_currency;
  ALTER TABLE journal_lines DROP COLUMN fx_amount_atoms;
  ALTER TABLE journal_lines DROP COLUMN fx_rate;
  ALTER TABLE journal_lines DROP COLUMN system;
  DROP TABLE exchange_rates;
  ALTER TABLE accounts DROP COLUMN monetary;
  ALTER TABLE entity DROP COLUMN fx_realized;
  ALTER TABLE entity DROP COLUMN fx_unrealized;`;

/** A new ledger file with nothing in it but an entity (as books init without a chart makes). */
export function emptyLedger(currency = 'EUR'): string {
  const file = join(tempDir(), 'restored.sqlite');
  SqliteLedger.create(file, {
    name: 'Someone Else',
    currency,
    books_start: null,
    fiscal_year_start_month: 1,
  }).close();
  return file;
}
