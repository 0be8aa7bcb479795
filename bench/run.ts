// npm run bench: how fast Stackwright is, in medians and ratios (never asserted in tests).
//   in process: cold and warm generate of the largest preset, tar size and time
//   processes:  start to ready (spawn → "listening" line)
//   HTTP:       requests/second of GET /services and POST /generate, load from this process (autocannon)
//               against the server in a child process, rate limits raised for the run; the ceiling is a
//               bare node:http process sending the same bytes; the server's RSS after the runs
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { readConfig, REPO_ROOT } from '../src/config.js';
import { loadCatalogueOrThrow } from '../src/catalogue/load.js';
import { archiveBuffer } from '../src/engine/archive.js';
import { Generator, type GenerateRequest } from '../src/engine/generate.js';
import { resolve } from '../src/engine/resolve.js';

const quick = process.argv.includes('--quick');
/** a key STACK_API_KEY accepts (24+ characters, 10+ different ones) */
const BENCH_KEY = 'bench-key-7d3f9a2c61e04b85';
const config = readConfig({});
const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });

const largest = [...catalogue.presets.keys()]
  .map((id) => ({ id, size: resolve(catalogue, { preset: id }).resolvedServices.length }))
  .sort((a, b) => b.size - a.size || a.id.localeCompare(b.id))[0];
const request: GenerateRequest = { name: 'bench', preset: largest.id, proxy: 'caddy', domain: 'example.com' };

function stats(samples: number[]) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), p99: at(0.99), n: samples.length };
}
const ms = (n: number) => `${n.toFixed(3)} ms`;

function time(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

if (!fs.existsSync(path.join(REPO_ROOT, 'dist/main.js'))) throw new Error('run npm run build first (npm run bench does)');
console.log(`Stackwright benchmark on ${process.version}; largest preset "${largest.id}" (${largest.size} containers), proxy caddy with a domain\n`);

// ---- in process
const coldRuns = quick ? 10 : 50;
const cold = [];
for (let i = 0; i < coldRuns; i++) {
  const g = new Generator(catalogue, config.templatesDir, config.renderCacheSize);
  cold.push(time(() => g.generate(request)));
}
const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize);
for (let i = 0; i < 200; i++) generator.generate(request);
const warm = [];
for (let i = 0; i < (quick ? 500 : 3000); i++) warm.push(time(() => generator.generate(request)));
// a new name each time: the bundle cache misses, the name is bound into the shape rendered once
for (let i = 0; i < 200; i++) generator.generate({ ...request, name: `warm-${i}` });
const newName = [];
for (let i = 0; i < (quick ? 500 : 3000); i++) newName.push(time(() => generator.generate({ ...request, name: `new-${i}` })));
const fragmentsOnly = new Generator(catalogue, config.templatesDir, config.renderCacheSize, 0);
for (let i = 0; i < 50; i++) fragmentsOnly.generate(request);
const fragmentWarm = [];
for (let i = 0; i < (quick ? 200 : 1000); i++) fragmentWarm.push(time(() => fragmentsOnly.generate(request)));
const uncachedGenerator = new Generator(catalogue, config.templatesDir, 0);
for (let i = 0; i < 50; i++) uncachedGenerator.generate(request);
const uncached = [];
for (let i = 0; i < (quick ? 200 : 1000); i++) uncached.push(time(() => uncachedGenerator.generate(request)));

const bundle = generator.generate(request);
// a fresh bundle each time (no bundle cache), so every archive is really built
const tarTimes = [];
let tarSize = 0;
for (let i = 0; i < (quick ? 30 : 200); i++) {
  const fresh = fragmentsOnly.generate(request);
  const t = performance.now();
  tarSize = (await archiveBuffer(fresh)).length;
  tarTimes.push(performance.now() - t);
}
const c = stats(cold);
const w = stats(warm);
const u = stats(uncached);
const f = stats(fragmentWarm);
const t = stats(tarTimes);
console.log('generate (in process)');
console.log(`  cold (new generator, empty caches):         median ${ms(c.median)}, p99 ${ms(c.p99)} (n=${c.n})`);
console.log(`  warm, repeated request (bundle cache hit):  median ${ms(w.median)}, p99 ${ms(w.p99)} (n=${w.n})`);
const nn = stats(newName);
console.log(`  warm, a new name each request (name bound): median ${ms(nn.median)}, p99 ${ms(nn.p99)} (n=${nn.n})`);
console.log(`  warm, fragment cache only (bundle rebuilt): median ${ms(f.median)}, p99 ${ms(f.p99)} (n=${f.n}); binding the name is ${(f.median / nn.median).toFixed(1)}x faster`);
console.log(`  warm, no caches at all:                     median ${ms(u.median)}, p99 ${ms(u.p99)}; fragments save ${(u.median / f.median).toFixed(2)}x`);
console.log(`  bundle: ${Object.keys(bundle.files).length} files, ${Object.values(bundle.files).reduce((s, f) => s + f.length, 0)} bytes`);
console.log(`  tar.gz of a fresh bundle: ${tarSize} bytes, median ${ms(t.median)}, p99 ${ms(t.p99)} (n=${t.n})`);

