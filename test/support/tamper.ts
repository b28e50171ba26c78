import { execFileSync } from 'node:child_process';
import Database from 'better-sqlite3';
import { psqlPath } from '../../src/bench/cluster.js';
import type { PgLedger } from '../../src/ledger/pg/ledger.js';
import { databaseUrl, type FixtureLedger } from './fixtures.js';

/** Runs SQL on the store's own tables: `{entity}` is the entity's id on a database, '' in a file. */
export function tamper(
  L: FixtureLedger,
  sql: string,
  params: Record<string, string | bigint> = {},
): void {
  if (L.file) {
    const db = new Database(L.file);
    try {
      db.prepare(
        sql.replace(
          / WHERE entity_id = '\{entity\}'$| AND entity_id = '\{entity\}'|entity_id = '\{entity\}' AND /g,
          '',
        ),
      ).run(params);
    } finally {
      db.close();
    }
    return;
  }
  const entity = (L.store as PgLedger).entityId;
  const text = sql.replaceAll('{entity}', entity).replace(/@(\w+)/g, (_m, k: string) => {
    const v = params[k]!;
    return typeof v === 'bigint' ? String(v) : `'${v.replaceAll("'", "''")}'`;
  });
  execFileSync(psqlPath(), [databaseUrl(), '-qc', text]);
}
