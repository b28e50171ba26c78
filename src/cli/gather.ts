/** How much of a long output is gathered before it is handed on in one write. */
export const GATHER_CHARS = 65_536;

/**
 * The pieces of a long output (a line each), gathered into writes of 64 KiB: a write per line would
 * cost more than the line, and awaiting each would cost more again.
 */
export class Gathered {
  private text = '';

  /** Adds a piece; true once enough is gathered that it is time to hand it on. */
  add(piece: string): boolean {
    this.text += piece;
    return this.text.length >= GATHER_CHARS;
  }

  /** What is gathered, taken out. */
  take(): string {
    const text = this.text;
    this.text = '';
    return text;
  }
}

/**
 * Writes text to a stream, and when the stream says it is full, waits until it drains, closes or
 * fails: memory then holds what the reader has not taken yet, and no more.
 */
export async function writeWaiting(stream: NodeJS.WritableStream, text: string): Promise<void> {
  if (text === '' || stream.write(text)) return;
  await new Promise<void>((resolve) => {
    const events = ['drain', 'close', 'error'];
    const done = () => {
      for (const event of events) stream.off(event, done);
      resolve();
    };
    for (const event of events) stream.once(event, done);
  });
}
