import { errors } from '../../domain/errors.js';
import {
  keyId,
  keyPermissions,
  mintKey,
  type ApiKeyInfo,
  type Permission,
} from '../../domain/keys.js';
import type { KeyOps } from '../port.js';
import { prepared, type PgDb } from './db.js';

type KeyRow = Omit<ApiKeyInfo, 'permissions'> & { permissions: string };

/** A key's row as authentication reads it: whose it is, its hash, permissions and revocation. */
export interface KeyAuthRow {
  entity_id: string;
  slug: string;
  key_hash: string;
  permissions: string;
  revoked_at: string | null;
}

/** The row of the key a request presents, whatever entity it is of (a key's id is unique). */
export async function keyRow(db: PgDb, key: string): Promise<KeyAuthRow | undefined> {
  const id = keyId(key);
  if (!id) return undefined;
  const rows = await db.query<KeyAuthRow>(KEY_ROW, [id]);
  return rows[0];
}

/** Every request's first statement: prepared. */
const KEY_ROW = prepared(
  `SELECT k.entity_id, e.slug, k.key_hash, k.permissions, k.revoked_at
     FROM api_keys k JOIN entities e ON e.entity_id = k.entity_id WHERE k.id = $1`,
);

/** The permissions a key grants, given its row (null for a wrong, unknown or revoked key). */
export function permissionsOf(key: string, row: KeyAuthRow | undefined): Permission[] | null {
  return keyPermissions(
    key,
    row && {
      key_hash: row.key_hash,
      permissions: JSON.parse(row.permissions) as Permission[],
      revoked_at: row.revoked_at,
    },
  );
}

/** API keys of one entity: only a SHA-256 of each key is stored. Read fresh: any server may revoke. */
export class PgKeys implements KeyOps {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
  ) {}

  async create(
    name: string | null,
    permissions: Permission[],
  ): Promise<ApiKeyInfo & { key: string }> {
    const { id, key, hash } = mintKey();
    const created = this.db.stamp();
    const perms = [...new Set(permissions)].sort() as Permission[];
    await this.db.query(
      `INSERT INTO api_keys (entity_id, id, name, key_hash, permissions, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
      [this.entityId, id, name, hash, JSON.stringify(perms), created],
    );
    return { id, name, permissions: perms, created_at: created, revoked_at: null, key };
  }

  async list(): Promise<ApiKeyInfo[]> {
    const rows = await this.db.query<KeyRow>(
      `SELECT id, name, permissions, created_at, revoked_at FROM api_keys WHERE entity_id = $1
       ORDER BY created_at, id`,
      [this.entityId],
    );
    return rows.map((k) => ({ ...k, permissions: JSON.parse(k.permissions) as Permission[] }));
  }

  async revoke(id: string): Promise<ApiKeyInfo> {
    const rows = await this.db.query(
      `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $3) WHERE entity_id = $1 AND id = $2 RETURNING id`,
      [this.entityId, id, this.db.stamp()],
    );
    if (!rows.length) throw errors.notFound(`no API key '${id}'`);
    return (await this.list()).find((k) => k.id === id)!;
  }

  async authenticate(key: string): Promise<Permission[] | null> {
    const row = await keyRow(this.db, key);
    return row?.entity_id === this.entityId ? permissionsOf(key, row) : null;
  }
}
