// The rows the README and scripts/start.sh write of each member (the parts table, the addresses, the routes,
// the databases). Each row is a frozen object given back for as long as its facts are the same (memo.ts
// keptItems), so the text a file writes of it is kept by it (bundle-files.ts, fragments): a new selection
// writes the rows of what it changed, not the rows of every member again. Where the stack's domain binds late
// (bundle-files.ts), a row holding it holds the domain's placeholder instead (late-binding.ts domainLeftOut),
// so one row serves every domain and the domain is bound into its text.
import { VALUE_REF } from '../catalogue/rules.js';
import type { ContainerPlugin } from '../catalogue/types.js';
import { keptItems, perObject } from '../memo.js';
import { setupServiceName } from '../model/layout.js';
import { envKey, imageRef, NATIVE_BIND_VARIABLE, type StackDatabase, type StackModel } from '../model/model.js';

const ROLE: Record<string, string> = { framework: 'agent framework', service: 'service', proxy: 'reverse proxy' };

/** The parts table: one row a member. */
export function memberRows(model: StackModel) {
  return model.members.map((m) => {
    const image = m.placement === 'native' ? null : imageRef(m.plugin, model.options.gpu);
    return memberRow(m.plugin, 0, [m.role, m.placement, image], () => ({
      id: m.plugin.id,
      role: m.role ? `${m.role} ${ROLE[m.plugin.kind]}` : ROLE[m.plugin.kind],
      image: image ?? `installed by native/${m.plugin.id}.sh`,
      placement: m.placement,
      docs: m.plugin.manifest.links.docs,
    }));
  });
}
const memberRow = keptItems<ContainerPlugin, { id: string; role: string; image: string; placement: string; docs: string }>();

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
export function urlRows(model: StackModel, leftOut: (text: string) => string): Readonly<UrlRow>[] {
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
    rows.push(publishedRow(plugin, p.variable, [p.host, path, p.description], () => ({
      label: `${plugin.manifest.name}, ${lowerFirst(p.description)}`, variable: p.variable, port: p.host, path, url: null, login: loginText(plugin),
    })));
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
  for (const r of model.routes) {
    const plugin = model.plugins.get(r.service)!;
    const url = leftOut(r.url);
    rows.push(routedRow(plugin, r.port, [url], () => ({
      label: `${plugin.manifest.name} via the proxy`, variable: null, port: 0, path: '', url, login: loginText(plugin),
    })));
  }
  return rows;
}
const publishedRow = keptItems<ContainerPlugin, UrlRow>();
const routedRow = keptItems<ContainerPlugin, UrlRow>();

/** The routes table: each route with the login its service asks for. */
export function routeRows(model: StackModel, leftOut: (text: string) => string) {
  return model.routes.map((r) => {
    const plugin = model.plugins.get(r.service)!;
    const url = leftOut(r.url);
    const host = r.host === null ? null : leftOut(r.host);
    return routeRow(plugin, r.port, [url, host, r.path, r.upstream, r.protected, r.strip], () => ({ ...r, url, host, login: loginText(plugin) }));
  });
}
const routeRow = keptItems<ContainerPlugin, StackModel['routes'][number] & { login: string | null }>();

/** The databases table: each consumer's database, with the one-shot container that creates it. */
export function databaseRows(model: StackModel) {
  return model.databases.map((d) => databaseRow(model.plugins.get(d.consumer)!, d.server,
    [d.name, d.user, d.passwordVariable, d.urlVariable, ...d.additional, '|', ...d.extensions], () => ({ ...d, setup: setupServiceName(d.server) })));
}
const databaseRow = keptItems<ContainerPlugin, StackDatabase & { setup: string }>();

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
