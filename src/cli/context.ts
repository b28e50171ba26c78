import type { Readable, Writable } from 'node:stream';
import { resolveTarget, type Env, type Target } from '../config/config.js';
import { errors } from '../domain/errors.js';
import { toJson } from '../domain/json.js';
import type { Ledger, LocalLedgerOps } from '../ledger/port.js';
import type { EntityInit, SqliteLedger } from '../ledger/sqlite/ledger.js';
import type { Prompter } from './prompter.js';

export type Format = 'table' | 'json' | 'csv';

export interface Io {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean };
  stdin: Readable & { isTTY?: boolean };
}

export interface GlobalFlags {
  ledger?: string;
  profile?: string;
  format?: Format;
}

/**
 * What a command may use: streams, environment, clock, output format, and lazily built ledger and
 * prompter. Tests build one with fakes; nothing here opens a file until a command asks.
 */
export class Context {
  private opened: Ledger | null = null;
  private prompterOverride: Prompter | null;

  constructor(
    readonly io: Io,
    readonly env: Env,
    readonly cwd: string,
    readonly flags: GlobalFlags,
    readonly now: () => Date = () => new Date(),
    prompter: Prompter | null = null,
  ) {
    this.prompterOverride = prompter;
  }

  get format(): Format {
    return this.flags.format ?? 'table';
  }

  get json(): boolean {
    return this.format === 'json';
  }

  /** Colour only on a terminal, and never with NO_COLOR set. */
  get color(): boolean {
    return Boolean(this.io.stdout.isTTY) && this.env.NO_COLOR === undefined;
  }

  target(): Target {
    return resolveTarget(this.flags, this.env, this.cwd);
  }

  /** The ledger the flags, environment and config name, opened once. */
  async ledger(): Promise<Ledger> {
    if (this.opened) return this.opened;
    const t = this.target();
    if (t.kind === 'remote') {
      const { HttpLedger } = await import('../ledger/http/ledger.js');
      const backoff = Number(this.env.BOOKS_RETRY_BACKOFF_MS);
      const remote = new HttpLedger({
        baseUrl: t.url,
        apiKey: t.apiKey,
        apiKeyEnv: t.apiKeyEnv,
        currency: t.currency,
        env: this.env,
        ...(backoff > 0 ? { backoffMs: backoff } : {}),
      });
      this.opened = remote;
      return remote;
    }
    const { SqliteLedger } = await import('../ledger/sqlite/ledger.js');
    const local = SqliteLedger.open(t.path, this.now);
    this.opened = local;
    return local;
  }

  /** Creates a new local ledger file (books init); refuses a path that exists. */
  async createLocal(path: string, init: EntityInit): Promise<SqliteLedger> {
    const { SqliteLedger } = await import('../ledger/sqlite/ledger.js');
    return SqliteLedger.create(path, init, this.now);
  }

  /** The local ledger, for operations the API does not offer; a remote profile is a usage error. */
  async local(operation: string): Promise<SqliteLedger & LocalLedgerOps> {
    const t = this.target();
    if (t.kind === 'remote')
      throw errors.usage(
        `${operation} works on a local ledger only; profile '${t.profile}' is remote`,
      );
    return (await this.ledger()) as SqliteLedger;
  }

  async prompter(): Promise<Prompter> {
    if (!this.prompterOverride) {
      const { inquirerPrompter } = await import('./prompter.js');
      this.prompterOverride = inquirerPrompter(this.io);
    }
    return this.prompterOverride;
  }

  out(text: string): void {
    this.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  err(text: string): void {
    this.io.stderr.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** Writes the one JSON document of a `--format json` run. */
  outJson(value: unknown): void {
    this.out(toJson(value));
  }

  async dispose(): Promise<void> {
    await this.opened?.close();
  }
}

export { toJson };
