// npm run bench: how fast Stackwright is, in medians, p99s and ratios (never asserted in tests).
// Every figure is printed beside its goal (issue 22) and as a multiple of a fixed baseline measured in
// the same run, so runs on a loaded machine can still be compared.
//   in process: what users send (identical, new name, new name and domain, other service sets), at the
//               largest preset and at ~200 services with every skill pack; a new selection each call (a
//               set never seen: issue 36); warm, a fresh generator (empty caches, warm code) and with no
//               caches at all (the render's own cost); Kubernetes and Swarm beside Compose for the same request
//   CLI:        stackwright generate, process start to files written
//   processes:  start to ready (spawn → "listening" line)
//   HTTP:       requests/second of GET /services and POST /generate, load from a fresh process of its own
//               (bench/load-client.ts, autocannon) against the server in a child process, rate limits
//               raised for the run; the ceiling is a bare node:http process sending the same bytes, run
//               in turns with GET /services (three pairs, the median pair's ratio); the server's CPU time
//               per request (from /proc, whatever the client manages) and its RSS
//   reference:  given better-openclaw's core (--reference=DIR or STACK_BENCH_REFERENCE: a checkout built with its
//               own npm run build), its new selections in a process of their own (bench/reference.ts) right after
//               ours, and issue 36's ratios: ≥ 10x at full stack, ≥ 5x its largest stack at 200 services
// `--quick` runs fewer samples; `--only=inprocess`, `--only=cli` or `--only=http` runs one part (for
// profiling: node --cpu-prof --import tsx bench/run.ts --quick --only=inprocess). `--request-log=on|off`
// sets STACK_LOG_REQUESTS for the HTTP server: on by default, as the service runs (one JSON line a request
// to stdout, here a pipe this process drains and counts); off measures the service without its request log.
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import { readConfig, REPO_ROOT } from '../src/config.js';
import type { GenerateRequest } from '../src/pipeline/generate.js';
import { archiveBuffer, builtModule, Generator, loadCatalogueOrThrow, processHasher, resolve, warmRequests } from './built.js';
import { UNSURE_MS } from '../src/catalogue/snapshot-stamp.js';
import type { LoadResult, LoadSpec } from './load-client.js';
import { kinds, largeRequest, newSelections, swapPool } from './requests.js';
import type { SweepResult } from './size-sweep.js';
import type { FirstMeeting } from './first-meeting.js';
import { referenceModule, type ReferenceFigure } from './reference.js';

const quick = process.argv.includes('--quick');
/** a key STACK_API_KEY accepts (24+ characters, 10+ different ones) */
const BENCH_KEY = 'bench-key-7d3f9a2c61e04b85';
const only = process.argv.find((a) => a.startsWith('--only='))?.slice('--only='.length);
if (only !== undefined && !['inprocess', 'cli', 'http'].includes(only)) throw new Error(`--only takes inprocess, cli or http (got ${only})`);
/** better-openclaw's core, built: where the bench finds the reference generator (none: the ratios are not measured) */
const referenceLocation = process.argv.find((a) => a.startsWith('--reference='))?.slice('--reference='.length) ?? process.env.STACK_BENCH_REFERENCE;
// a wrong path is said now, not after the in-process runs
const referenceAt = referenceLocation === undefined ? undefined : referenceModule(referenceLocation);
const requestLog = process.argv.find((a) => a.startsWith('--request-log='))?.slice('--request-log='.length) ?? 'on';
if (!['on', 'off'].includes(requestLog)) throw new Error(`--request-log takes on or off (got ${requestLog})`);
/** Whether this run measures that part. */
const runs = (part: 'inprocess' | 'cli' | 'http') => only === undefined || only === part;
const config = readConfig({});
/** `npm start`'s command line: the service as users run it (its node options, its environment settings). */
const startCommand = (JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).scripts.start as string).split(' ');
/** The node options `npm start` gives the service (its memory settings). */
const serviceNodeOptions = startCommand.slice(startCommand.indexOf('node') + 1).filter((a) => a.startsWith('--'));
/** The environment settings `npm start` gives it (NAME=value words before the command: glibc's malloc arenas). */
const serviceEnv: Record<string, string> = Object.fromEntries(startCommand.slice(0, startCommand.indexOf('node'))
  .filter((w) => /^[A-Z_][A-Z0-9_]*=/.test(w)).map((w) => [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)]));
// the service's own memory settings (npm run bench gives this process npm start's node options and environment;
// serve.ts sets the heap growing factor the same way), so in-process memory is the service's
const missing = [...serviceNodeOptions.filter((option) => !process.execArgv.includes(option)),
  ...Object.entries(serviceEnv).filter(([name, value]) => process.env[name] !== value).map(([name, value]) => `${name}=${value}`)];
if (missing.length) {
  console.log(`note: this process runs without npm start's ${missing.join(' ')} (npm run bench gives it them): the in-process figures are not the service's\n`);
}
if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
/** A generator as the service makes one (live-engine.ts): the record's hashes on the process's second thread. */
const serviceGenerator = (cacheSize: number, bundleCacheBytes?: number) => new Generator(catalogue, config.templatesDir, cacheSize, bundleCacheBytes, undefined, processHasher(config.hashThread));

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
const loadAvg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

