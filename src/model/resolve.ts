// The resolver: from a request to the full, ordered set of what a stack holds. Pure (no I/O), shared by
// validate and generate so the two can never disagree. Every problem is collected, not just the first.
import { didYouMean } from '../catalogue/problems.js';
import { compareIds } from '../catalogue/snapshot.js';
import type { Catalogue, FrameworkPlugin, ProxyPlugin, ServicePlugin, SkillPackPlugin } from '../catalogue/types.js';
import type { Warning } from '../errors.js';
import { SOCKET_PROXY_MEMORY_MB } from './socket-proxy.js';

/** The request fields that decide what a stack holds (validate and generate share them). */
export interface SelectionRequest {
  preset?: string;
  services?: string[];
  skills?: string[];
  proxy?: string;
  primaryFramework?: string;
  companionFrameworks?: string[];
  gpu?: boolean;
  platform?: string;
  domain?: string;
}

export interface Resolution {
  /** messages for details.errors; when non-empty nothing else is meaningful */
  errors: string[];
  warnings: Warning[];
  /** conflicting pairs, each sorted, the list sorted */
  conflicts: [string, string][];
  primary: FrameworkPlugin;
  companions: FrameworkPlugin[];
  /** companion services in dependency order (each after what it requires) */
  services: ServicePlugin[];
  skillPacks: SkillPackPlugin[];
  proxy?: ProxyPlugin;
  /** framework ids and service ids, dependency first: frameworks' requirements, frameworks, then the rest */
  resolvedServices: string[];
  resolvedSkills: string[];
  /** what the stack needs: the sum of every part's own minimum (minMemoryMB), as the spec's estimate */
  estimatedMemoryMB: number;
  /** the worst case: the sum of the memory limits the compose file sets (memoryLimitMB) */
  memoryLimitMB: number;
}

