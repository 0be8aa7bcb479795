// Run by bench/run.ts in a process of its own (with the service's memory flags), once per warming: the cost of a
// full-stack selection that adds a service no render of the process has met (one outside every preset, a different
// one each request), on a generator warmed as a snapshot is (--warm=all: warmRequests, every preset and then every
// service outside them) or with the presets alone (--warm=presets, the warm before session 45). A process of its own
// because what a render learns of a service's YAML scalars is kept for the process (emit/yaml-dump.ts): in one
// process, the second generator would meet every service warm. Prints one JSON document (FirstMeeting).
import { readConfig } from '../src/config.js';
import type { GenerateRequest } from '../src/pipeline/generate.js';
import { Generator, loadCatalogueOrThrow, warmRequests } from './built.js';
import { swapPool } from './requests.js';

export interface FirstMeeting {
  warm: 'all' | 'presets';
  /** CPU time of the warming, ms */
  warmCpu: number;
  /** wall time of each request, ms: median and p99 */
  median: number;
  p99: number;
  n: number;
}

const warm = process.argv.find((a) => a.startsWith('--warm='))?.slice('--warm='.length);
if (warm !== 'all' && warm !== 'presets') throw new Error('--warm=all or --warm=presets');
const count = Number(process.argv.find((a) => a.startsWith('--count='))?.slice('--count='.length) ?? 60);
const config = readConfig({});
const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
const base: GenerateRequest = { name: 'first', preset: 'full-stack', proxy: 'caddy', domain: 'example.com' };
const services = [...catalogue.presets.get('full-stack')!.manifest.services];
const skills = [...catalogue.presets.get('full-stack')!.manifest.skills];
// the services the full warm renders alone: those no preset holds
const outside = new Set(warmRequests(catalogue).flatMap((r) => r.services ?? []));
// not resolved ahead: a resolution reads the plugin's manifest into kept facts (memo.ts), which is part of a first meeting
const requests = swapPool(catalogue, base).filter((id) => outside.has(id))
  .map((id, i): GenerateRequest => ({ ...base, preset: undefined, services: [...services, id], skills, name: `m-${i}`, domain: `m${i}.example.org` }));
const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize);
const before = process.cpuUsage();
for (const r of warmRequests(catalogue)) if (warm === 'all' || r.preset !== undefined) generator.warm(r);
const used = process.cpuUsage(before);
// the preset's own services warm in the process, as in a service that has answered a few requests
for (let i = 0; i < 20; i++) generator.generate({ ...base, preset: undefined, services, skills, name: `w-${i}`, domain: `w${i}.example.org` });
const times: number[] = [];
for (const r of requests) {
  if (times.length >= count) break;
  const t = performance.now();
  try {
    generator.generate(r);
  } catch {
    continue; // a service that needs another one outside the set, or conflicts: not a stack, not timed
  }
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const result: FirstMeeting = {
  warm, warmCpu: (used.user + used.system) / 1000,
  median: times[times.length >> 1], p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))], n: times.length,
};
console.log(JSON.stringify(result));