function time(fn: () => unknown): number {
  const t = performance.now();
  fn();
  return performance.now() - t;
}

/**
 * Wall time and the process's CPU time of fn, in ms. Other sessions' load stretches the wall time (the
 * process waits for a core); the CPU time is what the work itself took (GC helper threads included).
 */
function timeWithCpu(fn: () => unknown): [number, number] {
  const c = process.cpuUsage();
  const t = performance.now();
  fn();
  const wall = performance.now() - t;
  const cpu = process.cpuUsage(c);
  return [wall, (cpu.user + cpu.system) / 1000];
}

// ---- the summary table: each figure beside its goal
interface Row { figure: string; goal: string; measured: string; met?: boolean; baseline?: string; load: string }
const rows: Row[] = [];
/** The baseline: a fixed amount of work (JSON and sha256 over a fixed 160 KB document), its median in ms. */
let baselineMs = 0;
function record(figure: string, goal: string, measured: string, met?: boolean, medianMs?: number) {
  rows.push({ figure, goal, measured, met, baseline: medianMs === undefined ? undefined : `${(medianMs / baselineMs).toPrecision(2)}x`, load: loadAvg() });
}
function printSummary() {
  console.log(`\nsummary (load average 1/5/15 min beside each figure; the baseline is ${ms(baselineMs)} of fixed work)`);
  const table = [['figure', 'goal', 'measured', 'met', '÷ baseline', 'load'], ...rows.map((r) => [r.figure, r.goal, r.measured, r.met === undefined ? '' : r.met ? 'yes' : 'NO', r.baseline ?? '', r.load])];
  const widths = table[0].map((_, i) => Math.max(...table.map((r) => r[i].length)));
  for (const r of table) console.log(`  ${r.map((c, i) => c.padEnd(widths[i])).join(' | ')}`);
}

console.log(`Stackwright benchmark on ${process.version}, ${os.cpus().length} cores, load average ${loadAvg()}; largest preset "${largest.id}" (${largest.size} containers), proxy caddy with a domain\n`);

// ---- the baseline: fixed work, the same every run
{
  const doc = { items: Array.from({ length: 2000 }, (_, i) => ({ id: `item-${i}`, text: 'x'.repeat(40), n: i })) };
  const samples = Array.from({ length: quick ? 100 : 400 }, () => time(() => crypto.createHash('sha256').update(JSON.stringify(JSON.parse(JSON.stringify(doc)))).digest('hex')));
  baselineMs = stats(samples).median;
  console.log(`baseline (fixed work: JSON round trip and sha256 of a 160 KB document): median ${ms(baselineMs)}\n`);
}

// ---- in process
const large = largeRequest(catalogue);
const largeSize = resolve(catalogue, large).resolvedServices.length;

/** Issue 36's goals: a new selection (warm process), and the first request on a fresh generator (empty caches, warm code). */
interface RenderGoals { newSelectionMs: number; freshMs: number }

/**
 * One turn of the event loop. The service's turns between requests, and what a render leaves for later runs there
 * (the hash thread's start after a large stack: parallel-hash.ts); the timed loops here are synchronous, so each
 * warm-up ends with one.
 */
const turn = () => new Promise((r) => setImmediate(r));

