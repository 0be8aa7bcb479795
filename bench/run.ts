// npm run bench: how fast Stackwright is, in medians and ratios (never asserted in tests).
//   in process: cold and warm generate of the largest preset, tar size and time
//   processes:  start to ready (spawn → "listening" line)
//   HTTP:       requests/second of GET /services and POST /generate, load from this process (autocannon)
//               against the server in a child process, rate limits raised for the run
import { spawn } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { readConfig, REPO_ROOT } from '../src/config.js';
import { loadCatalogueOrThrow } from '../src/catalogue/load.js';
import { archiveBuffer } from '../src/engine/archive.js';
import { Generator, type GenerateRequest } from '../src/engine/generate.js';
import { resolve } from '../src/engine/resolve.js';

const quick = process.argv.includes('--quick');
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
const uncachedGenerator = new Generator(catalogue, config.templatesDir, 0);
for (let i = 0; i < 50; i++) uncachedGenerator.generate(request);
const uncached = [];
for (let i = 0; i < (quick ? 200 : 1000); i++) uncached.push(time(() => uncachedGenerator.generate(request)));

const bundle = generator.generate(request);
const tarTimes = [];
let tarSize = 0;
for (let i = 0; i < (quick ? 30 : 200); i++) {
  const t = performance.now();
  tarSize = (await archiveBuffer(bundle)).length;
  tarTimes.push(performance.now() - t);
}
const c = stats(cold);
const w = stats(warm);
const u = stats(uncached);
const t = stats(tarTimes);
console.log('generate (in process)');
console.log(`  cold (new generator, empty cache): median ${ms(c.median)}, p99 ${ms(c.p99)} (n=${c.n})`);
console.log(`  warm (fragment cache filled):      median ${ms(w.median)}, p99 ${ms(w.p99)} (n=${w.n})`);
console.log(`  warm without the fragment cache:   median ${ms(u.median)}, p99 ${ms(u.p99)}; the cache saves ${(u.median / w.median).toFixed(2)}x`);
console.log(`  bundle: ${Object.keys(bundle.files).length} files, ${Object.values(bundle.files).reduce((s, f) => s + f.length, 0)} bytes`);
console.log(`  tar.gz: ${tarSize} bytes, median ${ms(t.median)}, p99 ${ms(t.p99)} (n=${t.n})\n`);

// ---- start to ready
async function startServer(env: Record<string, string>): Promise<{ ms: number; port: number; stop: () => void }> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
    env: { ...process.env, PORT: '0', STACK_API_KEY: 'bench', ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)/.exec(out);
      if (m) resolvePromise({ ms: performance.now() - started, port: Number(m[1]), stop: () => child.kill() });
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}
const starts = [];
const reported = [];
for (let i = 0; i < (quick ? 3 : 7); i++) {
  const s = await startServer({});
  starts.push(s.ms);
  s.stop();
}
const st = stats(starts);
console.log('process start to ready (spawn node → listening)');
console.log(`  median ${st.median.toFixed(0)} ms over ${st.n} starts (min ${Math.min(...starts).toFixed(0)} ms)\n`);
void reported;

// ---- HTTP
const server = await startServer({ STACK_RATE_LIMIT_READ: '1000000000', STACK_RATE_LIMIT_WRITE: '1000000000', STACK_RATE_LIMIT_GENERATE: '1000000000' });
const base = `http://127.0.0.1:${server.port}`;
const duration = quick ? 3 : 10;
async function load(title: string, opts: autocannon.Options) {
  await autocannon({ ...opts, duration: 1 }); // warm-up
  const r = await autocannon({ ...opts, duration });
  console.log(`  ${title}: ${Math.round(r.requests.average)} req/s (median latency ${r.latency.p50} ms, p99 ${r.latency.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors)`);
  return r.requests.average;
}
console.log(`HTTP over loopback, ${duration} s each, 32 connections`);
await load('GET /api/v1/services', { url: `${base}/api/v1/services`, connections: 32 });
await load(`POST /api/v1/generate (${largest.id}, json)`, {
  url: `${base}/api/v1/generate`, connections: 32, method: 'POST',
  headers: { 'content-type': 'application/json', authorization: 'Bearer bench' }, body: JSON.stringify(request),
});
server.stop();
