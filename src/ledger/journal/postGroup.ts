import type { JournalEntry } from '../../domain/entry.js';
import type { PostOptions } from './port.js';

/** A post waiting for its group: the request and how to answer it. */
export interface WaitingPost {
  body: unknown;
  options: PostOptions;
}

export type PostOutcome = { ok: JournalEntry } | { error: unknown };

/**
 * The most posts checked and written together: a group's answers all wait for its one commit, and
 * its facts and rows travel in one statement each.
 */
export const MOST_POSTS = 64;

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

/**
 * Posts waiting for their entity's lock, taken as groups. A group is taken when its transaction has
 * the lock (`write` calls `take` then): every post that arrived while the lock was awaited (another
 * server's group holding it) goes in, at most MOST_POSTS; a lone post waits for nothing. `write`
 * checks and writes the group in that transaction and says how each post ended; a group that fails
 * as a whole fails each of its posts.
 */
export class PostQueue {
  private waiting: (WaitingPost & {
    resolve: (e: JournalEntry) => void;
    reject: (e: unknown) => void;
  })[] = [];
  private running = false;

  constructor(private readonly write: (take: () => WaitingPost[]) => Promise<PostOutcome[]>) {}

  add(post: WaitingPost): Promise<JournalEntry> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ ...post, resolve, reject });
      // The posts of one turn of the event loop (concurrent requests) go together.
      if (!this.running) {
        this.running = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.waiting.length) {
        let group: typeof this.waiting | null = null;
        const take = () => (group ??= this.waiting.splice(0, MOST_POSTS));
        let outcomes: PostOutcome[];
        try {
          outcomes = await this.write(take);
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
}
