// Run by bench/run.ts in a process of its own (with the memory flags it is given): the cost of a render
// by the number of services. Five sizes cut from the ~200-service request, each rendering the
// other-services kind (a service swapped, so something renders) on a generator of its own, sampled in turns
// so a busy moment of the machine lands on every size alike. Prints one JSON document (SweepResult).
import v8 from 'node:v8';
import { readConfig } from '../src/config.js';
import type { GenerateRequest } from '../src/pipeline/generate.js';
import { Generator, loadCatalogueOrThrow, resolve } from './built.js';
import { kinds, largeRequest, swapPool } from './requests.js';

export interface SweepResult {
  rounds: number;
  /** containers, and the median CPU time of a render in ms */
  points: { size: number; cpu: number }[];
  /** ms a service: between the smallest and the middle size, and between the middle and the largest */
  lower: number;
  upper: number;
  /** the least-squares line through the points: ms a service, and R² */
  slope: number;
  r2: number;
}

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.slice('--rounds='.length) ?? 200);
const config = readConfig({});
if (config.heapGrowingPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
const catalogue = loadCatalogueOrThrow({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
const large = largeRequest(catalogue);

const sizes = [0.125, 0.25, 0.5, 0.75, 1].map((fraction) => {
  const services = large.services!.slice(0, Math.round(fraction * large.services!.length));
  const inSet = new Set(services);
  // the packs whose services are all in the cut (largeRequest puts the packs' services first)
  const skills = large.skills!.filter((id) => catalogue.skillPacks.get(id)!.manifest.requiredServices.every((s) => inSet.has(s)));
  const base: GenerateRequest = { ...large, services, skills };
  const check = resolve(catalogue, base);
  if (check.errors.length || check.conflicts.length) throw new Error(`the ${services.length}-service cut does not resolve: ${check.errors.join('; ')}`);
  const make = kinds(catalogue, base, swapPool(catalogue, base))['other services'];
  const generator = new Generator(catalogue, config.templatesDir, config.renderCacheSize);
  for (let i = 0; i < 20; i++) generator.generate(make(1_000_000 + i));
  return { size: check.resolvedServices.length, make, generator, cpu: [] as number[] };
});
for (let i = 0; i < rounds; i++) {
  for (const s of sizes) {
    const request = s.make(i);
    const before = process.cpuUsage();
    s.generator.generate(request);
    const used = process.cpuUsage(before);
    s.cpu.push((used.user + used.system) / 1000);
  }
}

const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1];
const points = sizes.map((s) => ({ size: s.size, cpu: median(s.cpu) }));
const xs = points.map((p) => p.size);
const ys = points.map((p) => p.cpu);
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const [mx, my] = [mean(xs), mean(ys)];
const slope = xs.reduce((s, x, i) => s + (x - mx) * (ys[i] - my), 0) / xs.reduce((s, x) => s + (x - mx) ** 2, 0);
const intercept = my - slope * mx;
const r2 = 1 - ys.reduce((s, y, i) => s + (y - (intercept + slope * xs[i])) ** 2, 0) / ys.reduce((s, y) => s + (y - my) ** 2, 0);
const result: SweepResult = {
  rounds,
  points,
  lower: (ys[2] - ys[0]) / (xs[2] - xs[0]),
  upper: (ys[4] - ys[2]) / (xs[4] - xs[2]),
  slope,
  r2,
};
console.log(JSON.stringify(result));
