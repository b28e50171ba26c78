import { recordChange } from './auditTables.js';
import { whoNow } from '../runtime/actor.js';
import { errors } from '../../domain/errors.js';
import { mintKey, type ApiKeyInfo, type Permission } from '../../domain/keys.js';
import type { Session, Tables } from './dialect.js';

type KeyRow = Omit<ApiKeyInfo, 'permissions'> & { permissions: string };

/**
 * The entity's API keys as every store keeps them: only a SHA-256 of each key is stored. How a
 * request's key is found is the store's own (a file keeps its keys read; a database reads fresh).
 */
export class KeyTables {
  constructor(private readonly tables: Tables) {}

  async create(
    name: string | null,
    permissions: Permission[],
  ): Promise<ApiKeyInfo & { key: string }> {
    const { id, key, hash } = mintKey();
    const created = this.tables.stamp();
    const perms = [...new Set(permissions)].sort() as Permission[];
    const who = whoNow();
    await this.tables.write(async (s) => {
      const { sql, scope } = s;
      await sql.insert(
        'api_keys',
        scope.columns(['id', 'name', 'key_hash', 'permissions', 'created_at'].map(text)),
        [scope.row([id, name, hash, JSON.stringify(perms), created])],
      );
      const named = name ? ` '${name}'` : '';
      await recordChange(
        s,
        who,
        'key.created',
        [id],
        `API key ${id}${named} created: ${perms.join(', ')}`,
      );
    });
    return { id, name, permissions: perms, created_at: created, revoked_at: null, key };
  }

  list(): Promise<ApiKeyInfo[]> {
    return this.tables.once(listed);
  }

  revoke(id: string): Promise<ApiKeyInfo> {
    const who = whoNow();
    return this.tables.write(async (s) => {
      const { sql, scope } = s;
      const ofKey = `${scope.of('api_keys')}id = ?`;
      const found = await sql.all<{ revoked_at: string | null }>(
        `SELECT revoked_at FROM api_keys WHERE ${ofKey}`,
        [id],
      );
      if (!found.length) throw errors.notFound(`no API key '${id}'`);
      await sql.run(`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE ${ofKey}`, [
        this.tables.stamp(),
        id,
      ]);
      const key = (await listed(s)).find((k) => k.id === id)!;
      if (found[0]!.revoked_at === null)
        await recordChange(s, who, 'key.revoked', [id], `API key ${id} revoked`);
      return key;
    });
  }
}

async function listed({ sql, scope }: Session): Promise<ApiKeyInfo[]> {
  const rows = await sql.all<KeyRow>(
    `SELECT id, name, permissions, created_at, revoked_at FROM api_keys k WHERE ${scope.of('k')}TRUE
     ORDER BY created_at, id`,
    [],
  );
  return rows.map((k) => ({ ...k, permissions: JSON.parse(k.permissions) as Permission[] }));
}

function text(name: string) {
  return { name, type: 'text' } as const;
}
