import { BooksError, errors } from '../../domain/errors.js';
import type { Problem } from '../../domain/errors.js';
import { newId } from '../ids.js';
import { RememberedGrants } from '../books/grants.js';
import type { LedgerInit } from '../port.js';
import type { Grant, LedgerStore } from '../port.js';
import { PgDb, redacted, type Clock, type Query } from './db.js';
import { keyRow, permissionsOf } from './keys.js';
import { PgLedger } from './ledger.js';
import type { DumpCounts } from '../../domain/dump.js';
import { migrate, PG_MIGRATIONS, schemaVersion } from './schema.js';

/** An entity's slug: what --entity names it by. */
const SLUG = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/**
 * A PostgreSQL database of many entities' books. Ledgers opened from it share its pool; each acts on
 * its own entity's rows only.
 */
export class PgStore implements LedgerStore {
  readonly location: string;
  private readonly ledgers = new Map<string, PgLedger>();

  /** Set for a command's one ledger: closing it closes the store. */
  closesWithLedger = false;

  private constructor(private readonly db: PgDb) {
    this.location = redacted(db.location);
  }

  /** Connects, bringing the schema up to date (or creating it, for `create`). */
  static async open(
    url: string,
    clock: Clock,
    poolSize?: number,
    create = false,
  ): Promise<PgStore> {
    const db = new PgDb(url, clock, poolSize);
    try {
      const version = await schemaVersion(db.query);
      if (version === 0 && !create) {
        const [sp] = await db.query<{ path: string }>(
          `SELECT current_setting('search_path') AS path`,
        );
        throw new BooksError(
          'no_ledger',
          `${redacted(url)} has no books tables where its search_path (${sp!.path}) looks: ` +
            'create them with books init --ledger URL --entity SLUG, or set search_path to their schema',
        );
      }
      if (version !== PG_MIGRATIONS.length) await db.tx((q) => migrate(q, redacted(url)));
    } catch (e) {
      await db.close();
      throw e;
    }
    return new PgStore(db);
  }

  async entities(): Promise<{ id: string; slug: string | null; name: string }[]> {
    return this.db.query(
      `SELECT entity_id AS id, slug, name FROM entities ORDER BY slug COLLATE "C"`,
    );
  }

  /** The entity named by slug or id, or the only one. */
  async open(entity?: string): Promise<PgLedger> {
    const all = await this.entities();
    const slugs = all.map((e) => e.slug).join(', ');
    let found;
    if (entity === undefined) {
      if (all.length !== 1)
        throw errors.usage(
          all.length === 0
            ? `${this.location} holds no entity yet; create one with books init --ledger URL --entity SLUG`
            : `${this.location} holds ${all.length} entities (${slugs}); name one with --entity SLUG`,
        );
      found = all[0]!;
    } else {
      found = all.find((e) => e.slug === entity || e.id === entity);
      if (!found)
        throw new BooksError(
          'no_ledger',
          `no entity '${entity}' in ${this.location}${all.length ? `; entities: ${slugs}` : ''}`,
        );
    }
    return this.ledgerOf(found.id, found.slug!);
  }

  private ledgerOf(id: string, slug: string): PgLedger {
    let ledger = this.ledgers.get(id);
    if (!ledger)
      this.ledgers.set(
        id,
        (ledger = new PgLedger(this.db, id, slug, async () => {
          if (this.closesWithLedger) await this.close();
        })),
      );
    return ledger;
  }

  async create(slug: string, init: LedgerInit): Promise<PgLedger> {
    const id = await this.insertEntity(
      this.db.query,
      slug,
      init,
      'books init will not overwrite it',
    );
    return this.ledgerOf(id, slug);
  }

  /**
   * Creates the entity and restores a dump into it in one transaction, checked before it commits
   * (PgMaintenance.restoreIn): refused or interrupted, it leaves no entity behind.
   */
  async createRestored(
    slug: string,
    init: LedgerInit,
    records: AsyncIterable<unknown>,
  ): Promise<{ ledger: PgLedger; counts: DumpCounts }> {
    let id = '';
    const counts = await this.db.tx(async (q) => {
      id = await this.insertEntity(q, slug, init, 'nothing was copied');
      // Not kept among the store's ledgers until the entity is committed.
      const ledger = new PgLedger(this.db, id, slug, async () => {});
      return ledger.restoreIn(q, records);
    });
    return { ledger: this.ledgerOf(id, slug), counts };
  }

  /** A new entity's row; its id. A slug taken already is refused, saying what was not done. */
  private async insertEntity(
    q: Query,
    slug: string,
    init: LedgerInit,
    notDone: string,
  ): Promise<string> {
    if (!SLUG.test(slug))
      throw errors.usage(
        `--entity: '${slug}' is not a slug (lower-case letters, digits, '-' and '_', at most 63)`,
      );
    const id = newId('ent');
    const rows = await q(
      `INSERT INTO entities (entity_id, slug, name, currency, books_start, fiscal_year_start_month,
         created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
       ON CONFLICT (slug) DO NOTHING RETURNING entity_id`,
      [
        id,
        slug,
        init.name,
        init.currency,
        init.books_start,
        init.fiscal_year_start_month,
        this.db.stamp(),
      ],
    );
    if (!rows.length)
      throw errors.usage(`${this.location} holds an entity '${slug}' already; ${notDone}`);
    return id;
  }

  async authenticate(key: string, checkedInWrite = false) {
    return this.granted.grant(key, checkedInWrite, async () => {
      const row = await keyRow(this.db, key);
      const permissions = permissionsOf(key, row);
      return row && permissions
        ? { ledger: this.ledgerOf(row.entity_id, row.slug), permissions, name: row.name }
        : null;
    });
  }

  private readonly granted = new RememberedGrants<Grant>();

  async verify(): Promise<Problem[]> {
    return [];
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.db.close();
  }
}