async function inProcess(label: string, base: GenerateRequest, size: number, goalMs: number | undefined, goalP99: number | undefined, renderGoals: RenderGoals) {
  // fewer samples of the large stack: a render of it takes ~10 times as long
  const runs = Math.round((quick ? 300 : 2000) / (size > 100 ? 4 : 1));
  const k = kinds(catalogue, base, swapPool(catalogue, base));
  console.log(`${label} (${size} containers)`);
  const generator = serviceGenerator(config.renderCacheSize);
  const figures: Record<string, ReturnType<typeof stats>> = {};
  const cpuFigures: Record<string, ReturnType<typeof stats>> = {};
  for (const [kind, make] of Object.entries(k)) {
    // the other-services kind is new content every time: its warm-up only warms fragments
    for (let i = 0; i < 50; i++) generator.generate(make(1_000_000 + i));
    await turn();
    const n = kind === 'other services' ? Math.min(runs, size > 100 ? 100 : 400) : runs;
    const requests = Array.from({ length: n }, (_, i) => make(i));
    const samples = requests.map((r) => timeWithCpu(() => generator.generate(r)));
    const s = stats(samples.map(([wall]) => wall));
    const cpu = stats(samples.map(([, c]) => c));
    figures[kind] = s;
    cpuFigures[kind] = cpu;
    console.log(`  warm, ${kind.padEnd(18)} median ${ms(s.median)}, p99 ${ms(s.p99)} (n=${s.n}) = ${(s.median / baselineMs).toPrecision(2)}x baseline; CPU time median ${ms(cpu.median)}, p99 ${ms(cpu.p99)}`);
  }
  // a new selection each call (issue 36): a set this generator has never seen (the base set minus one
  // service, a different one each time), new name and domain, the process and its fragments warm from the
  // runs above; each renders in full, its shape being new
  const selectionCount = (quick ? 100 : 400) / (size > 100 ? 2 : 1);
  const selections = newSelections(catalogue, base, selectionCount + 20);
  for (const r of selections.slice(0, 20)) generator.generate(r);
  await turn();
  const selectionSamples = selections.slice(20).map((r) => timeWithCpu(() => generator.generate(r)));
  const sel = stats(selectionSamples.map(([wall]) => wall));
  const selCpu = stats(selectionSamples.map(([, c]) => c));
  console.log(`  new selection (a set never seen, warm process): median ${ms(sel.median)}, p99 ${ms(sel.p99)} (n=${sel.n}) = ${(sel.median / baselineMs).toPrecision(2)}x baseline; CPU time median ${ms(selCpu.median)}`);
  record(`${label}: new selection, median`, `≤ ${renderGoals.newSelectionMs} ms`, `${ms(sel.median)} (CPU ${ms(selCpu.median)}; p99 ${ms(sel.p99)})`, sel.median <= renderGoals.newSelectionMs, sel.median);
  const coldSamples = Array.from({ length: quick ? 10 : size > 100 ? 20 : 40 }, (_, i) => {
    const g = serviceGenerator(config.renderCacheSize);
    const r = k['new name + domain'](i);
    return time(() => g.generate(r));
  });
  const cold = stats(coldSamples);
  console.log(`  fresh generator (a new generator, empty caches, warm code; the first request it gets): median ${ms(cold.median)}, p99 ${ms(cold.p99)} (n=${cold.n}) = ${(cold.median / baselineMs).toPrecision(2)}x baseline`);
  // a fresh generator warmed as the live engine warms a snapshot after a start or a reload (each preset, then
  // each service outside the presets, rendered for its fragments: warmRequests, LiveEngine.warm), then a new
  // selection: what warming is worth, and its cost
  const warm = (g: InstanceType<typeof Generator>) => timeWithCpu(() => { for (const r of warmRequests(catalogue)) g.warm(r); })[1];
  const warmCost: number[] = [];
  const warmedSamples = selections.slice(20, 20 + (quick ? 5 : size > 100 ? 10 : 20)).map((r) => {
    const g = serviceGenerator(config.renderCacheSize);
    warmCost.push(warm(g));
    return time(() => g.generate(r));
  });
  const warmed = stats(warmedSamples);
  console.log(`  fresh generator warmed as a snapshot is (warmRequests: every preset, then every service outside them; CPU ${ms(stats(warmCost).median)} in the background), then a new selection: median ${ms(warmed.median)}, p99 ${ms(warmed.p99)} (n=${warmed.n})`);
  record(`${label}: fresh generator warmed, then a new selection, median`, '', `${ms(warmed.median)} (warming: ${ms(stats(warmCost).median)} CPU)`, undefined, warmed.median);
  const uncachedGenerator = serviceGenerator(0);
  for (let i = 0; i < 10; i++) uncachedGenerator.generate(k['new name + domain'](i));
  const bare = stats(Array.from({ length: quick ? 30 : size > 100 ? 60 : 300 }, (_, i) => k['new name + domain'](i)).map((r) => time(() => uncachedGenerator.generate(r))));
  console.log(`  no caches at all (the render's own cost, the ceiling to beat): median ${ms(bare.median)}, p99 ${ms(bare.p99)} = ${(bare.median / baselineMs).toPrecision(2)}x baseline`);
  const bundle = generator.generate(base);
  console.log(`  bundle: ${Object.keys(bundle.files).length} files, ${Object.values(bundle.files).reduce((s, f) => s + f.length, 0)} bytes\n`);
  const nd = figures['new name + domain'];
  const ndCpu = cpuFigures['new name + domain'];
  if (goalMs !== undefined) record(`${label}: new name + domain, median`, `≤ ${goalMs} ms`, `${ms(nd.median)} (CPU ${ms(ndCpu.median)})`, nd.median <= goalMs, nd.median);
  if (goalP99 !== undefined) record(`${label}: new name + domain, p99`, `≤ ${goalP99} ms`, `${ms(nd.p99)} (CPU ${ms(ndCpu.p99)})`, nd.p99 <= goalP99, nd.p99);
  const os_ = figures['other services'];
  const osCpu = cpuFigures['other services'];
  record(`${label}: other services (renders), median`, goalMs === undefined ? '' : `(≤ ${goalMs} ms for new content)`, `${ms(os_.median)} (CPU ${ms(osCpu.median)})`, goalMs === undefined ? undefined : os_.median <= goalMs, os_.median);
  record(`${label}: fresh generator (empty caches, warm code), median`, `≤ ${renderGoals.freshMs} ms`, `${ms(cold.median)} (p99 ${ms(cold.p99)})`, cold.median <= renderGoals.freshMs, cold.median);
  record(`${label}: no caches, median`, '', ms(bare.median), undefined, bare.median);
  return sel.median;
}

/**
 * Whether the cost stays linear in the number of services (bench/size-sweep.ts), in a process of its own
 * so the harness's heap is not in its collections: once with the service's memory settings (what a
 * user's server does), once with a young generation large enough that a render's garbage dies young (the
 * render's own cost, the collector's share taken out).
 */
