import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Sustained posting over loopback: a fresh ledger served by `books serve`, 8 concurrent connections
 * each posting 4-line entries back to back for a fixed time. Reports entries per second and latency
 * percentiles as the client saw them.
 */
export async function httpBench(bin: string, dir: string, seconds: number, connections = 8): Promise<{ rate: number; p50: number; p99: number; max: number; entries: number; errors: number }> {
  const ledger = join(dir, 'http-bench.sqlite');
  for (const s of ['', '-wal', '-shm']) rmSync(ledger + s, { force: true });
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...args, '--ledger', ledger], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  run(['init', '--chart', 'standard', '--first-month', '2025-01']);
  const key = run(['keys', 'create', '--permission', 'customer_api:post_journal_entries']).trim();
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', '--ledger', ledger], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', () => reject(new Error('serve exited')));
  });
  const body = (i: number) =>
    JSON.stringify({
      entry_date: '2025-03-15',
      memo: `bench ${i}`,
      lines: [
        { gl_account_id: 'rent', line_type: 'debit', amount_atoms: 1000 + (i % 97) },
        { gl_account_id: 'utilities', line_type: 'debit', amount_atoms: 500 },
        { gl_account_id: 'checking', line_type: 'credit', amount_atoms: 1000 + (i % 97) },
        { gl_account_id: 'credit-card', line_type: 'credit', amount_atoms: 500 },
      ],
    });
  const latencies: number[] = [];
  let errors = 0;
  let n = 0;
  const end = Date.now() + seconds * 1000;
  const worker = async () => {
    while (Date.now() < end) {
      const i = n++;
      const t = performance.now();
      const r = await fetch(`${url}/v1/journal-entries`, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'X-Idempotency-Key': `bench-${i}` }, body: body(i) });
      await r.arrayBuffer();
      latencies.push(performance.now() - t);
      if (r.status !== 201) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  server.kill('SIGTERM');
  await new Promise((r) => server.on('exit', r));
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return { rate: latencies.length / elapsed, p50: pct(50), p99: pct(99), max: latencies[latencies.length - 1]!, entries: latencies.length, errors };
}
