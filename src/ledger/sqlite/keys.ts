import { keyId, keyPermissions, type Permission } from '../../domain/keys.js';
import { KeyTables } from '../sql/keyTables.js';
import type { KeyGrant, KeyOps } from '../port.js';
import type { Db } from './db.js';
import { fileTables } from './tables.js';

type KeyAuthRow = {
  name: string | null;
  key_hash: string;
  permissions: string;
  revoked_at: string | null;
};

/** API keys of a local ledger, for books serve: only a SHA-256 of each key is stored. */
export class SqliteKeys extends KeyTables implements KeyOps {
  constructor(private readonly db: Db) {
    super(fileTables(db));
  }

  /** A key's row, kept while the ledger is unchanged (a revocation by any process is seen at once). */
  private keyRow(id: string): KeyAuthRow | undefined {
    // Only keys that exist are kept: unknown ids sent by anyone cannot make the map grow.
    const kept = this.db.kept('api keys', () => new Map<string, KeyAuthRow>());
    let row = kept.get(id);
    if (row) return row;
    row = this.db
      .prep(`SELECT name, key_hash, permissions, revoked_at FROM api_keys WHERE id = ?`)
      .get(id) as KeyAuthRow | undefined;
    if (row) kept.set(id, row);
    return row;
  }

  async authenticate(key: string): Promise<KeyGrant | null> {
    const id = keyId(key);
    const row = id ? this.keyRow(id) : undefined;
    const stored = row && {
      key_hash: row.key_hash,
      permissions: JSON.parse(row.permissions) as Permission[],
      revoked_at: row.revoked_at,
    };
    const permissions = keyPermissions(key, stored);
    return permissions && { permissions, name: row!.name };
  }
}