function sizeSweep() {
  const sweep = (nodeOptions: string[]) => {
    const r = spawnSync(process.execPath, [...nodeOptions, '--import', 'tsx', path.join(REPO_ROOT, 'bench/size-sweep.ts'), `--rounds=${quick ? 40 : 200}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the size sweep failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as SweepResult;
  };
  const us = (n: number) => (n * 1000).toFixed(0);
  const line = (s: SweepResult) => `${s.points.map((p) => `${p.size} containers ${ms(p.cpu)}`).join(', ')}; an added service ${us(s.lower)} µs at ${s.points[0].size}-${s.points[2].size}, ${us(s.upper)} µs at ${s.points[2].size}-${s.points[4].size} (÷ ${(s.upper / s.lower).toFixed(2)}; least-squares line ${us(s.slope)} µs a service, R² ${s.r2.toFixed(3)})`;
  const service = sweep(serviceNodeOptions);
  const roomy = sweep([...serviceNodeOptions.filter((o) => !o.startsWith('--max-semi-space-size=')), '--max-semi-space-size=64']);
  console.log(`cost by size (other services, CPU-time medians of ${service.rounds} renders each, sizes in turns, a process of its own)`);
  console.log(`  the service's node options (${serviceNodeOptions.join(' ')}): ${line(service)}`);
  console.log(`  a 64 MB semi-space (the collector's share mostly gone): ${line(roomy)}\n`);
  const ratio = service.upper / service.lower;
  record('cost per added service (other services)', 'linear (upper ÷ lower half ≤ 1.25)', `${ratio.toFixed(2)}: ${us(service.upper)} µs CPU a service at ${service.points[2].size}-${service.points[4].size}, ${us(service.lower)} at ${service.points[0].size}-${service.points[2].size}; with a 64 MB semi-space ${(roomy.upper / roomy.lower).toFixed(2)}`, ratio <= 1.25);
}

/**
 * What warming each service outside the presets (warmRequests) is worth to a person's first Generate with such a
 * service: bench/first-meeting.ts in a process of its own for each warming, with the service's node options.
 */
function firstMeetings() {
  const run = (warm: 'all' | 'presets') => {
    const r = spawnSync(process.execPath, [...serviceNodeOptions, '--import', 'tsx', path.join(REPO_ROOT, 'bench/first-meeting.ts'), `--warm=${warm}`, `--count=${quick ? 20 : 60}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the first-meeting run failed: ${r.stderr}`);
    return JSON.parse(r.stdout) as FirstMeeting;
  };
  const [all, presets] = [run('all'), run('presets')];
  console.log(`full-stack plus a service no render met before (one outside every preset, another each request; a process of its own each)`);
  for (const f of [all, presets]) {
    console.log(`  warmed with ${f.warm === 'all' ? 'every preset, then every service outside them' : 'the presets alone'} (CPU ${ms(f.warmCpu)}): median ${ms(f.median)}, p99 ${ms(f.p99)} (n=${f.n})`);
  }
  console.log('');
  record('full-stack plus a service met for the first time, median (warmed as a snapshot is / presets alone)', '', `${ms(all.median)} / ${ms(presets.median)} (warming ${ms(all.warmCpu)} / ${ms(presets.warmCpu)} CPU)`, undefined, all.median);
}

/**
 * Issue 36's ratios: the reference generator's new selections (bench/reference.ts, a process of its own for each set,
 * run right after ours so the box is the same) against ours: its largest preset against our full-stack preset, its
 * largest stack that generates against our ~200 services. Without the reference the goals are listed, not measured.
 */
function againstReference(presetMs: number, largeMs: number) {
  const goals = [
    { set: 'preset', ours: presetMs, goal: 10, figure: `new selection, preset ${largest.id} ÷ the reference's largest preset` },
    { set: 'largest', ours: largeMs, goal: 5, figure: `new selection, ${large.services!.length} services ÷ the reference's largest stack` },
  ] as const;
  if (referenceAt === undefined) {
    console.log('reference generator: not measured (--reference=DIR or STACK_BENCH_REFERENCE names a built better-openclaw-core checkout: docs/architecture.md, Benchmarks)\n');
    for (const g of goals) record(g.figure, `≥ ${g.goal}x`, 'not measured (no --reference)');
    return;
  }
  console.log(`reference generator (${referenceAt}), new selections in a process of its own each, right after ours:`);
  for (const g of goals) {
    const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/reference.ts'), `--core=${referenceAt}`, `--set=${g.set}`, `--count=${quick ? 60 : 200}`], { encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`the reference run failed: ${r.stderr}`);
    const ref = JSON.parse(r.stdout.trim().split('\n').pop()!) as ReferenceFigure;
    const ratio = ref.median / g.ours;
    console.log(`  ${ref.what}: ${ref.services} of its ${ref.registered} services (each call all but one): median ${ms(ref.median)}, p90 ${ms(ref.p90)} (n=${ref.n}); ours ${ms(g.ours)}: ${ratio.toFixed(1)}x`);
    record(g.figure, `≥ ${g.goal}x`, `${ratio.toFixed(1)}x (${ms(ref.median)} for its ${ref.services} services against ${ms(g.ours)})`, ratio >= g.goal);
  }
  console.log('');
}

// ---- the deployment targets beside Compose (issue 32): the same request rendered with no caches at all, so each
// figure is its emitter's own cost (Traefik: the proxy both targets route through)
if (runs('inprocess')) {
  const uncached = serviceGenerator(0);
  const base: GenerateRequest = { ...request, proxy: 'traefik' };
  const n = quick ? 30 : 150;
  const figure = (deploymentType: GenerateRequest['deploymentType']) => {
    for (let i = 0; i < 10; i++) uncached.generate({ ...base, name: `warm-${i}`, deploymentType });
    return stats(Array.from({ length: n }, (_, i) => time(() => uncached.generate({ ...base, name: `target-${i}`, deploymentType }))));
  };
  const compose = figure(undefined);
  for (const [target, label] of [['kubernetes', 'Kubernetes'], ['swarm', 'Swarm']] as const) {
    try {
      const other = figure(target);
      const ratio = other.median / compose.median;
      console.log(`targets, preset ${largest.id} with Traefik, no caches: Compose median ${ms(compose.median)} (p99 ${ms(compose.p99)}), ${label} median ${ms(other.median)} (p99 ${ms(other.p99)}) = ${ratio.toFixed(2)}x Compose (n=${n})`);
      record(`targets: ${largest.id}, ${label} ÷ Compose (no caches, median)`, '≤ 2x', `${ratio.toFixed(2)}x (${ms(other.median)} vs ${ms(compose.median)})`, ratio <= 2, other.median);
    } catch (e) {
      // a preset a target cannot run (TARGET_UNSUPPORTED) has no figure there
      console.log(`targets: preset ${largest.id} has no ${label} figure: ${(e as Error).message}`);
    }
  }
  console.log('');
}

if (runs('inprocess')) {
  const presetSelection = await inProcess(`preset ${largest.id}`, request, largest.size, 0.5, 2, { newSelectionMs: 1.5, freshMs: 6 });
  const largeSelection = await inProcess(`${large.services!.length} services + ${large.skills!.length} skill packs`, large, largeSize, 5, undefined, { newSelectionMs: 6, freshMs: 30 });
  againstReference(presetSelection, largeSelection);
  // a fresh bundle each time (no bundle cache), so every archive is really built
  {
    const fragmentsOnly = serviceGenerator(config.renderCacheSize, 0);
    const tarTimes = [];
    let tarSize = 0;
    for (let i = 0; i < (quick ? 30 : 200); i++) {
      const fresh = fragmentsOnly.generate(request);
      const t = performance.now();
      tarSize = (await archiveBuffer(fresh)).length;
      tarTimes.push(performance.now() - t);
    }
    const t = stats(tarTimes);
    console.log(`tar.gz of a fresh bundle: ${tarSize} bytes, median ${ms(t.median)}, p99 ${ms(t.p99)} (n=${t.n})`);
  }
  {
    const rss = process.memoryUsage().rss / 1024 / 1024;
    const { heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
    const mb = (n: number) => `${(n / 1048576).toFixed(0)} MB`;
    console.log(`in-process RSS after the runs above: ${rss.toFixed(0)} MB (JS heap ${mb(heapUsed)} used of ${mb(heapTotal)}; external ${mb(external)}, of it buffers ${mb(arrayBuffers)})\n`);
    record('RSS of this bench process after the in-process runs (harness included)', '≤ 250 MB', `${rss.toFixed(0)} MB`, rss <= 250);
  }
  // the same requests in a process of their own running the built code, without this harness (its TypeScript
  // loader thread, the load tool): the engine's own resident set
  {
    const kindsOf = (base: GenerateRequest) => Object.values(kinds(catalogue, base, swapPool(catalogue, base)));
    const lists = [request, large].map((base) => kindsOf(base).flatMap((make) => Array.from({ length: base === large ? 100 : 400 }, (_, i) => make(i))));
    const file = path.join(os.tmpdir(), `stackwright-bench-requests-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(lists));
    const script = `
      import fs from 'node:fs';
      import v8 from 'node:v8';
      import { readConfig } from ${JSON.stringify(builtModule('config.js'))};
      import { loadCatalogueOrThrow } from ${JSON.stringify(builtModule('catalogue/load.js'))};
      import { Generator } from ${JSON.stringify(builtModule('pipeline/generate.js'))};
      import { processHasher } from ${JSON.stringify(builtModule('bundle/parallel-hash.js'))};
      const config = readConfig(process.env);
      if (config.heapGrowingPercent > 0) v8.setFlagsFromString('--heap-growing-percent=' + config.heapGrowingPercent);
      const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
      for (const list of JSON.parse(fs.readFileSync(${JSON.stringify(file)}, 'utf8'))) {
        const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize, undefined, undefined, processHasher(config.hashThread));
        // with the turn the service's event loop takes between requests (the hash thread starts there)
        for (const r of list) {
          generator.generate(r);
          await new Promise((resolve) => setImmediate(resolve));
        }
      }
      console.log(process.memoryUsage().rss);
    `;
    const r = spawnSync(process.execPath, [...serviceNodeOptions, '--input-type=module', '-e', script], { encoding: 'utf8', env: { ...process.env, ...serviceEnv } });
    fs.rmSync(file, { force: true });
    if (r.status !== 0) throw new Error(`the engine-only process failed: ${r.stderr}`);
    const rss = Number(r.stdout.trim()) / 1048576;
    console.log(`the same request kinds (${lists.reduce((n, l) => n + l.length, 0)} requests) in a process of their own on the built code: RSS ${rss.toFixed(0)} MB\n`);
    record('RSS in process, engine alone (built code, no harness)', '≤ 250 MB', `${rss.toFixed(0)} MB`, rss <= 250);
  }
  // after the memory figures: its five generators would count in the harness's resident set
  sizeSweep();
  firstMeetings();
}

// ---- the CLI: process start to files written
if (runs('cli')) {
  const cliMain = builtModule('cli/main.js');
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-bench-'));
  // the request shapes earlier runs kept (src/cli/shapes.ts) are dropped: this run makes its own
  fs.rmSync(`${config.catalogueCacheFile}.shapes`, { recursive: true, force: true });
  /** Every file under dir: relative path → content. */
  const readTreeOf = (dir: string): Record<string, string> => Object.fromEntries(
    (fs.readdirSync(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile())
      .map((e) => { const file = path.join(e.parentPath, e.name); return [path.relative(dir, file), fs.readFileSync(file, 'utf8')]; }),
  );
  /** One `stackwright generate`, process start to exit (the files are written before it exits), in ms. */
  const generateOnce = (args: string[], dir: string) => {
    const t = performance.now();
    const r = spawnSync(process.execPath, [cliMain, 'generate', ...args, '--out', dir], { encoding: 'utf8' });
    const elapsed = performance.now() - t;
    if (r.status !== 0) throw new Error(`stackwright generate failed: ${r.stderr}`);
    return elapsed;
  };
  // The snapshot's stamp vouches for the inputs only once it was taken a coarse clock tick after the newest
  // of them changed (snapshot-stamp.ts): until then each run checks every input by content (~200 ms), and
  // the build just wrote dist/. A user meets that in the first seconds after an install; the figure is the
  // runs after it, so the bench lets the window pass before its first run.
  await new Promise((r) => setTimeout(r, UNSURE_MS + 500));
  const times: number[] = [];
  let firstRun = 0;
  for (let i = 0; i < (quick ? 4 : 10); i++) {
    const elapsed = generateOnce(['--preset', largest.id, '--proxy', 'caddy', '--domain', `c${i}.example.org`, '--name', `cli-${i}`], path.join(out, `s${i}`));
    // the first start checks the inputs by content and stamps the snapshot, and keeps the request's shape;
    // the rest bind into it
    if (i > 0) times.push(elapsed);
    else firstRun = elapsed;
  }
  // the same runs writing to a memory file system where there is one: the CLI without the disk's part
  // (creating a file or folder costs this box up to ~0.9 ms of kernel time at busy moments; tmpfs ~10 µs)
  const memoryDir = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/stackwright-bench-') : undefined;
  const inMemory = memoryDir === undefined ? undefined : stats(Array.from({ length: quick ? 3 : 9 }, (_, i) => generateOnce(['--preset', largest.id, '--proxy', 'caddy', '--domain', `m${i}.example.org`, '--name', `mem-${i}`], path.join(memoryDir, `m${i}`))));
  if (memoryDir !== undefined) fs.rmSync(memoryDir, { recursive: true, force: true });
  // a stack of a shape no run has made: each run another preset (rendered in full, then its shape kept)
  const presets = [...catalogue.presets.keys()].filter((id) => id !== largest.id).slice(0, quick ? 4 : 10);
  const newShape = stats(presets.map((preset, i) => generateOnce(['--preset', preset, '--proxy', 'caddy', '--domain', `n${i}.example.org`, '--name', `new-${i}`], path.join(out, `n${i}`))));
  // what the file system takes for the same files: the largest stack written by a process of its own
  const writeOnly = stats(Array.from({ length: quick ? 4 : 10 }, (_, i) => {
    const dir = path.join(out, `w${i}`);
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', `
      import fs from 'node:fs';
      const files = JSON.parse(fs.readFileSync(0, 'utf8'));
      const t = performance.now();
      await (await import(${JSON.stringify(builtModule('cli/bundle-dir.js'))})).writeBundle(${JSON.stringify(dir)}, files);
      console.log(performance.now() - t);
    `], { input: JSON.stringify(readTreeOf(path.join(out, 's1'))), encoding: 'utf8' });
    return Number(r.stdout.trim());
  }));
  const bare = stats(Array.from({ length: quick ? 4 : 10 }, () => time(() => spawnSync(process.execPath, ['-e', '0']))));
  fs.rmSync(out, { recursive: true, force: true });
  const c = stats(times);
  console.log(`stackwright generate (${largest.id}, new name and domain, its shape kept by an earlier run), process start to files written: median ${c.median.toFixed(0)} ms, p99 ${c.p99.toFixed(0)} ms (n=${c.n}); a bare \`node -e 0\`: ${bare.median.toFixed(0)} ms`);
  console.log(`  writing the same files alone (the file system's part; in a process of its own, timed around the write): median ${writeOnly.median.toFixed(1)} ms`);
  if (inMemory) console.log(`  the same runs writing to tmpfs (/dev/shm, the disk's part taken out): median ${inMemory.median.toFixed(0)} ms, p99 ${inMemory.p99.toFixed(0)} ms (n=${inMemory.n})`);
  console.log(`  the first run after the build (every input checked by content, the snapshot stamped, the shape kept): ${firstRun.toFixed(0)} ms`);
  console.log(`stackwright generate, a preset no run has made before (renders in full, then keeps the shape): median ${newShape.median.toFixed(0)} ms (n=${newShape.n})\n`);
  record('CLI start → files written', '≤ 100 ms', `${c.median.toFixed(0)} ms (bare node ${bare.median.toFixed(0)} ms; writing the files ${writeOnly.median.toFixed(0)} ms)`, c.median <= 100, c.median);
  if (inMemory) record('CLI start → files written on tmpfs', '', `${inMemory.median.toFixed(0)} ms`, undefined, inMemory.median);
  record('CLI, a shape no run made before', '', `${newShape.median.toFixed(0)} ms`, undefined, newShape.median);
}

if (!runs('http')) {
  printSummary();
  process.exit(0);
}

// ---- start to ready
async function startServer(env: Record<string, string>): Promise<{ ms: number; reported: number; port: number; pid: number; stop: () => void; logged: () => { lines: number; bytes: number } }> {
  const started = performance.now();
  // the node options of `npm start`, so the figures are the service's as users run it
  const startArgs = startCommand.slice(startCommand.indexOf('node') + 1);
  const child = spawn(process.execPath, startArgs.map((a) => (a.startsWith('-') ? a : path.join(REPO_ROOT, a))), {
    env: { ...process.env, ...serviceEnv, PORT: '0', STACK_API_KEY: BENCH_KEY, ...env }, stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolvePromise, reject) => {
    let out: string | null = '';
    const logged = { lines: 0, bytes: 0 };
    child.stdout.on('data', (d: Buffer) => {
      // once listening, the request log is counted and dropped (it would otherwise pile up here)
      if (out === null) {
        logged.bytes += d.length;
        for (let i = d.indexOf(10); i >= 0; i = d.indexOf(10, i + 1)) logged.lines++;
        return;
      }
      out += d;
      const m = /listening on http:\/\/[^:]+:(\d+)\/api\/v1 \(ready (\d+) ms/.exec(out);
      if (m) {
        out = null;
        resolvePromise({ ms: performance.now() - started, reported: Number(m[2]), port: Number(m[1]), pid: child.pid!, stop: () => child.kill(), logged: () => ({ ...logged }) });
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
const METRICS_TOKEN = 'bench-metrics-4be81f0c9a27d356';
const server = await startServer({ STACK_LOG_REQUESTS: requestLog === 'on' ? '1' : '0', STACK_METRICS_TOKEN: METRICS_TOKEN, STACK_RATE_LIMIT_READ: '1000000000', STACK_RATE_LIMIT_WRITE: '1000000000', STACK_RATE_LIMIT_GENERATE: '1000000000', STACK_MAX_CONNECTIONS: '10000', STACK_MAX_CONNECTIONS_PER_ADDRESS: '10000', STACK_GENERATE_QUEUE: '100000' });
const base = `http://127.0.0.1:${server.port}`;
const duration = quick ? 3 : 10;
/** CPU time (user + system) a process has used so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMsOf(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are fields 14 and 15 of the line, in clock ticks (100 a second on Linux)
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}
/** One load run from bench/load-client.ts; with `pid`, also the CPU time that process spent per request. */
async function load(title: string, spec: Omit<LoadSpec, 'duration' | 'connections'>, pid?: number): Promise<LoadResult & { cpuPerRequest: number }> {
  const file = path.join(os.tmpdir(), `stackwright-bench-load-${process.pid}.json`);
  fs.writeFileSync(file, JSON.stringify({ connections: 32, duration, ...spec }));
  const cpuBefore = pid === undefined ? Number.NaN : cpuMsOf(pid);
  const client = spawn(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'bench/load-client.ts'), file], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  client.stdout.on('data', (d: Buffer) => { out += d; });
  const code = await new Promise<number | null>((r) => client.on('exit', r));
  fs.rmSync(file, { force: true });
  if (code !== 0) throw new Error(`the load client failed (exit ${code}): ${out}`);
  const r = JSON.parse(out) as LoadResult;
  // the warm-up second is in the CPU time too: divided by every request the client sent
  const cpuPerRequest = pid === undefined ? Number.NaN : (cpuMsOf(pid) - cpuBefore) / (r.requests * (duration + 1) / duration);
  const cpu = Number.isNaN(cpuPerRequest) ? '' : `; server CPU ${cpuPerRequest.toFixed(3)} ms a request`;
  console.log(`  ${title}: ${Math.round(r.average)} req/s (median latency ${r.p50} ms, p99 ${r.p99} ms, ${r.non2xx} non-2xx, ${r.errors} errors${cpu})`);
  return { ...r, cpuPerRequest };
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
/** The server's JS heap (V8's total and used) and memory outside it, from its own /metrics. */
async function heapOf(): Promise<string> {
  const text = await (await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const mb = (name: string) => (Number(new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1]) / 1048576).toFixed(0);
  return `JS heap ${mb('nodejs_heap_size_used_bytes')} MB used of ${mb('nodejs_heap_size_total_bytes')} MB, external ${mb('nodejs_external_memory_bytes')} MB`;
}
/** Where the server's memory stands after a phase (printed, so the note can say where it goes). */
async function memoryAfter(phase: string): Promise<void> {
  console.log(`    server memory after ${phase}: RSS ${residentMB(server.pid)}; ${await heapOf()}`);
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

console.log(`HTTP over loopback, ${duration} s each, 32 connections, load from a process of its own; request log ${requestLog} (STACK_LOG_REQUESTS=${requestLog === 'on' ? 1 : 0})`);
// the ceiling and GET /services in turns, a pair at a time: the box's speed drifts by tens of % within
// minutes, and a ratio of two runs taken side by side is steadier than one of runs taken apart
const pairs: { ceiling: number; services: number }[] = [];
for (let i = 0; i < (quick ? 1 : 3); i++) {
  const ceilingRun = await load(`bare node:http sending the same ${servicesBody.length} bytes (the ceiling), pair ${i + 1}`, { url: `http://127.0.0.1:${barePort}/` }, bare.pid);
  const servicesRun = await load(`GET /api/v1/services, pair ${i + 1}`, { url: `${base}/api/v1/services` }, server.pid);
  pairs.push({ ceiling: ceilingRun.average, services: servicesRun.average });
  console.log(`    = ${(100 * servicesRun.average / ceilingRun.average).toFixed(0)}% of the ceiling`);
}
bare.kill();
// the pair with the median ratio stands for the run; every pair is printed above
const [middle] = [...pairs].sort((a, b) => a.services / a.ceiling - b.services / b.ceiling).slice(pairs.length >> 1);
const { ceiling, services } = middle;
const ratios = pairs.map((p) => (p.services / p.ceiling).toFixed(2)).join(', ');
record('GET /services ÷ bare node:http, same bytes', '≥ 0.8', `${(services / ceiling).toFixed(2)}, median of ${pairs.length} pairs (${ratios}); ${Math.round(services)} of ${Math.round(ceiling)} req/s`, services / ceiling >= 0.8);
await memoryAfter('GET /services');
const post = { url: `${base}/api/v1/generate`, method: 'POST' as const, headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` } };
await load(`POST /api/v1/generate (${largest.id}, one request repeated)`, { ...post, body: JSON.stringify(request) }, server.pid);
const httpNew = await load(`POST /api/v1/generate (${largest.id}, a new name and domain each request)`, { ...post, newNameAndDomain: { ...request } }, server.pid);
record('POST /generate, new name + domain each', '≥ 1500 req/s', `${Math.round(httpNew.average)} req/s (${(httpNew.average / ceiling).toFixed(2)} of bare node:http's GET; server CPU ${httpNew.cpuPerRequest.toFixed(2)} ms a request)`, httpNew.average >= 1500);
await memoryAfter('new names and domains');
// new content every request, made here beforehand (more than the run can send at the rate it renders)
const other = kinds(catalogue, request, swapPool(catalogue, request))['other services'];
const otherBodies = Array.from({ length: quick ? 2000 : 6000 }, (_, i) => JSON.stringify(other(i)));
const httpOther = await load(`POST /api/v1/generate (${largest.id} with one service swapped, new name and domain: renders)`, { ...post, bodies: otherBodies }, server.pid);
if (httpOther.requests * ((duration + 1) / duration) > otherBodies.length) console.log(`    (more requests than the ${otherBodies.length} bodies made: some were repeats)`);
record('POST /generate, other services each (renders)', '(≥ 1500 req/s for new content)', `${Math.round(httpOther.average)} req/s (${(httpOther.average / ceiling).toFixed(2)} of bare node:http's GET; server CPU ${httpOther.cpuPerRequest.toFixed(2)} ms a request)`, httpOther.average >= 1500);
await memoryAfter('other service sets');

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
  await memoryAfter('the burst');
}

// memory: the server's resident set after all of the above, then holding 1,000 open connections
{
  const net = await import('node:net');
  const afterRuns = residentMB(server.pid);
  console.log(`\nserver memory (RSS): ${afterRuns} right after the runs above`);
  // what stays resident on the box: the service gives a burst's memory back once idle (src/http/idle-memory.ts)
  await new Promise((r) => setTimeout(r, 3_000));
  const settled = residentMB(server.pid);
  console.log(`  after 3 s with no request: ${settled}; ${await heapOf()}`);
  record('server RSS after the bench (3 s idle; right after it)', '≤ 150 MB', `${settled.replace(/ \(.*/, '')} (${afterRuns.replace(/ \(.*/, '')})`, Number(settled.split(' ')[0]) <= 150);
  const sockets = await Promise.all(Array.from({ length: 1000 }, () => new Promise<import('node:net').Socket>((r) => {
    const socket = net.connect(server.port, '127.0.0.1', () => r(socket));
    socket.on('error', () => r(socket));
  })));
  await new Promise((r) => setTimeout(r, 500));
  console.log(`  with 1,000 idle connections open: ${residentMB(server.pid)}`);
  for (const socket of sockets) socket.destroy();
}
{
  const { lines, bytes } = server.logged();
  console.log(`  request log ${requestLog}: the server wrote ${lines} log lines (${(bytes / 1048576).toFixed(1)} MB) to stdout during the HTTP runs`);
  record('request log during the HTTP runs', `${requestLog} (--request-log)`, `${lines} lines, ${(bytes / 1048576).toFixed(1)} MB`);
}
server.stop();
printSummary();
