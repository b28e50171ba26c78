import { describe, expect, it } from 'vitest';
import { actingAs, terminalActor, whoNow } from '../../src/ledger/runtime/actor.js';

const tick = () => new Promise<void>((r) => setImmediate(r));

describe('who is acting', () => {
  it('each of two overlapping changes keeps its own actor after the other has ended', async () => {
    const a = { actor: 'key:a', via: 'POST /a' };
    const b = { actor: 'key:b', via: 'POST /b' };
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const first = actingAs(a, async () => {
      await held;
      await tick();
      return whoNow();
    });
    const second = await actingAs(b, async () => {
      await tick();
      return whoNow();
    });
    expect(second).toEqual(b);
    release();
    expect(await first).toEqual(a);
  });

  it('outside every change, and after one that failed, it is the terminal user', async () => {
    const terminal = { actor: terminalActor(), via: 'cli' };
    await expect(
      actingAs({ actor: 'key:x', via: 'POST /x' }, async () => {
        await tick();
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    expect(whoNow()).toEqual(terminal);
    expect(() =>
      actingAs({ actor: 'key:y', via: 'POST /y' }, () => {
        throw new Error('at once');
      }),
    ).toThrow('at once');
    await tick();
    expect(whoNow()).toEqual(terminal);
    expect(actingAs({ actor: 'key:z', via: 'cli z' }, () => whoNow().actor)).toBe('key:z');
  });
});
