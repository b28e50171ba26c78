import type { JournalEntry } from '../../domain/entry.js';
import { errors } from '../../domain/errors.js';
import type { PostOptions } from './port.js';
import { LOCK_WAIT_MS, type WriteFacts } from './store.js';
import type { Who } from '../../domain/audit.js';

/** A post waiting for its group: the request and how to answer it. */
export interface WaitingPost {
  body: unknown;
  options: PostOptions;
  /** Who asked for it, for its audit event (the group is written in another's turn). */
  who: Who;
}

export type PostOutcome = { ok: JournalEntry } | { error: unknown };

/**
 * The most posts checked and written together: a group's answers all wait for its one commit, and
 * its facts and rows travel in one statement each.
 */
export const MOST_POSTS = 64;

/** The groups whose sizes say whether the next may be taken before its lock (PostQueue). */
const RECENT = 16;

/**
 * Whether a post may be checked with others against one reading of the facts: a plain post, which
 * reads nothing that another post of its group writes except the numbering and the keys (both kept
 * in memory for the group). A post that names its JE number, carries a foreign amount (a rate, a
 * settlement of open items) or an import's fingerprint is posted on its own.
 */
export function groupable(body: unknown, options: PostOptions): boolean {
  if (options.dryRun || options.fingerprint !== undefined) return false;
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return true;
  const b = body as Record<string, unknown>;
  if (b.je_number !== undefined && b.je_number !== null) return false;
  if (!Array.isArray(b.lines)) return true;
  return !b.lines.some(
    (l) => typeof l === 'object' && l !== null && (l as Record<string, unknown>).fx !== undefined,
  );
}

/** A write of the queue: a post that may go in a group, or a write that runs on its own. */
type Queued = {
  resolve: (e: JournalEntry) => void;
  reject: (e: unknown) => void;
  /** When it was asked (ms). */
  asked: number;
} & (WaitingPost | { alone: () => Promise<JournalEntry> });

/**
 * An entity's posts and reversals in the order they were asked, the plain posts taken as groups. A
 * group is taken when its transaction has the lock (`write` calls `take` then): the plain posts at
 * the head of the queue at that moment (those that arrived while another server's group held the
 * lock), at most MOST_POSTS; a lone post waits for nothing. Where as many posts wait already as the
 * entity's recent groups held (`early`), it is taken before, and its facts may go with the lock; a
 * post of it whose wait in all then outlasts LOCK_WAIT_MS is refused (waitedTooLong). A write that
 * cannot go in a group (a post that names its number, a reversal) runs on its own when it comes to
 * the head, so that no write overtakes one asked before it. `write` checks and writes a group in one
 * transaction and says how each post ended; a group that fails as a whole fails each of its posts. A
 * write that has waited in the queue longer than a writer waits for the lock (LOCK_WAIT_MS) is
 * refused as locked when it reaches the head, as on a ledger file: waits do not add up along the
 * queue.
 */
export class PostQueue {
  private waiting: Queued[] = [];
  private running = false;
  /** How many posts the last groups held (RECENT of them), the newest last. */
  private readonly sizes: number[] = [];

  /** `write(take, early)`: `early`, the group may be taken before the lock is asked for. */
  constructor(
    private readonly write: (take: () => WaitingPost[], early: boolean) => Promise<PostOutcome[]>,
  ) {}

  add(post: WaitingPost): Promise<JournalEntry> {
    return this.queue(post);
  }

  /** A write that runs on its own, in its turn. */
  addAlone(alone: () => Promise<JournalEntry>): Promise<JournalEntry> {
    return this.queue({ alone });
  }

  private queue(item: WaitingPost | { alone: () => Promise<JournalEntry> }): Promise<JournalEntry> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...item, resolve, reject, asked: Date.now() });
      // The writes of one turn of the event loop (concurrent requests) go together.
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length) {
        this.refuseStale();
        const head = this.waiting[0];
        if (!head) break;
        if ('alone' in head) {
          this.waiting.shift();
          await head.alone().then(head.resolve, head.reject);
          continue;
        }
        let group: (WaitingPost & Queued)[] | null = null;
        const take = () => (group ??= this.leadingPosts());
        // As many posts wait as the largest of the last groups held (a lone poster's, each time):
        // the group is taken now, and its facts may go with the lock. Else it is taken once the
        // lock is had, with the posts that arrived meanwhile: the clients a group answered post
        // again about together, and a group taken early would leave the later ones to the next.
        const early = this.leading() >= Math.max(1, ...this.sizes);
        let outcomes: PostOutcome[];
        try {
          outcomes = await this.write(take, early);
        } catch (e) {
          outcomes = take().map(() => ({ error: e }));
        }
        take().forEach((p, i) => {
          const o = outcomes[i]!;
          if ('ok' in o) p.resolve(o.ok);
          else p.reject(o.error);
        });
      }
    } finally {
      this.running = false;
    }
  }

  /** How many plain posts lead the queue. */
  private leading(): number {
    let n = 0;
    while (n < this.waiting.length && !('alone' in this.waiting[n]!)) n++;
    return n;
  }

  /** Refuses, as locked, the writes at the head that have waited longer than the lock wait. */
  private refuseStale(): void {
    while (this.waiting.length && outwaited(this.waiting[0]!.asked))
      this.waiting.shift()!.reject(errors.locked());
  }

  /** The plain posts at the head of the queue, at most MOST_POSTS, taken off it. */
  private leadingPosts(): (WaitingPost & Queued)[] {
    this.refuseStale();
    const n = Math.min(this.leading(), MOST_POSTS);
    this.sizes.push(n);
    if (this.sizes.length > RECENT) this.sizes.shift();
    return this.waiting.splice(0, n) as (WaitingPost & Queued)[];
  }
}

/**
 * Whether a post has waited, in the queue and for the lock together, longer than a writer waits for
 * the lock (LOCK_WAIT_MS): a group taken before its lock refuses it as locked then, as PostQueue
 * refuses one at the head of the queue.
 */
export function waitedTooLong(post: WaitingPost): boolean {
  const { asked } = post as Partial<Queued>;
  return asked !== undefined && outwaited(asked);
}

/** Whether a write asked at `asked` (ms) has waited longer than a writer waits for the lock. */
const outwaited = (asked: number) => asked < Date.now() - LOCK_WAIT_MS;

/** The API keys posts ask to be read again with their facts (PostOptions.keyToVerify). */
export function apiKeysOf(options: { keyToVerify?: string }[]): { apiKeys?: string[] } {
  const ids = new Set(options.flatMap((o) => (o.keyToVerify === undefined ? [] : [o.keyToVerify])));
  return ids.size ? { apiKeys: [...ids] } : {};
}

/** Refuses, as unauthenticated, a post whose key was granted from memory and is revoked or gone. */
export function keyLive(options: { keyToVerify?: string }, facts: WriteFacts): void {
  if (options.keyToVerify !== undefined && !facts.liveKeys?.has(options.keyToVerify))
    throw errors.unauthenticated();
}