// the largest stack: every framework (one primary, the rest companions) on the largest preset, a new
// name each time (the bundle cache misses; the fragment cache is warm)
{
  const frameworks = [...catalogue.frameworks.keys()];
  const everything = (i: number): GenerateRequest => ({ ...request, name: `all-${i}`, primaryFramework: frameworks[0], companionFrameworks: frameworks.slice(1) });
  for (let i = 0; i < 50; i++) generator.generate(everything(i));
  const all = stats(Array.from({ length: quick ? 200 : 1000 }, (_, i) => time(() => generator.generate(everything(1000 + i)))));
  const containers = (generator.generate(everything(0)).files['docker-compose.yml'].match(/^ {2}[a-z0-9-]+:$/gm) ?? []).length;
  console.log(`  every framework on it (${frameworks.length} frameworks, ${containers} containers), new name each: median ${ms(all.median)}, p99 ${ms(all.p99)} (n=${all.n})\n`);
}

// ---- start to ready
async function startServer(env: Record<string, string>): Promise<{ ms: number; reported: number; port: number; pid: number; stop: () => void }> {
  const started = performance.now();
  // the node options of `npm start`, so the figures are the service's as users run it
  const startCommand = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start as string).split(' ');
  const startArgs = startCommand.slice(startCommand.indexOf('node') + 1);
  const child = spawn(process.execPath, startArgs.map((a) => (a.startsWith('-') ? a : path.join(REPO_ROOT, a))), {
    env: { ...process.env, PORT: '0', STACK_API_KEY: BENCH_KEY, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let out: string | null = '';
    child.stdout.on('data', (d: Buffer) => {
      // once listening, the request log is read and dropped (it would otherwise pile up here)
      if (out === null) return;
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)\/api\/v1 \(ready (\d+) ms/.exec(out);
      if (m) {
        out = null;
        resolvePromise({ ms: performance.now() - started, reported: Number(m[2]), port: Number(m[1]), pid: child.pid!, stop: () => child.kill() });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}
const starts = [];
const reported = [];
for (let i = 0; i < (quick ? 3 : 9); i++) {
  const s = await startServer({});
  starts.push(s.ms);
  reported.push(s.reported);
  s.stop();
}
console.log('process start to ready (node dist/main.js, as npm start runs it)');
console.log(`  as the process reports it (performance.now() at listening): median ${stats(reported).median.toFixed(0)} ms`);
console.log(`  as seen from the parent (spawn → "listening" line):          median ${stats(starts).median.toFixed(0)} ms over ${starts.length} starts\n`);

// ---- HTTP
// one load generator on one address: connection caps raised so they do not count against it
const server = await startServer({ STACK_RATE_LIMIT_READ: '1000000000', STACK_RATE_LIMIT_WRITE: '1000000000', STACK_RATE_LIMIT_GENERATE: '1000000000', STACK_MAX_CONNECTIONS: '10000', STACK_MAX_CONNECTIONS_PER_ADDRESS: '10000', STACK_GENERATE_QUEUE: '100000' });
const base = `http://127.0.0.1:${server.port}`;
const duration = quick ? 3 : 10;
async function load(title: string, opts: autocannon.Options) {
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const r = await autocannon({ ...opts, duration });
  console.log(`  ${title}: ${Math.round(r.requests.average)} req/s (median latency ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors)`);
  return r.requests.average;
}
/** Resident memory of a process (Linux /proc): the whole set, and its part in mapped files (the node binary's code). */
function residentMB(pid: number): string {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const mb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1]) / 1024;
    return `${mb('VmRSS').toFixed(0)} MB (${mb('RssFile').toFixed(0)} MB of it mapped files, the node binary's code; ${mb('RssAnon').toFixed(0)} MB anonymous)`;
  } catch {
    return 'unknown (no /proc here)';
  }
}

// the ceiling: a bare node:http server in its own process sending the same bytes and headers as GET /services
const servicesBody = Buffer.from(await (await fetch(`${base}/api/v1/services`)).arrayBuffer());
const bodyFile = path.join(REPO_ROOT, 'dist', 'bench-services-body.json');
fs.writeFileSync(bodyFile, servicesBody);
const bare = spawn(process.execPath, ['-e', `
  const body = require('fs').readFileSync(${JSON.stringify(bodyFile)});
  const server = require('http').createServer((req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length, 'Cache-Control': 'no-cache', ETag: '"x"', 'X-RateLimit-Limit': '1000000000', 'X-RateLimit-Remaining': '999999999', 'X-RateLimit-Reset': '60' });
    res.end(body);
  });
  server.listen(0, '127.0.0.1', () => console.log('port ' + server.address().port));
`], { stdio: ['ignore', 'pipe', 'inherit'] });
const barePort = await new Promise<number>((r) => bare.stdout.on('data', (d: Buffer) => { const m = /port (\d+)/.exec(String(d)); if (m) r(Number(m[1])); }));

console.log(`HTTP over loopback, ${duration} s each, 32 connections`);
const ceiling = await load(`bare node:http sending the same ${servicesBody.length} bytes (the ceiling)`, { url: `http://127.0.0.1:${barePort}/`, connections: 32 });
bare.kill();
const services = await load('GET /api/v1/services', { url: `${base}/api/v1/services`, connections: 32 });
console.log(`    = ${(100 * services / ceiling).toFixed(0)}% of the ceiling`);
await load(`POST /api/v1/generate (${largest.id}, json)`, {
  url: `${base}/api/v1/generate`, connections: 32, method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` }, body: JSON.stringify(request),
});
let counter = 0;
await load(`POST /api/v1/generate (${largest.id}, a new name each request: bundle cache misses)`, {
  url: `${base}/api/v1/generate`, connections: 32, method: 'POST',
  headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
  requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...request, name: `bench-${counter++}` }) }) }],
});

// ---- health under a burst of generates (issue 10: health p99 <= 200 ms under 1,000 concurrent generates)
{
  const burst = quick ? 200 : 1000;
  // the prober is a process of its own: in this one its timings would include the time this process
  // spends reading the burst's answers (about 200 MB of JSON)
  const prober = spawn(process.execPath, ['-e', `
    const times = [];
    let probing = true;
    process.on('message', () => { probing = false; });
    (async () => {
      while (probing) {
        const t = performance.now();
        await fetch('${base}/api/v1/health').then((r) => r.arrayBuffer()).catch(() => undefined);
        times.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 10));
      }
      process.send(times, () => process.exit(0));
    })();
  `], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const probeTimes = new Promise<number[]>((r) => prober.once('message', (m) => r(m as number[])));
  await new Promise((r) => setTimeout(r, 100));
  const statuses = new Map<number, number>();
  const t0 = performance.now();
  await Promise.all(Array.from({ length: burst }, (_, i) => fetch(`${base}/api/v1/generate`, {
    method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
    body: JSON.stringify({ ...request, name: `burst-${i}` }),
  }).then(async (r) => { await r.arrayBuffer(); statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1); }).catch(() => statuses.set(0, (statuses.get(0) ?? 0) + 1))));
  prober.send('stop');
  const h = stats(await probeTimes);
  console.log(`\n${burst} concurrent generates (new names) while probing /api/v1/health every 10 ms on new connections`);
  console.log(`  burst done in ${((performance.now() - t0) / 1000).toFixed(1)} s; answers: ${[...statuses].map(([code, n]) => `${n}x ${code || 'error'}`).join(', ')}`);
  console.log(`  health probe: median ${ms(h.median)}, p99 ${ms(h.p99)} (n=${h.n})`);
}

// memory: the server's resident set after all of the above, then holding 1,000 open connections
{
  const net = await import('node:net');
  console.log(`\nserver memory (RSS): ${residentMB(server.pid)} after the runs above`);
  const sockets = await Promise.all(Array.from({ length: 1000 }, () => new Promise<import('node:net').Socket>((r) => {
    const socket = net.connect(server.port, '127.0.0.1', () => r(socket));
    socket.on('error', () => r(socket));
  })));
  await new Promise((r) => setTimeout(r, 500));
  console.log(`  with 1,000 idle connections open: ${residentMB(server.pid)}`);
  for (const socket of sockets) socket.destroy();
}
server.stop();
