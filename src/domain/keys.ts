import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const PERMISSIONS = ['customer_api:post_journal_entries', 'customer_api:read'] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** True for a permission a key can carry. */
export function isPermission(p: string): p is Permission {
  return (PERMISSIONS as readonly string[]).includes(p);
}

/** An API key as listed: never the key itself. */
export interface ApiKeyInfo {
  id: string;
  name: string | null;
  permissions: Permission[];
  created_at: string;
  revoked_at: string | null;
}

/** The id part of a key `bk.<id>.<secret>`, or null when the text is not shaped like a key. */
export function keyId(key: string): string | null {
  const m = /^bk\.([A-Za-z0-9_-]{8,32})\.([A-Za-z0-9_-]{20,128})$/.exec(key);
  return m ? m[1]! : null;
}

/** A key as a ledger keeps it: its id, the SHA-256 of the whole key, its permissions, its state. */
export interface StoredKey {
  key_hash: string;
  permissions: Permission[];
  revoked_at: string | null;
}

/** The SHA-256 of a key, in hex: all that a ledger keeps of it. */
export function keyHash(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/**
 * A new key `bk.<id>.<secret>`: 72 random bits of id (never starting with `-`, which a shell
 * command would read as an option) and 256 of secret. Returns the key, shown once, and its hash.
 */
export function mintKey(): { id: string; key: string; hash: string } {
  let id: string;
  do id = randomBytes(9).toString('base64url');
  while (id.startsWith('-'));
  const key = `bk.${id}.${randomBytes(32).toString('base64url')}`;
  return { id, key, hash: keyHash(key) };
}

/**
 * The permissions a key grants, or null: its stored row (by the key's id) must exist, match its hash
 * and not be revoked. Hashes are compared in constant time, an unknown id against a hash of zeros:
 * the id is not the secret (keys list shows it); the secret part does not show in the time.
 */
export function keyPermissions(key: string, stored: StoredKey | undefined): Permission[] | null {
  const given = Buffer.from(keyHash(key), 'hex');
  const expected = Buffer.from(stored?.key_hash ?? '0'.repeat(64), 'hex');
  const same = timingSafeEqual(given, expected);
  return stored && same && stored.revoked_at === null ? stored.permissions : null;
}
