import { spawn, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface HttpResult {
  client: string;
  rate: number;
  p50: number;
  p99: number;
  max: number;
  entries: number;
  errors: number;
}

/**
 * Sustained posting over loopback: a fresh ledger served by `books serve`, 8 concurrent connections
 * each posting 4-line entries back to back for a fixed time. Reports entries per second and latency
 * percentiles as the client saw them. The client is wrk when it is installed (apt-get install wrk):
 * a Node client on the same two cores spends more CPU than the server and measures itself.
 */
export async function httpBench(
  bin: string,
  dir: string,
  seconds: number,
  connections = 8,
  at?: string[],
  tagged = false,
): Promise<HttpResult> {
  const { url, key, stop } = await startServer(bin, dir, at);
  try {
    if (hasWrk()) return await wrkPost(url, key, dir, seconds, connections, 't', tagged);
    return await fetchBench(url, key, seconds, connections, tagged);
  } finally {
    await stop();
  }
}

/** Whether wrk is installed (apt-get install wrk). */
export const hasWrk = () => spawnSync('wrk', ['--version']).error === undefined;

/**
 * A fresh standard ledger (a file in `dir`, or the new ledger `at` names: a database's entity), a
 * posting key, and `books serve` on a free port.
 */
export async function startServer(
  bin: string,
  dir: string,
  at?: string[],
): Promise<{ url: string; key: string; stop: () => Promise<void> }> {
  const ledger = join(dir, 'http-bench.sqlite');
  for (const s of ['', '-wal', '-shm']) rmSync(ledger + s, { force: true });
  const where = at ?? ['--ledger', ledger];
  const run = (args: string[]) => {
    const r = spawnSync(process.execPath, [bin, ...args, ...where], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`books ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  run(['init', '--chart', 'standard', '--first-month', '2025-01']);
  const key = run(['keys', 'create', '--permission', 'customer_api:post_journal_entries']).trim();
  // A server serves every entity of its store: the location without the entity.
  return { ...(await serveStore(bin, where.slice(0, 2))), key };
}

/** `books serve --port 0` over a store's location: its address, and how to stop it. */
export async function serveStore(
  bin: string,
  location: string[],
): Promise<{ url: string; stop: () => Promise<void> }> {
  const server = spawn(process.execPath, [bin, 'serve', '--port', '0', ...location], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    server.stdout.on('data', (c) => {
      out += c;
      const m = /listening on (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    server.on('exit', () => reject(new Error('serve exited')));
  });
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.on('exit', r));
  };
  return { url, stop };
}

/** The client without wrk: Node's fetch on the same cores (it measures itself as much as the server). */
async function fetchBench(
  url: string,
  key: string,
  seconds: number,
  connections: number,
  tagged: boolean,
): Promise<HttpResult> {
  const body = (i: number) =>
    JSON.stringify({
      entry_date: '2025-03-15',
      memo: `bench ${i}`,
      ...(tagged ? TAGS : {}),
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
  const headers = (i: number) => ({
    Authorization: `Bearer ${key}`,
    'Content-Type': 'application/json',
    'X-Idempotency-Key': `bench-${i}`,
  });
  const worker = async () => {
    while (Date.now() < end) {
      const i = n++;
      const t = performance.now();
      const r = await fetch(`${url}/v1/journal-entries`, {
        method: 'POST',
        headers: headers(i),
        body: body(i),
      });
      await r.arrayBuffer();
      latencies.push(performance.now() - t);
      if (r.status !== 201) errors++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const pct = (p: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]!;
  return {
    client: 'node fetch',
    rate: latencies.length / elapsed,
    p50: pct(50),
    p99: pct(99),
    max: latencies[latencies.length - 1]!,
    entries: latencies.length,
    errors,
  };
}

/** The tags of a tagged bench entry: two of the entry's, and one line's own. */
const TAGS = { tags: { project: 'p07', location: 'l03' } };

const entryOf = (tagged: boolean) =>
  tagged
    ? ENTRY.replace('"lines":[', `"tags":${JSON.stringify(TAGS.tags)},"lines":[`).replace(
        '"amount_atoms":500}',
        '"amount_atoms":500,"tags":{"class":"c11"}}',
      )
    : ENTRY;

const ENTRY =
  '{"entry_date":"2025-03-15","memo":"w\' .. n .. \'","lines":[' +
  '{"gl_account_id":"rent","line_type":"debit","amount_atoms":1000},' +
  '{"gl_account_id":"utilities","line_type":"debit","amount_atoms":500},' +
  '{"gl_account_id":"checking","line_type":"credit","amount_atoms":1000},' +
  '{"gl_account_id":"credit-card","line_type":"credit","amount_atoms":500}]}';

/**
 * wrk posting entries to one server with one key, `connections` at once for `seconds`; `tag` keeps
 * the idempotency keys of wrk processes run together apart.
 */
export function wrkPost(
  url: string,
  key: string,
  dir: string,
  seconds: number,
  connections: number,
  tag: string,
  tagged = false,
): Promise<HttpResult> {
  const script = join(dir, `post-${tag}.lua`);
  writeFileSync(
    script,
    `local counter = 0
function setup(thread) counter = counter + 1; thread:set("tid", counter) end
local n = 0
request = function()
  n = n + 1
  local headers = { ["Authorization"] = "Bearer ${key}", ["Content-Type"] = "application/json",
                    ["X-Idempotency-Key"] = "${tag}" .. tid .. "-" .. n }
  return wrk.format("POST", "/v1/journal-entries", headers, '${entryOf(tagged)}')
end
`,
  );
  const threads = Math.min(2, connections);
  const args = [
    `-t${threads}`,
    `-c${connections}`,
    `-d${seconds}s`,
    '--latency',
    '-s',
    script,
    url,
  ];
  return new Promise((resolve, reject) => {
    const p = spawn('wrk', args);
    let out = '';
    p.stdout.on('data', (c) => (out += c));
    p.on('error', reject);
    p.on('exit', () => {
      rmSync(script);
      resolve(wrkResult(out));
    });
  });
}

function wrkResult(out: string): HttpResult {
  const ms = (label: string) => {
    const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
    if (!m) return NaN;
    const v = Number(m[1]);
    return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
  };
  const total = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const errors = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0);
  return {
    client: 'wrk',
    rate: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0),
    p50: ms(' 50%'),
    p99: ms(' 99%'),
    max: ms('Latency\\s+[\\d.]+\\w+\\s+[\\d.]+\\w+'),
    entries: total - errors,
    errors,
  };
}

/** Results of wrk processes run together, as one: rates and entries added, the worst latencies. */
export function together(results: HttpResult[]): HttpResult {
  const sum = (f: (r: HttpResult) => number) => results.reduce((s, r) => s + f(r), 0);
  const worst = (f: (r: HttpResult) => number) => Math.max(...results.map(f));
  return {
    client: `wrk ×${results.length}`,
    rate: sum((r) => r.rate),
    p50: worst((r) => r.p50),
    p99: worst((r) => r.p99),
    max: worst((r) => r.max),
    entries: sum((r) => r.entries),
    errors: sum((r) => r.errors),
  };
}
