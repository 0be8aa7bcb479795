// A plugin's environment values as one reader sees them: the references in a manifest's `value`
// ({{id.VAR}}, {{host:id}}, {{port:id:N}}, {{url:id}}) and a database's connection string, spelled for a
// container, a native process or a script. Every deployment target reads them through a ValueView.
import type { ContainerPlugin, ServicePlugin } from '../catalogue/types.js';
import { VALUE_REF } from '../catalogue/rules.js';
import { envKey, type StackModel } from './model.js';

export type PluginLookup = ReadonlyMap<string, ContainerPlugin>;

/**
 * A database's connection string from its server's clientUrl, as one reader sees it: fixed parts go
 * through `escape`, while host, port and password come as the reader spells them.
 */
export function databaseUrl(model: StackModel, db: StackModel['databases'][number], reader: { host: string; port: string; password: string; escape: (text: string) => string }): string {
  const template = (model.plugins.get(db.server) as ServicePlugin).manifest.databaseServer!.clientUrl;
  const values: Record<string, string> = { user: reader.escape(db.user), password: reader.password, host: reader.host, port: reader.port, database: reader.escape(db.name) };
  return template.split(/(\{(?:user|password|host|port|database)\})/).map((piece) => {
    const key = /^\{(\w+)\}$/.exec(piece)?.[1];
    return key && key in values ? values[key] : reader.escape(piece);
  }).join('');
}

/** How one reader sees the stack, for the references in an env `value`. */
export interface ValueView {
  /** the text for `{{id.VAR}}`, given that variable's .env key */
  variable(key: string): string;
  /** the host name of a plugin (`{{host:id}}`) */
  host(pluginId: string): string;
  /** the port of a plugin's container port (`{{port:id:PORT}}`) */
  port(pluginId: string, containerPort: number): string;
  /** the public URL of a plugin (`{{url:id}}`) */
  url(pluginId: string): string;
  /** the text between references */
  literal(text: string): string;
}

/** Replaces every reference of a `value` as `view` sees it; the loader has checked each. */
export function substituteRefs(value: string, plugins: PluginLookup, view: ValueView): string {
  let out = '';
  let last = 0;
  for (const match of value.matchAll(VALUE_REF)) {
    const [whole, target, variable, location, locationTarget, port] = match;
    out += view.literal(value.slice(last, match.index));
    if (location === 'host') out += view.host(locationTarget);
    else if (location === 'port') out += view.port(locationTarget, Number(port));
    else if (location === 'url') out += view.url(locationTarget);
    else out += view.variable(envKey(target, (plugins.get(target)?.manifest.environment ?? []).find((e) => e.name === variable)!));
    last = match.index! + whole.length;
  }
  return out + view.literal(value.slice(last));
}
