// The rows the README and scripts/start.sh write of each member (the parts table, the addresses, the routes,
// the databases). Each row is a frozen object given back for as long as its facts are the same (memo.ts
// KeptSlots), so the text a file writes of it is kept by it (bundle-files.ts, fragments): a new selection
// writes the rows of what it changed, not the rows of every member again. Where the stack's domain binds late
// (bundle-files.ts), a row holding it holds the domain's placeholder instead (late-binding.ts domainLeftOut),
// so one row serves every domain and the domain is bound into its text.
import { VALUE_REF } from '../catalogue/rules.js';
import type { ContainerPlugin } from '../catalogue/types.js';
import { KeptSlots, perObject } from '../memo.js';
import { setupServiceName } from '../model/layout.js';
import { envKey, imageRef, NATIVE_BIND_VARIABLE, type StackDatabase, type StackModel } from '../model/model.js';

const ROLE: Record<string, string> = { framework: 'agent framework', service: 'service', proxy: 'reverse proxy' };

/** The parts table: one row a member. */
export function memberRows(model: StackModel) {
  const gpu = model.options.gpu;
  return model.members.map((m) => {
    // everything a row holds besides the plugin's own facts: its role, where it runs, whether the stack has a GPU
    const slot = (m.role === 'primary' ? 1 : m.role === 'companion' ? 2 : 0) * 4 + (m.placement === 'native' ? 2 : 0) + (gpu ? 1 : 0);
    return memberRow.get(m.plugin, slot) ?? memberRow.keep(m.plugin, slot, {
      id: m.plugin.id,
      role: m.role ? `${m.role} ${ROLE[m.plugin.kind]}` : ROLE[m.plugin.kind],
      image: m.placement === 'native' ? `installed by native/${m.plugin.id}.sh` : imageRef(m.plugin, gpu),
      placement: m.placement,
      docs: m.plugin.manifest.links.docs,
    });
  });
}
const memberRow = new KeptSlots<ContainerPlugin, { id: string; role: string; image: string; placement: string; docs: string }>();

interface UrlRow {
  label: string;
  /** the .env variable of its host port (a published port), or null */
  variable: string | null;
  port: number;
  path: string;
  /** the whole address where it is not a published port's */
  url: string | null;
  login: string | null;
}

/** Where a person opens each web service: its published ports, the native parts' ports, its routes through the proxy. */
/** Each route's URL as the rows hold it (the domain's placeholder in it where the domain binds late), in model.routes order. */
export function routeUrls(model: StackModel, leftOut: (text: string) => string): string[] {
  return model.routes.map((r) => leftOut(r.url));
}

export function urlRows(model: StackModel, routeUrls: readonly string[]): Readonly<UrlRow>[] {
  // an app that keeps its proxy path prefix (subpath: native) serves under it on its own port too
  const keptPrefixes = new Map<string, string>();
  for (const r of model.routes) {
    const key = `${r.service}:${r.port}`;
    if (!r.host && !r.strip && !keptPrefixes.has(key)) keptPrefixes.set(key, `${r.path}/`);
  }
  const basePath = (pluginId: string, port: number) => (keptPrefixes.size ? keptPrefixes.get(`${pluginId}:${port}`) ?? '/' : '/');
  const rows: Readonly<UrlRow>[] = [];
  for (const p of model.ports) {
    if (!p.web) continue;
    const plugin = model.plugins.get(p.plugin)!;
    const path = basePath(p.plugin, p.container);
    const last = publishedRow.get(plugin, p.variable);
    rows.push(last && last.port === p.host && last.path === path ? last : publishedRow.keep(plugin, p.variable, {
      label: `${plugin.manifest.name}, ${lowerFirst(p.description)}`, variable: p.variable, port: p.host, path, url: null, login: loginText(plugin),
    }));
  }
  // native parts listen on the host at their own ports, on the bridge gateway address only (few: not kept)
  for (const m of model.members) {
    if (m.placement !== 'native') continue;
    for (const p of m.plugin.manifest.ports ?? []) {
      if (!p.web) continue;
      rows.push({
        label: `${m.plugin.manifest.name} (native), ${lowerFirst(p.description)}`, variable: null, port: p.container, path: '',
        url: `http://<${NATIVE_BIND_VARIABLE} from .env>:${p.container}${basePath(m.plugin.id, p.container)}`, login: loginText(m.plugin),
      });
    }
  }
  model.routes.forEach((r, i) => {
    const plugin = model.plugins.get(r.service)!;
    const url = routeUrls[i];
    const last = routedRow.get(plugin, r.port);
    rows.push(last && last.url === url ? last : routedRow.keep(plugin, r.port, {
      label: `${plugin.manifest.name} via the proxy`, variable: null, port: 0, path: '', url, login: loginText(plugin),
    }));
  });
  return rows;
}
const publishedRow = new KeptSlots<ContainerPlugin, UrlRow>();
const routedRow = new KeptSlots<ContainerPlugin, UrlRow>();

/** The routes table: each route with the login its service asks for. */
export function routeRows(model: StackModel, routeUrls: readonly string[], leftOut: (text: string) => string) {
  return model.routes.map((r, i) => {
    const plugin = model.plugins.get(r.service)!;
    const url = routeUrls[i];
    const last = routeRow.get(plugin, r.port);
    // the host is the URL's (buildRoutes): the same URL, the same host
    return last && last.url === url && last.path === r.path && last.upstream === r.upstream && last.protected === r.protected && last.strip === r.strip
      ? last : routeRow.keep(plugin, r.port, { ...r, url, host: r.host === null ? null : leftOut(r.host), login: loginText(plugin) });
  });
}
const routeRow = new KeptSlots<ContainerPlugin, StackModel['routes'][number] & { login: string | null }>();

/** The databases table: each consumer's database, with the one-shot container that creates it. */
export function databaseRows(model: StackModel) {
  return model.databases.map((d) => {
    const consumer = model.plugins.get(d.consumer)!;
    const last = databaseRow.get(consumer, d.server);
    return last && last.name === d.name && last.user === d.user && last.passwordVariable === d.passwordVariable && last.urlVariable === d.urlVariable
      && sameStrings(last.additional, d.additional) && sameStrings(last.extensions, d.extensions)
      ? last : databaseRow.keep(consumer, d.server, { ...d, setup: setupServiceName(d.server) });
  });
}
const databaseRow = new KeptSlots<ContainerPlugin, StackDatabase & { setup: string }>();

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** A plugin's `login` for the README, each {{id.VAR}} as the .env key that holds it (the loader checked them), or null; read off the plugin once. */
const loginText = perObject((plugin: ContainerPlugin): string | null => {
  const login = plugin.manifest.login;
  return login === undefined ? null : login.replace(VALUE_REF, (ref, _target: string, variable: string) => {
    const spec = (plugin.manifest.environment ?? []).find((e) => e.name === variable);
    return spec ? `\`${envKey(plugin.id, spec)}\`` : ref;
  });
});

function lowerFirst(text: string): string {
  return /^[A-Z][a-z]/.test(text) ? text[0].toLowerCase() + text.slice(1) : text;
}
