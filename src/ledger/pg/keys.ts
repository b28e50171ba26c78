import { keyId, keyPermissions, type Permission } from '../../domain/keys.js';
import { KeyTables } from '../sql/keyTables.js';
import type { Tables } from '../sql/dialect.js';
import type { KeyGrant, KeyOps } from '../port.js';
import { prepared, type PgDb } from './db.js';

/** A key's row as authentication reads it: whose it is, its hash, permissions and revocation. */
export interface KeyAuthRow {
  entity_id: string;
  slug: string;
  name: string | null;
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
  `SELECT k.entity_id, e.slug, k.name, k.key_hash, k.permissions, k.revoked_at
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
export class PgKeys extends KeyTables implements KeyOps {
  constructor(
    private readonly db: PgDb,
    private readonly entityId: string,
    tables: Tables,
  ) {
    super(tables);
  }

  async authenticate(key: string): Promise<KeyGrant | null> {
    const row = await keyRow(this.db, key);
    const permissions = row?.entity_id === this.entityId ? permissionsOf(key, row) : null;
    return permissions && { permissions, name: row!.name };
  }
}
