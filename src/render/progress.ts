import type { Writable } from 'node:stream';

/** A one-line progress bar on a terminal stream, redrawn at most ten times a second; silent elsewhere. */
export class Progress {
  private last = 0;
  private readonly started = Date.now();

  constructor(
    private readonly out: Writable & { isTTY?: boolean; columns?: number },
    private readonly total: number | null,
    private readonly label: string,
  ) {}

  get enabled(): boolean {
    return Boolean(this.out.isTTY);
  }

  update(done: number, detail: string): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    const secs = ((now - this.started) / 1000).toFixed(1);
    if (this.total) {
      const frac = Math.min(1, done / this.total);
      const width = 30;
      const filled = Math.round(frac * width);
      this.out.write(
        `\r${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ` +
          `${String(Math.round(frac * 100)).padStart(3)}%  ${detail}  ${secs}s\u001b[K`,
      );
    } else this.out.write(`\r${this.label} ${detail}  ${secs}s\u001b[K`);
  }

  done(): void {
    if (this.enabled) this.out.write('\r\u001b[K');
  }
}
