import { errors } from '../../domain/errors.js';
import type { Grant, Ledger, LedgerStore } from '../port.js';
import { RememberedGrants } from '../books/grants.js';
import type { SqliteLedger } from './ledger.js';

/**
 * A ledger file as a store: it holds one entity, whose ledger is opened once and shared (books serve
 * answers every request on it).
 */
export class SqliteStore implements LedgerStore {
  readonly location: string;

  constructor(private readonly ledger: SqliteLedger) {
    this.location = ledger.location;
  }

  async entities(): Promise<{ id: string; slug: string | null; name: string }[]> {
    const e = await this.ledger.entity.get();
    return [{ id: e.id, slug: null, name: e.name }];
  }

  async open(entity?: string): Promise<SqliteLedger> {
    if (entity !== undefined) {
      const e = await this.ledger.entity.get();
      if (entity !== e.id)
        throw errors.usage(
          `${this.location} is a ledger file: it holds one entity (${e.name}), not '${entity}'`,
        );
    }
    return this.ledger;
  }

  async create(slug: string): Promise<SqliteLedger> {
    throw errors.usage(
      `${this.location} is a ledger file: it holds one entity already; create '${slug}' with ` +
        'books init --ledger NEW_FILE',
    );
  }

  async createRestored(slug: string): Promise<never> {
    return this.create(slug) as Promise<never>;
  }

  async authenticate(key: string, checkedInWrite = false) {
    return this.granted.grant(key, checkedInWrite, async () => {
      const granted = await this.ledger.keys.authenticate(key);
      return granted ? { ledger: this.ledger as Ledger, ...granted } : null;
    });
  }

  private readonly granted = new RememberedGrants<Grant>();

  verify() {
    return this.ledger.maintenance.verifyFile();
  }

  serving(): void {
    this.ledger.serving();
  }

  close(): Promise<void> {
    return this.ledger.close();
  }
}
