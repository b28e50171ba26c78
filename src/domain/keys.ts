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
