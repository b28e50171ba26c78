import type { Readable, Writable } from 'node:stream';
import { resolveTarget, type Env, type Target } from '../config/config.js';
import { toJson } from '../domain/json.js';
import { createLedger, openLedger, openStore, type LedgerInit } from '../ledger/open.js';
import type { Ledger, LedgerStore } from '../ledger/port.js';
import { Gathered, writeWaiting } from './gather.js';
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
  entity?: string;
  format?: Format;
}

/** Raised when standard output was closed by its reader (`books je list | head`): a normal end. */
export class OutputClosed extends Error {
  constructor() {
    super('output closed');
    this.name = 'OutputClosed';
  }
}

/**
 * What a command may use: streams, environment, clock, output format, and lazily opened ledger and
 * prompter. Tests build one with fakes; nothing here opens a file until a command asks.
 */
export class Context {
  private opened: Ledger | null = null;
  private prompterOverride: Prompter | null;
  /** Set once standard output's reader has gone away. */
  outputClosed = false;

  constructor(
    readonly io: Io,
    readonly env: Env,
    readonly cwd: string,
    readonly flags: GlobalFlags,
    readonly now: () => Date = () => new Date(),
    prompter: Prompter | null = null,
  ) {
    this.prompterOverride = prompter;
    this.scripted = prompter !== null;
  }

  /** Prompts are answered by a script (tests), not a person at a terminal. */
  readonly scripted: boolean;

  get format(): Format {
    return this.flags.format ?? 'table';
  }

  get json(): boolean {
    return this.format === 'json';
  }

  /** Colour only on a terminal, and never with NO_COLOR set to a value (no-color.org). */
  get color(): boolean {
    return Boolean(this.io.stdout.isTTY) && !this.env.NO_COLOR;
  }

  target(): Target {
    return resolveTarget(this.flags, this.env, this.cwd);
  }

  /** The ledger the flags, environment and config name, opened once. */
  async ledger(): Promise<Ledger> {
    this.opened ??= await openLedger(this.target(), { env: this.env, clock: this.now });
    return this.opened;
  }

  private openedStore: LedgerStore | null = null;

  /** The store the flags, environment and config name (books serve); null for a remote profile. */
  async store(): Promise<LedgerStore | null> {
    this.openedStore ??= await openStore(this.target(), { env: this.env, clock: this.now });
    return this.openedStore;
  }

  /** Creates a new ledger (books init): a file, or an entity in a database. */
  async createLedger(
    target: Exclude<Target, { kind: 'remote' }>,
    init: LedgerInit,
  ): Promise<Ledger> {
    this.opened = await createLedger(target, init, { env: this.env, clock: this.now });
    return this.opened;
  }

  async prompter(): Promise<Prompter> {
    if (!this.prompterOverride) {
      const { inquirerPrompter } = await import('./prompter.js');
      this.prompterOverride = inquirerPrompter(this.io);
    }
    return this.prompterOverride;
  }

  out(text: string): void {
    if (this.outputClosed) throw new OutputClosed();
    const gathered = this.gathered.take();
    if (gathered) this.io.stdout.write(gathered);
    this.io.stdout.write(text.endsWith('\n') ? text : text + '\n');
  }

  private readonly gathered = new Gathered();

  /**
   * Writes a piece of a long output: pieces are gathered into writes of 64 KiB, and a write waits
   * while the reader is behind, so that memory holds what the reader has not taken yet and no more.
   * Stops the command once the reader has gone. `flush` sends what is gathered.
   */
  async write(text: string): Promise<void> {
    if (this.push(text)) await this.flush();
  }

  /** Gathers a piece without waiting; true once 64 KiB are gathered and `flush` is due. */
  push(text: string): boolean {
    if (this.outputClosed) throw new OutputClosed();
    return this.gathered.add(text);
  }

  async flush(): Promise<void> {
    await writeWaiting(this.io.stdout, this.gathered.take());
    if (this.outputClosed) throw new OutputClosed();
  }

  err(text: string): void {
    this.io.stderr.write(text.endsWith('\n') ? text : text + '\n');
  }

  /** Writes the one JSON document of a `--format json` run. */
  outJson(value: unknown): void {
    this.out(toJson(value));
  }

  async dispose(): Promise<void> {
    if (!this.outputClosed) await this.flush().catch(() => {});
    await this.opened?.close();
    await this.openedStore?.close();
  }
}

export { toJson };
