/** The most grants a server remembers: beyond, it forgets them all and reads them again. */
const MOST = 10_000;

/**
 * Grants read for earlier requests, by the key presented. A post's write reads its key again with its
 * facts, in the transaction that holds the entity's write lock (PostOptions.keyToVerify), so a post
 * need not read it first: a key revoked meanwhile is refused there. Reading it before was a round
 * trip per request on a database (a fifth of the posting rate of two servers on one entity) and
 * SQLite's data_version on a ledger file. Every other request reads its key.
 */
export class RememberedGrants<G extends object> {
  private readonly grants = new Map<string, G>();

  async grant(
    key: string,
    checkedInWrite: boolean,
    read: () => Promise<G | null>,
  ): Promise<G | null> {
    const known = checkedInWrite ? this.grants.get(key) : undefined;
    if (known) return known;
    const grant = await read();
    if (grant) {
      if (this.grants.size >= MOST) this.grants.clear();
      this.grants.set(key, grant);
    }
    return grant;
  }
}
