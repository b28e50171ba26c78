import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors } from '../../domain/errors.js';
import { keyId, type ApiKeyInfo, type Permission } from '../../domain/keys.js';
import type { KeyOps } from '../port.js';
import type { Db } from './db.js';

type KeyRow = Omit<ApiKeyInfo, 'permissions'> & { permissions: string };

/** API keys of a local ledger, for books serve: only a SHA-256 of each key is stored. */
export class SqliteKeys implements KeyOps {
  constructor(private readonly db: Db) {}

  async create(
    name: string | null,
    permissions: Permission[],
  ): Promise<ApiKeyInfo & { key: string }> {
    let id: string;
    // An id is typed after `books keys revoke`, where a leading '-' would read as an option.
    do id = randomBytes(9).toString('base64url');
    while (id.startsWith('-'));
    const key = `bk.${id}.${randomBytes(32).toString('base64url')}`;
    const created = this.db.stamp();
    const perms = [...new Set(permissions)].sort() as Permission[];
    this.db.write(() =>
      this.db
        .prep(
          `INSERT INTO api_keys (id, name, key_hash, permissions, created_at) VALUES (?, ?, ?, ?, ?)`,
        )
        .run(id, name, sha256(key), JSON.stringify(perms), created),
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

  /** Hashes are compared in constant time, and an unknown id costs the same as a known one. */
  async authenticate(key: string): Promise<Permission[] | null> {
    const id = keyId(key);
    const row = id
      ? (this.db
          .prep(`SELECT key_hash, permissions, revoked_at FROM api_keys WHERE id = ?`)
          .get(id) as
          { key_hash: string; permissions: string; revoked_at: string | null } | undefined)
      : undefined;
    const given = Buffer.from(sha256(key), 'hex');
    const stored = Buffer.from(row?.key_hash ?? '0'.repeat(64), 'hex');
    const same = timingSafeEqual(given, stored);
    return row && same && row.revoked_at === null
      ? (JSON.parse(row.permissions) as Permission[])
      : null;
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
