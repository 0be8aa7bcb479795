// `stackwright list <kind>`: the catalogue offline, as the API lists it (the same views, the same service
// filters), for a person choosing ids or a script (--format json prints the API's data).
import { didYouMean } from '../catalogue/problems.js';
import { oneLine, search, searchable } from '../catalogue/search.js';
import type { Catalogue } from '../catalogue/types.js';
import { filteredServiceIds, serviceFilterErrors } from '../usecases/list.js';
import { frameworkView, presetListView, proxyView, serviceView, skillPackView } from '../usecases/views.js';
import { loadCliCatalogue } from './engine.js';
import { EXIT, UsageError, type Output } from './output.js';

export interface ListOptions { category?: string; tag?: string; maturity?: string; text?: string; service?: string; format?: string }

interface Listing {
  /** the API's data for --format json */
  data: Record<string, unknown>;
  /** one line an entry for people: id, name, and what else helps to choose */
  rows: [id: string, name: string, about: string][];
  /** what one entry is called, and several */
  noun: [string, string];
}

/** Which filters each kind takes (the API's, plus text search and skill packs by service). */
const KINDS: Record<string, { filters: (keyof ListOptions)[]; list(c: Catalogue, o: ListOptions): Listing }> = {
  services: {
    filters: ['category', 'tag', 'maturity', 'text'],
    list: (c, o) => {
      const errors = serviceFilterErrors(c, o).map((e) => `--${e.startsWith('unknown category') ? 'category' : 'maturity'}: ${e}`);
      if (errors.length) throw new UsageError(errors.join('\n'), { showUsage: false });
      const ids = filteredServiceIds(c, o);
      const services = search([...c.services.values()].filter((s) => !ids || ids.has(s.id)), o.text, searchable.service);
      return {
        data: { total: services.length, services: services.map((s) => serviceView(c, s)) },
        rows: services.map((s) => [s.id, s.manifest.name, `${s.manifest.category}, ${s.manifest.maturity}, ${s.manifest.minMemoryMB} MB: ${oneLine(s.manifest.description)}`]),
        noun: ['service', 'services'],
      };
    },
  },
  skills: {
    filters: ['service', 'text'],
    list: (c, o) => {
      if (o.service !== undefined && !c.services.has(o.service)) {
        throw new UsageError(`--service: unknown service "${o.service}"${didYouMean(o.service, c.services.keys())}; stackwright list services lists the ids`, { showUsage: false });
      }
      const uses = (ids: readonly string[] | undefined) => (ids ?? []).includes(o.service!);
      const packs = search([...c.skillPacks.values()].filter((p) => o.service === undefined || uses(p.manifest.requiredServices) || uses(p.manifest.optionalServices)), o.text, searchable.skillPack);
      return {
        data: { total: packs.length, skillPacks: packs.map(skillPackView) },
        rows: packs.map((p) => [p.id, p.manifest.name, `needs ${p.manifest.requiredServices.join(', ') || 'no service'}: ${oneLine(p.manifest.description)}`]),
        noun: ['skill pack', 'skill packs'],
      };
    },
  },
  presets: {
    filters: ['text'],
    list: (c, o) => {
      const presets = search([...c.presets.values()], o.text, searchable.preset);
      return {
        data: { presets: presets.map(presetListView) },
        rows: presets.map((p) => [p.id, p.manifest.name, `${p.manifest.services.length} services, ${p.manifest.skills.length} skill packs: ${oneLine(p.manifest.description)}`]),
        noun: ['preset', 'presets'],
      };
    },
  },
  frameworks: {
    filters: [],
    list: (c) => ({
      data: { total: c.frameworks.size, default: c.defaultFramework, frameworks: [...c.frameworks.values()].map((f) => frameworkView(c, f)) },
      rows: [...c.frameworks.values()].map((f) => [f.id, f.manifest.name, `${f.manifest.runtime}${f.id === c.defaultFramework ? ', the default' : ''}: ${oneLine(f.manifest.description)}`]),
      noun: ['framework', 'frameworks'],
    }),
  },
  proxies: {
    filters: [],
    list: (c) => ({
      data: { total: c.proxies.size, proxies: [...c.proxies.values()].map(proxyView) },
      rows: [...c.proxies.values()].map((p) => [p.id, p.manifest.name, oneLine(p.manifest.description)]),
      noun: ['proxy', 'proxies'],
    }),
  },
};

export const LIST_KINDS = Object.keys(KINDS);
const FILTER_FLAGS: (keyof ListOptions)[] = ['category', 'tag', 'maturity', 'text', 'service'];

export function runList(kindArg: string | undefined, opts: ListOptions, io: Output): number {
  if (kindArg === undefined) throw new UsageError(`list what? stackwright list ${LIST_KINDS.join('|')}`);
  const kind = KINDS[kindArg];
  if (!kind) throw new UsageError(`cannot list "${kindArg}"${didYouMean(kindArg, LIST_KINDS)}: stackwright list ${LIST_KINDS.join('|')}`);
  const misplaced = FILTER_FLAGS.filter((f) => opts[f] !== undefined && !kind.filters.includes(f));
  if (misplaced.length) {
    throw new UsageError(misplaced.map((f) => `--${f} does not filter ${kindArg}${kind.filters.length ? `: its filters are ${kind.filters.map((k) => `--${k}`).join(', ')}` : ' (it takes no filter)'}`).join('\n'));
  }
  if (opts.format !== undefined && opts.format !== 'text' && opts.format !== 'json') throw new UsageError(`--format must be text or json (got "${opts.format}")`);
  const { catalogue } = loadCliCatalogue();
  const listing = kind.list(catalogue, opts);
  if (opts.format === 'json') {
    io.out(JSON.stringify(listing.data, null, 2));
    return EXIT.ok;
  }
  const width = Math.max(0, ...listing.rows.map(([id]) => id.length));
  for (const [id, name, about] of listing.rows) io.out(`${io.style.bold(id.padEnd(width))}  ${name} (${about})`);
  const n = listing.rows.length;
  io.out(io.style.dim(`${n} ${listing.noun[n === 1 ? 0 : 1]}`));
  return EXIT.ok;
}
