// The requests the bench sends, shared by bench/run.ts and the processes it starts (bench/size-sweep.ts):
// the ~200-service request, and the request kinds users send made from a base request.
import type { Catalogue } from '../src/catalogue/types.js';
import type { GenerateRequest } from '../src/pipeline/generate.js';
import { resolve } from '../src/model/resolve.js';

/** A ~200-service request with every skill pack: services added in id order while they resolve without conflict. */
export function largeRequest(catalogue: Catalogue): GenerateRequest {
  const skills = [...catalogue.skillPacks.keys()];
  // first what the skill packs need, then the rest in id order while nothing conflicts
  const services = [...new Set([...catalogue.skillPacks.values()].flatMap((p) => p.manifest.requiredServices))];
  for (const id of [...catalogue.services.keys()].sort()) {
    if (services.length >= 200) break;
    if (services.includes(id)) continue;
    const r = resolve(catalogue, { services: [...services, id], skills, proxy: 'caddy', domain: 'example.com' });
    if (!r.errors.length && !r.conflicts.length) services.push(id);
  }
  const check = resolve(catalogue, { services, skills, proxy: 'caddy', domain: 'example.com' });
  if (check.errors.length || check.conflicts.length) throw new Error(`the large request does not resolve: ${[...check.errors, ...check.conflicts.map((c) => c.join(' and '))].join('; ')}`);
  return { name: 'bench', services, skills, proxy: 'caddy', domain: 'example.com' };
}

/** The request kinds users send, as a function of the sample index i (every i gives new content where it should). */
export function kinds(catalogue: Catalogue, base: GenerateRequest, pool: string[]) {
  const baseServices = base.services ?? [...catalogue.presets.get(base.preset!)!.manifest.services];
  const baseSkills = base.skills ?? [...catalogue.presets.get(base.preset!)!.manifest.skills];
  return {
    identical: (_i: number) => base,
    'new name': (i: number) => ({ ...base, name: `n-${i}` }),
    'new name + domain': (i: number) => ({ ...base, name: `n-${i}`, domain: `d${i}.example.org` }),
    // another service set each time (one service swapped for one from outside the set), new name and domain
    'other services': (i: number) => {
      const services = [...baseServices];
      services[i % services.length] = pool[Math.floor(i / services.length) % pool.length];
      // a service a skill pack needs stays; the other one joins beside it
      if (resolve(catalogue, { ...base, preset: undefined, services, skills: baseSkills }).errors.length) services.splice(i % services.length, 0, baseServices[i % services.length]);
      return { ...base, preset: undefined, services, skills: baseSkills, name: `s-${i}`, domain: `s${i}.example.net` };
    },
  };
}

/** Services outside the request's set that can join it without a conflict. */
export function swapPool(catalogue: Catalogue, base: GenerateRequest): string[] {
  const inSet = new Set(base.services ?? catalogue.presets.get(base.preset!)!.manifest.services);
  return [...catalogue.services.keys()].filter((id) => !inSet.has(id) && !resolve(catalogue, { ...base, preset: undefined, services: [...inSet].slice(1).concat(id) }).conflicts.length);
}

/**
 * `count` new selections (issue 36), none the same: the base set minus one service, a different one each
 * time (of those whose removal still resolves), each with a new name and domain; once every such service
 * has been left out once, the set minus one plus one service from outside it (combinations that do not
 * resolve are passed over). Throws when the base set cannot give `count` of them.
 */
export function newSelections(catalogue: Catalogue, base: GenerateRequest, count: number): GenerateRequest[] {
  const services = base.services ?? [...catalogue.presets.get(base.preset!)!.manifest.services];
  const skills = base.skills ?? [...catalogue.presets.get(base.preset!)!.manifest.skills];
  const resolves = (set: string[]) => {
    const r = resolve(catalogue, { ...base, preset: undefined, services: set, skills });
    return !r.errors.length && !r.conflicts.length;
  };
  const droppable = services.filter((id) => resolves(services.filter((s) => s !== id)));
  const pool = swapPool(catalogue, base);
  const out: GenerateRequest[] = [];
  for (let round = 0; round <= pool.length && out.length < count; round++) {
    for (const left of droppable) {
      if (out.length >= count) break;
      const set = services.filter((s) => s !== left);
      if (round > 0) set.push(pool[round - 1]);
      if (round > 0 && !resolves(set)) continue;
      const i = out.length;
      out.push({ ...base, preset: undefined, services: set, skills, name: `ns-${i}`, domain: `ns${i}.example.org` });
    }
  }
  if (out.length < count) throw new Error(`only ${out.length} of ${count} new selections can be made from this set`);
  return out;
}
