// From a resolution and the request's options to the stack model: where each plugin runs, the .env
// variables, host ports (clashes moved, DECISIONS "Host-port clashes") and the proxy's routes.
import type { ContainerPlugin, ProxyPlugin } from '../catalogue/types.js';
import type { Resolution } from './resolve.js';
import {
  BIND_VARIABLE, envKey, portVariable, type EnvVar, type PublishedPort, type Route, type StackMember, type StackModel, type StackOptions,
} from './model.js';

export function buildModel(resolution: Resolution, options: StackOptions): StackModel {
  const members = placeMembers(resolution, options);
  const { ports, portMoves } = allocatePorts(members);
  const env = collectEnv(members, ports, options);
  const routes = resolution.proxy ? buildRoutes(members, options, resolution.proxy) : [];
  return {
    options,
    resolution,
    members,
    plugins: new Map(members.map((m) => [m.plugin.id, m.plugin])),
    env,
    ports,
    routes,
    portMoves,
  };
}

function placeMembers(resolution: Resolution, options: StackOptions): StackMember[] {
  const bareMetal = options.deployment === 'bare-metal';
  const place = (plugin: ContainerPlugin): StackMember['placement'] =>
    bareMetal && plugin.kind !== 'proxy' && plugin.manifest.native ? 'native' : 'container';
  const frameworkDeps = new Set(resolution.resolvedServices.slice(0, resolution.resolvedServices.indexOf(resolution.primary.id)));
  const members: StackMember[] = [];
  for (const s of resolution.services) if (frameworkDeps.has(s.id)) members.push({ plugin: s, placement: place(s) });
  members.push({ plugin: resolution.primary, placement: place(resolution.primary), role: 'primary' });
  for (const c of resolution.companions) members.push({ plugin: c, placement: place(c), role: 'companion' });
  for (const s of resolution.services) if (!frameworkDeps.has(s.id)) members.push({ plugin: s, placement: place(s) });
  if (resolution.proxy) members.push({ plugin: resolution.proxy, placement: 'container' });
  return members;
}

/**
 * Host ports in member order; a port already taken moves the later plugin to the next free one.
 * Native plugins bind their own ports on the host, so those are reserved first and never moved.
 */
function allocatePorts(members: StackMember[]) {
  const taken = new Set<string>();
  const ports: PublishedPort[] = [];
  const portMoves: StackModel['portMoves'] = [];
  for (const m of members) {
    if (m.placement !== 'native') continue;
    for (const p of m.plugin.manifest.ports ?? []) taken.add(`${p.protocol ?? 'tcp'}:${p.container}`);
  }
  for (const m of members) {
    if (m.placement === 'native') continue;
    for (const p of m.plugin.manifest.ports ?? []) {
      if (p.host === undefined) continue;
      const protocol = p.protocol ?? 'tcp';
      let host = p.host;
      while (taken.has(`${protocol}:${host}`) && host < 65535) host++;
      taken.add(`${protocol}:${host}`);
      if (host !== p.host) portMoves.push({ plugin: m.plugin.id, container: p.container, from: p.host, to: host });
      ports.push({
        plugin: m.plugin.id, container: p.container, protocol, variable: portVariable(m.plugin.id, p.container, protocol),
        host, web: p.web ?? false, description: p.description, proxy: m.plugin.kind === 'proxy',
      });
    }
  }
  return { ports, portMoves };
}

function collectEnv(members: StackMember[], ports: PublishedPort[], options: StackOptions): EnvVar[] {
  const vars: EnvVar[] = [{
    key: 'COMPOSE_PROJECT_NAME', description: 'Compose project name: prefixes container and volume names',
    example: options.name, required: true, group: '',
  }];
  const seen = new Set(['COMPOSE_PROJECT_NAME']);
  for (const m of members) {
    for (const spec of m.plugin.manifest.environment ?? []) {
      if (spec.value !== undefined) continue;
      const key = envKey(m.plugin.id, spec);
      if (seen.has(key)) continue;
      seen.add(key);
      const secret = spec.secret === undefined ? undefined
        : { length: (spec.secret === true ? undefined : spec.secret.length) ?? 32, charset: (spec.secret === true ? undefined : spec.secret.charset) ?? 'alnum' };
      vars.push({
        key, description: spec.description, example: spec.default ?? '', secret,
        required: Boolean(spec.required || secret), group: spec.shared ? '' : m.plugin.id,
      });
    }
  }
  if (ports.some((p) => !p.proxy)) {
    vars.push({
      key: BIND_VARIABLE, example: '127.0.0.1', required: false, group: '',
      description: 'Address the services\' host ports listen on: 127.0.0.1 keeps them on this machine (the proxy, if any, is the way in from outside); 0.0.0.0 opens them to the network',
    });
  }
  for (const p of ports) {
    vars.push({ key: p.variable, description: `Host port for ${p.description}`, example: String(p.host), required: false, group: p.plugin });
  }
  return vars;
}

function buildRoutes(members: StackMember[], options: StackOptions, proxy: ProxyPlugin): Route[] {
  const https = Boolean(proxy.manifest.automaticHttps) && options.domain !== undefined && options.domain !== 'localhost';
  const routes: Route[] = [];
  for (const m of members) {
    if (m.plugin.kind === 'proxy') continue;
    const webPorts = (m.plugin.manifest.ports ?? []).filter((p) => p.web);
    webPorts.forEach((p, i) => {
      const name = i === 0 ? m.plugin.id : `${m.plugin.id}-${p.container}`;
      const upstreamHost = m.placement === 'native' ? 'host.docker.internal' : m.plugin.id;
      const host = options.domain ? `${name}.${options.domain}` : null;
      const scheme = https ? 'https' : 'http';
      routes.push({
        service: m.plugin.id,
        port: p.container,
        host,
        path: `/${name}`,
        upstream: `${upstreamHost}:${p.container}`,
        url: host ? `${scheme}://${host}/` : `http://localhost/${name}/`,
      });
    });
  }
  return routes;
}
