// The environment of a natively installed part (bare-metal), built once and written twice: as bash
// for native/<id>.sh (Linux, macOS) and as PowerShell for install.ps1 (Windows). Values are parts:
// fixed text, or a .env variable read at install time (with the default the generator knows).
import { addressOf } from '../../model/addresses.js';
import type { ServicePlugin } from '../../catalogue/types.js';
import { databaseUrl, substituteRefs, type ValueView } from '../../model/values.js';
import { psQuote, shellQuote } from '../escape.js';
import { databasesOf, envApplies, envKey, frameworkCredentials, NATIVE_BIND_VARIABLE, type StackMember, type StackModel } from '../../model/model.js';
import { urlVariable } from '../../model/env-names.js';
import { modelServerEnv } from '../../model/model-servers.js';

export type ValuePart = { text: string } | { variable: string; fallback?: string };
export interface NativeVariable { name: string; parts: ValuePart[] }

// substituteRefs builds strings: variable parts travel inside them between these two marks
const OPEN = '\u0001';
const CLOSE = '\u0002';
export const mark = (variable: string, fallback?: string) => `${OPEN}${variable}${fallback === undefined ? '' : `\u0003${fallback}`}${CLOSE}`;

export function toParts(value: string): ValuePart[] {
  const parts: ValuePart[] = [];
  for (const piece of value.split(new RegExp(`(${OPEN}[^${CLOSE}]*${CLOSE})`))) {
    if (!piece) continue;
    if (piece.startsWith(OPEN)) {
      const [variable, fallback] = piece.slice(1, -1).split('\u0003');
      parts.push(fallback === undefined ? { variable } : { variable, fallback });
    } else {
      parts.push({ text: piece });
    }
  }
  return parts;
}

export function nativeEnvironment(model: StackModel, member: StackMember): NativeVariable[] {
  const plugin = member.plugin;
  // a native process reaches everything through the host: containers on their published ports (on
  // loopback), other natives on their own ports at STACK_NATIVE_BIND, where they listen (on Linux the
  // Docker bridge gateway, which install.sh writes to .env before any native part is installed)
  const published = new Map(model.ports.map((p) => [`${p.plugin}:${p.container}`, p]));
  const natives = new Set(model.members.filter((m) => m.placement === 'native').map((m) => m.plugin.id));
  const hostOf = (id: string) => (natives.has(id) ? mark(NATIVE_BIND_VARIABLE, '127.0.0.1') : '127.0.0.1');
  const hostView: ValueView = {
    variable: (key) => mark(key),
    host: hostOf,
    port: (id, containerPort) => {
      const p = published.get(`${id}:${containerPort}`);
      return p ? mark(p.variable, String(p.host)) : String(containerPort);
    },
    url: (id) => model.publicUrls.get(id) ?? '',
    literal: (text) => text,
  };
  const env: NativeVariable[] = (plugin.manifest.environment ?? []).filter((spec) => envApplies(spec, model.plugins)).map((spec) => ({
    name: spec.name,
    parts: toParts(spec.value !== undefined ? substituteRefs(spec.value, model.plugins, hostView) : mark(envKey(plugin.id, spec))),
  }));
  if (plugin.kind === 'framework') {
    // the same wiring a framework container gets: where each service is, and the client credentials
    // of the services its skill packs call (nothing else)
    const taken = new Set(env.map((e) => e.name));
    const add = (name: string, parts: ValuePart[]) => {
      if (taken.has(name)) return;
      taken.add(name);
      env.push({ name, parts });
    };
    for (const m of model.members) {
      if (m.plugin.kind !== 'service') continue;
      const address = addressOf(model, m, 'native');
      if (!address.url) continue;
      // a published port is read from .env at install time, since the user may have moved it
      const p = published.get(`${m.plugin.id}:${address.mainPort}`);
      if (p) add(urlVariable(m.plugin.id), [{ text: 'http://127.0.0.1:' }, { variable: p.variable, fallback: String(p.host) }]);
      else if (natives.has(m.plugin.id)) add(urlVariable(m.plugin.id), [{ text: 'http://' }, ...toParts(hostOf(m.plugin.id)), { text: `:${address.mainPort}` }]);
      else add(urlVariable(m.plugin.id), [{ text: address.url }]);
    }
    for (const db of databasesOf(model, plugin.id).filter((d) => d.urlVariable)) {
      const server = (model.plugins.get(db.server) as ServicePlugin).manifest.databaseServer!;
      const p = published.get(`${db.server}:${server.port}`);
      const url = databaseUrl(model, db, {
        host: hostOf(db.server),
        port: p ? mark(p.variable, String(p.host)) : String(server.port),
        password: mark(db.passwordVariable),
        escape: (text) => text,
      });
      add(db.urlVariable!, toParts(url));
    }
    for (const { key } of frameworkCredentials(model)) add(key, [{ variable: key }]);
    // the model servers it is wired to: their model, their key (this framework only), the choice among several
    for (const v of modelServerEnv(model, member)) add(v.name, [v.fallback === undefined ? { variable: v.variable } : { variable: v.variable, fallback: v.fallback }]);
  }
  env.push({ name: NATIVE_BIND_VARIABLE, parts: [{ variable: NATIVE_BIND_VARIABLE, fallback: '127.0.0.1' }] });
  return env;
}


/** A bash word: fixed text quoted, .env values read with lib.sh's env_value. */
export function bashValue(parts: ValuePart[]): string {
  const word = parts.map((p) => ('text' in p ? shellQuote(p.text) : `"$(env_value ${p.variable}${p.fallback === undefined ? '' : ` ${shellQuote(p.fallback)}`})"`)).join('');
  return word || "''";
}

/** A PowerShell expression: fixed text quoted, .env values from install.ps1's $dotenv table. */
export function psValue(parts: ValuePart[]): string {
  if (!parts.length) return "''";
  return `(${parts.map((p) => ('text' in p ? psQuote(p.text) : `(Get-DotEnv ${psQuote(p.variable)} ${psQuote(p.fallback ?? '')})`)).join(' + ')})`;
}
