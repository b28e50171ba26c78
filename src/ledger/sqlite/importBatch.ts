import { AuditTables } from '../sql/auditTables.js';
import { FILE, sqliteSql } from './tables.js';
import type Database from 'better-sqlite3';
import {
  largeImport,
  type BatchWrites,
  type EntityState,
  type Facts,
  type ImportStore,
} from '../journal/store.js';
import type { SqliteChart } from './chart.js';
import type { Db } from './db.js';
import { indexTail } from './glIndex.js';
import { fileWriter, lastSeq, numberingFacts } from './writer.js';

/** After this many entries, a file whose dates jump about asks for fingerprints one by one. */
const FINGERPRINT_SAMPLE = 256;

/**
 * What an import asks of a ledger file: look-ups for each chunk, read on the ledger's connection
 * without the write lock, and the batch's one IMMEDIATE transaction, on a writer thread for a large
 * batch (so that SQLite works while the next entries are parsed) or on the ledger's connection.
 * Nothing is visible to others until commit, and a killed process leaves none of it.
 */
export class SqliteImportStore implements ImportStore {
  private readonly fingerprints: Fingerprints;

  constructor(
    private readonly db: Db,
    private readonly chart: SqliteChart,
    private readonly sizeHint: number | null | undefined,
  ) {
    this.fingerprints = new Fingerprints(db);
  }

  async entity(): Promise<EntityState> {
    return this.db.entity();
  }

  async facts(): Promise<Facts> {
    return this.chart.facts();
  }

  async resembling(ref: string): Promise<string[]> {
    return this.chart.resembling(ref);
  }

  async lookups(_bodies: unknown[], fingerprints: string[]): Promise<[Facts, Set<string>]> {
    const taken = new Set<string>();
    for (const fp of fingerprints) if (this.fingerprints.taken(fp)) taken.add(fp);
    return [this.chart.facts(), taken];
  }

  async openWrites(): Promise<BatchWrites> {
    const gone = this.db.stillHere();
    if (gone) throw gone;
    const large = largeImport(this.sizeHint);
    // Loaded for imports only: reports and posts need neither the writer thread nor the channel.
    const { writesHere, writesOnThread } = await import('./batchWrites.js');
    const thread = large ? await writesOnThread(this.db.location) : null;
    const channel = thread ?? writesHere(this.db.sqlite, (sql) => this.db.prep(sql));
    const db = this.db;
    // The lock is held: what the ledger's connection reads now is what the batch writes after. The
    // fingerprints read before it (another import may have posted since) are read again.
    this.fingerprints.forget();
    // A writer thread sums the totals by tag from the lines it writes.
    const byThread = channel.tagTotals && { since: channel.tagTotals.bind(channel) };
    const sink = fileWriter(channel.run, lastSeq(db), db.now, undefined, true, byThread);
    return {
      // Read on the ledger's connection (under the batch's lock), written on the batch's.
      trail: new AuditTables(
        sqliteSql((text) => db.prep(text)),
        FILE,
        channel.run,
      ),
      entity: async () => db.entity(),
      // Read on the ledger's connection, which sees every commit: the batch holds the lock now.
      taken: async (fingerprints) => {
        const one = db.prep(`SELECT 1 FROM journal_entries WHERE fingerprint = ?`).pluck();
        return new Set(fingerprints.filter((fp) => one.get(fp) !== undefined));
      },
      numbering: async () => numberingFacts(db),
      sink: () => sink,
      ...(channel.digest ? { digest: () => channel.digest!() } : {}),
      ready: () => channel.ready(),
      commit: async () => {
        indexTail(channel.run);
        await channel.commit();
      },
      rollback: () => channel.rollback(),
    };
  }
}

/**
 * Which fingerprints the ledger holds already. Fingerprints start with the entry's date: a
 * date-ordered file reads the fingerprints of each date once; a file whose dates jump about would
 * read a date's fingerprints again and again, so after a sample it asks for each one alone.
 */
class Fingerprints {
  private readonly ofDate: Database.Statement;
  private readonly one: Database.Statement;
  private date: string | null = null;
  private set = new Set<string>();
  private asked = 0;
  private switches = 0;
  private oneByOne = false;

  constructor(db: Db) {
    this.ofDate = db
      .prep(`SELECT fingerprint FROM journal_entries WHERE fingerprint >= ? AND fingerprint < ?`)
      .pluck();
    this.one = db.prep(`SELECT 1 FROM journal_entries WHERE fingerprint = ?`).pluck();
  }

  /** Forgets the fingerprints read so far: the next look-up reads its date's anew. */
  forget(): void {
    this.date = null;
    this.set = new Set();
  }

  taken(fp: string): boolean {
    if (this.oneByOne) return this.one.get(fp) !== undefined;
    const date = fp.slice(0, fp.indexOf(':') + 1);
    if (date !== this.date) {
      this.date = date;
      this.set = new Set(this.ofDate.all(date, `${date.slice(0, -1)};`) as string[]);
      this.switches++;
    }
    if (++this.asked === FINGERPRINT_SAMPLE && this.switches * 4 > this.asked) this.oneByOne = true;
    return this.set.has(fp);
  }
}
