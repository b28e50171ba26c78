import { errors } from '../../domain/errors.js';
import {
  keyId,
  keyPermissions,
  mintKey,
  type ApiKeyInfo,
  type Permission,
} from '../../domain/keys.js';
import type { KeyOps } from '../port.js';
import type { Db } from './db.js';

type KeyRow = Omit<ApiKeyInfo, 'permissions'> & { permissions: string };
type KeyAuthRow = { key_hash: string; permissions: string; revoked_at: string | null };

/** API keys of a local ledger, for books serve: only a SHA-256 of each key is stored. */
export class SqliteKeys implements KeyOps {
  constructor(private readonly db: Db) {}

  async create(
    name: string | null,
    permissions: Permission[],
  ): Promise<ApiKeyInfo & { key: string }> {
    const { id, key, hash } = mintKey();
    const created = this.db.stamp();
    const perms = [...new Set(permissions)].sort() as Permission[];
    this.db.write(() =>
      this.db
        .prep(
          `INSERT INTO api_keys (id, name, key_hash, permissions, created_at) VALUES (?, ?, ?, ?, ?)`,
        )
        .run(id, name, hash, JSON.stringify(perms), created),
    );
    return { id, name, permissions: perms, created_at: created, revoked_at: null, key };
  }

  async list(): Promise<ApiKeyInfo[]> {
    return this.listSync();
  }

  private listSync(): ApiKeyInfo[] {
    const rows = this.db
      .prep(
        `SELECT id, name, permissions, created_at, revoked_at FROM api_keys ORDER BY created_at, id`,
      )
      .all() as KeyRow[];
    return rows.map((k) => ({ ...k, permissions: JSON.parse(k.permissions) as Permission[] }));
  }

  async revoke(id: string): Promise<ApiKeyInfo> {
    return this.db.write(() => {
      const found = this.db.prep(`SELECT 1 FROM api_keys WHERE id = ?`).get(id);
      if (!found) throw errors.notFound(`no API key '${id}'`);
      this.db
        .prep(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`)
        .run(this.db.stamp(), id);
      return this.listSync().find((k) => k.id === id)!;
    });
  }

  /** A key's row, kept while the ledger is unchanged (a revocation by any process is seen at once). */
  private keyRow(id: string): KeyAuthRow | undefined {
    // Only keys that exist are kept: unknown ids sent by anyone cannot make the map grow.
    const kept = this.db.kept('api keys', () => new Map<string, KeyAuthRow>());
    let row = kept.get(id);
    if (row) return row;
    row = this.db
      .prep(`SELECT key_hash, permissions, revoked_at FROM api_keys WHERE id = ?`)
      .get(id) as KeyAuthRow | undefined;
    if (row) kept.set(id, row);
    return row;
  }

  async authenticate(key: string): Promise<Permission[] | null> {
    const id = keyId(key);
    const row = id ? this.keyRow(id) : undefined;
    const stored = row && {
      key_hash: row.key_hash,
      permissions: JSON.parse(row.permissions) as Permission[],
      revoked_at: row.revoked_at,
    };
    return keyPermissions(key, stored);
  }
}