export function resolve(catalogue: Catalogue, request: SelectionRequest): Resolution {
  const errors: string[] = [];
  const warnings: Warning[] = [];

  // preset first: it replaces services and skills (DECISIONS "preset plus services/skills")
  let serviceIds = request.services ?? [];
  let skillIds = request.skills ?? [];
  const ignoredByPreset: string[] = [];
  if (request.preset !== undefined) {
    const preset = catalogue.presets.get(request.preset);
    if (!preset) {
      errors.push(`unknown preset "${request.preset}"${didYouMean(request.preset, catalogue.presets.keys())}`);
    } else {
      if (request.services?.length) ignoredByPreset.push('services');
      if (request.skills?.length) ignoredByPreset.push('skills');
      if (ignoredByPreset.length) {
        warnings.push({ code: 'PRESET_OVERRIDES', message: `preset "${preset.id}" is used; the ${ignoredByPreset.join(' and ')} sent alongside it are ignored` });
      }
      serviceIds = preset.manifest.services;
      skillIds = preset.manifest.skills;
    }
  }

  const primaryId = request.primaryFramework ?? catalogue.defaultFramework;
  const primary = catalogue.frameworks.get(primaryId);
  if (!primary) errors.push(`unknown primaryFramework "${primaryId}"${didYouMean(primaryId, catalogue.frameworks.keys())}; one of: ${[...catalogue.frameworks.keys()].join(', ')}`);
  const companions: FrameworkPlugin[] = [];
  const seenCompanions = new Set<string>();
  for (const id of request.companionFrameworks ?? []) {
    const fw = catalogue.frameworks.get(id);
    if (!fw) errors.push(`unknown companion framework "${id}"${didYouMean(id, catalogue.frameworks.keys())}`);
    else if (id === primaryId) errors.push(`companion framework "${id}" is already the primary framework: remove it from companionFrameworks`);
    else if (seenCompanions.has(id)) errors.push(`companion framework "${id}" is listed twice`);
    else companions.push(fw);
    seenCompanions.add(id);
  }

  let proxy: ProxyPlugin | undefined;
  if (request.proxy !== undefined && request.proxy !== 'none') {
    proxy = catalogue.proxies.get(request.proxy);
    if (!proxy) errors.push(`unknown proxy "${request.proxy}"${didYouMean(request.proxy, catalogue.proxies.keys())}; one of: none, ${[...catalogue.proxies.keys()].join(', ')}`);
  }
  // a public domain over plain HTTP would carry logins and tokens in clear across the internet
  if (proxy && !proxy.manifest.automaticHttps && typeof request.domain === 'string' && request.domain !== 'localhost') {
    const secure = [...catalogue.proxies.values()].filter((p) => p.manifest.automaticHttps).map((p) => p.id);
    errors.push(`proxy "${proxy.id}" serves plain HTTP only, so it cannot put domain "${request.domain}" on the internet safely: use ${secure.join(' or ') || 'a proxy with automatic HTTPS'} for a domain, or leave domain out (the stack stays on this machine)`);
  }

  const requested: ServicePlugin[] = [];
  // forEach: a for-of over a Set of hundreds allocates at every step until the optimizing tier takes over
  new Set(serviceIds).forEach((id) => {
    const s = catalogue.services.get(id);
    if (s) requested.push(s);
    else if (catalogue.frameworks.has(id)) errors.push(`"${id}" is a framework, not a service: use primaryFramework or companionFrameworks`);
    else errors.push(`unknown service "${id}"${didYouMean(id, catalogue.services.keys())}`);
  });
  const skillPacks: SkillPackPlugin[] = [];
  for (const id of new Set(skillIds)) {
    const p = catalogue.skillPacks.get(id);
    if (p) skillPacks.push(p);
    else errors.push(`unknown skill pack "${id}"${didYouMean(id, catalogue.skillPacks.keys())}`);
  }

  // dependency order: what the frameworks need, then the requested services (sorted, so the order of
  // the request does not change the output), each after its own requirements
  const frameworks = primary ? [primary, ...companions] : companions;
  const ordered: ServicePlugin[] = [];
  const placed = new Set<string>();
  const place = (s: ServicePlugin) => {
    if (placed.has(s.id)) return;
    placed.add(s.id);
    s.manifest.requires?.forEach((dep) => place(catalogue.services.get(dep)!));
    ordered.push(s);
  };
  for (const fw of frameworks) for (const dep of fw.manifest.requires ?? []) place(catalogue.services.get(dep)!);
  const frameworkDepsCount = ordered.length;
  requested.sort((a, b) => compareIds(a.id, b.id)).forEach(place);

  for (const pack of skillPacks) {
    for (const need of pack.manifest.requiredServices) {
      if (!placed.has(need)) errors.push(`skill pack "${pack.id}" needs service "${need}": add it to services`);
    }
  }
  // a skill for an optional service the stack lacks is left out (issue 35: no OpenSearch recipe without OpenSearch)
  skillPacks.forEach((pack, i) => {
    const needs = pack.manifest.skillServices ?? {};
    const skills = pack.skills.filter((s) => (needs[s.id] ?? []).every((id) => placed.has(id)));
    if (skills.length < pack.skills.length) skillPacks[i] = Object.freeze({ ...pack, skills });
  });

  const conflicts = findConflicts(ordered);
  for (const [a, b] of conflicts) {
    warnings.push({ code: 'CONFLICT', message: `services "${a}" and "${b}" overlap in purpose; keep one (generate refuses this pair)` });
  }

  const containers = [...frameworks, ...ordered];
  if (request.gpu) {
    if (!ordered.some((s) => s.manifest.gpu === 'optional' || s.manifest.gpu === 'required')) {
      warnings.push({ code: 'GPU_UNUSED', message: 'gpu is true but no selected service can use a GPU; the stack runs on CPU' });
    }
  } else {
    for (const s of ordered) {
      if (s.manifest.gpu === 'required') warnings.push({ code: 'GPU_REQUIRED', message: `service "${s.id}" needs a GPU: send "gpu": true and run on a host with an NVIDIA GPU` });
    }
  }
  if (request.platform) {
    for (const c of [...containers, ...(proxy ? [proxy] : [])]) {
      if (!(c.manifest.platforms as string[]).includes(request.platform)) {
        warnings.push({ code: 'PLATFORM_UNSUPPORTED', message: `${c.manifest.image}:${c.manifest.imageTag} ("${c.id}") is published for ${c.manifest.platforms.join(', ')}, not ${request.platform}: it will run under emulation or not at all` });
      }
    }
  }

  const resolvedServices = [
    ...ordered.slice(0, frameworkDepsCount).map((s) => s.id),
    ...frameworks.map((f) => f.id),
    ...ordered.slice(frameworkDepsCount).map((s) => s.id),
  ];
  // two figures a person can tell apart: what the parts need (their minimums: the estimate the spec
  // names) and what they may take at most (the limits the compose file sets). The socket proxy has no
  // manifest; its small limit counts in both.
  const parts = [...containers, ...(proxy ? [proxy] : [])];
  const socketProxy = containers.some((c) => c.manifest.dockerApi) ? SOCKET_PROXY_MEMORY_MB : 0;
  const estimatedMemoryMB = parts.reduce((sum, c) => sum + c.manifest.minMemoryMB, 0) + socketProxy;
  const memoryLimitMB = parts.reduce((sum, c) => sum + c.manifest.memoryLimitMB, 0) + socketProxy;

  return {
    errors,
    warnings,
    conflicts,
    primary: primary!,
    companions,
    services: ordered,
    skillPacks,
    proxy,
    resolvedServices,
    resolvedSkills: skillPacks.map((p) => p.id),
    estimatedMemoryMB,
    memoryLimitMB,
  };
}

function findConflicts(services: ServicePlugin[]): [string, string][] {
  const ids = new Set(services.map((s) => s.id));
  const pairs = new Map<string, [string, string]>();
  for (let i = 0; i < services.length; i++) {
    const s = services[i];
    if (!s.manifest.conflictsWith) continue;
    for (const other of s.manifest.conflictsWith) {
      if (!ids.has(other)) continue;
      const pair = [s.id, other].sort() as [string, string];
      pairs.set(pair.join('\0'), pair);
    }
  }
  return [...pairs.values()].sort((a, b) => a.join().localeCompare(b.join()));
}
