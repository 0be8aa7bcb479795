// Run by bench/run.ts in a process of its own when the bench is given the reference generator (--reference=DIR or
// STACK_BENCH_REFERENCE): issue 36 asks for a new selection at ≥ 10× the reference's speed at full stack and at ≥ 5×
// its largest stack, in the same run. The reference is better-openclaw's core (bidewio/better-openclaw-core, built
// with its own `npm run build`), which is not ours to ship: the bench imports it from where the user built it.
// Each call does what its REST route does (GenerationInputSchema.parse, then generate) with a new selection (the set
// minus one service, another each call), a new name and a new domain, proxy Caddy, as our bench's new selections are
// made. The reference keeps nothing between calls, so a selection met again costs it the same.
// Prints one JSON document (ReferenceFigure).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

export interface ReferenceFigure {
  set: 'preset' | 'largest';
  /** what the set is: the preset's id, or how the largest set was found */
  what: string;
  /** services in the set (each call selects all but one) */
  services: number;
  /** of how many the reference registers */
  registered: number;
  median: number;
  p90: number;
  n: number;
}

/** The parts of the reference's public API the bench calls. */
interface ReferenceCore {
  GenerationInputSchema: { parse(body: unknown): unknown };
  generate(input: unknown): { files: Record<string, unknown> };
  getAllServices(): { id: string }[];
  getAllPresets(): { id: string; services: string[] }[];
}

/** The module to import: DIR/dist/index.mjs for a checkout built with its `npm run build`, or the module itself. */
export function referenceModule(location: string): string {
  const candidate = fs.statSync(location).isDirectory() ? path.join(location, 'dist', 'index.mjs') : location;
  if (!fs.existsSync(candidate)) throw new Error(`no reference module at ${candidate}: build the checkout with its own npm run build first`);
  return candidate;
}

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);

/** The reason a selection does not generate on the reference, or null. */
function failure(core: ReferenceCore, services: string[]): string | null {
  try {
    core.generate(core.GenerationInputSchema.parse({ projectName: 'probe', services, proxy: 'caddy', domain: 'probe.example.com' }));
    return null;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/**
 * The most services that generate together: every service that generates alone, less the fewest that break a
 * pair (a clash of host ports or volumes, a declared conflict). Pairs are probed one by one, then an exact
 * maximum independent set of the clash graph is searched (branch and bound; the graph is sparse). Probing pairs
 * finds clashes between two services; the whole set is then generated once to make sure none needs three.
 */
function largestSet(core: ReferenceCore): string[] {
  const ids = core.getAllServices().map((s) => s.id);
  const alone = ids.filter((id) => failure(core, [id]) === null);
  const clashes = new Map(alone.map((id) => [id, new Set<string>()]));
  for (let a = 0; a < alone.length; a++) {
    for (let b = a + 1; b < alone.length; b++) {
      if (failure(core, [alone[a], alone[b]]) === null) continue;
      clashes.get(alone[a])!.add(alone[b]);
      clashes.get(alone[b])!.add(alone[a]);
    }
  }
  let best: string[] = [];
  const search = (left: string[], chosen: string[]) => {
    if (chosen.length + left.length <= best.length) return;
    // the service with the most clashes among those left: either it is in (its clashes go) or it is out
    const inLeft = new Set(left);
    let pick = left[0];
    let most = -1;
    for (const id of left) {
      let n = 0;
      for (const other of clashes.get(id)!) if (inLeft.has(other)) n++;
      if (n > most) [pick, most] = [id, n];
    }
    if (most <= 0) {
      best = [...chosen, ...left];
      return;
    }
    search(left.filter((id) => id !== pick && !clashes.get(pick)!.has(id)), [...chosen, pick]);
    search(left.filter((id) => id !== pick), chosen);
  };
  search(alone, []);
  const whole = failure(core, best);
  if (whole !== null) throw new Error(`the reference's largest pairwise-compatible set does not generate: ${whole}`);
  // in the registry's order, as a user's list would be
  const kept = new Set(best);
  return ids.filter((id) => kept.has(id));
}

async function main() {
  const module = arg('core');
  const set = arg('set');
  if (module === undefined || (set !== 'preset' && set !== 'largest')) throw new Error('usage: reference.ts --core=MODULE --set=preset|largest [--count=N]');
  const count = Number(arg('count') ?? 200);
  const core = await import(pathToFileURL(module).href) as ReferenceCore;
  let base: string[];
  let what: string;
  if (set === 'preset') {
    const preset = [...core.getAllPresets()].sort((a, b) => b.services.length - a.services.length || a.id.localeCompare(b.id))[0];
    base = [...preset.services];
    what = `its largest preset, ${preset.id}`;
  } else {
    base = largestSet(core);
    what = 'the most of its services that generate together';
  }
  let i = 0;
  let files = 0;
  const call = () => {
    const parsed = core.GenerationInputSchema.parse({
      projectName: `bench-${i}`, services: base.filter((_, k) => k !== i % base.length), proxy: 'caddy', domain: `s${i}.example.com`,
    });
    i++;
    files += Object.keys(core.generate(parsed).files).length;
  };
  for (let w = 0; w < 50; w++) call();
  const times: number[] = [];
  for (let k = 0; k < count; k++) {
    const t = performance.now();
    call();
    times.push(performance.now() - t);
  }
  if (files === 0) throw new Error('the reference generated no files');
  times.sort((a, b) => a - b);
  const figure: ReferenceFigure = {
    set, what, services: base.length, registered: core.getAllServices().length,
    median: times[Math.floor(times.length / 2)], p90: times[Math.min(times.length - 1, Math.ceil(0.9 * times.length) - 1)], n: times.length,
  };
  console.log(JSON.stringify(figure));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
