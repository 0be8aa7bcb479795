// Catalogue entries as the API shows them: exactly the fields of the spec's tables (section 2).
import type { Catalogue, FrameworkPlugin, PresetPlugin, ProxyPlugin, ServicePlugin, SkillPackPlugin } from '../catalogue/types.js';
import type { ContainerManifest } from '../catalogue/types.js';
import { resolve } from '../model/resolve.js';

/** The spec's `ports`: the ports a plugin publishes on the host by default. */
function publishedPorts(m: ContainerManifest): { host: number; container: number }[] {
  return (m.ports ?? []).filter((p) => p.host !== undefined).map((p) => ({ host: p.host!, container: p.container }));
}

export function serviceView(catalogue: Catalogue, s: ServicePlugin) {
  const m = s.manifest;
  return {
    id: s.id,
    name: m.name,
    description: m.description,
    category: m.category,
    image: m.image,
    imageTag: m.imageTag,
    maturity: m.maturity,
    ports: publishedPorts(m),
    requires: [...(m.requires ?? [])],
    conflictsWith: conflictsOf(catalogue, s),
    minMemoryMB: m.minMemoryMB,
    tags: [...(m.tags ?? [])],
  };
}

/** Conflicts hold in both directions, whichever manifest declared them. */
function conflictsOf(catalogue: Catalogue, s: ServicePlugin): string[] {
  const out = new Set(s.manifest.conflictsWith ?? []);
  for (const other of catalogue.services.values()) if (other.manifest.conflictsWith?.includes(s.id)) out.add(other.id);
  return [...out].sort();
}

export function skillPackView(p: SkillPackPlugin) {
  return {
    id: p.id,
    name: p.manifest.name,
    description: p.manifest.description,
    requiredServices: [...p.manifest.requiredServices],
    optionalServices: [...(p.manifest.optionalServices ?? [])],
    skills: [...p.manifest.skills],
  };
}

export function presetListView(p: PresetPlugin) {
  return { id: p.id, name: p.manifest.name, description: p.manifest.description, services: [...p.manifest.services], skills: [...p.manifest.skills] };
}

export function presetDetailView(catalogue: Catalogue, p: PresetPlugin) {
  const resolution = resolve(catalogue, { preset: p.id });
  return {
    id: p.id,
    name: p.manifest.name,
    description: p.manifest.description,
    services: p.manifest.services.map((id) => {
      const s = catalogue.services.get(id)!;
      return { id, name: s.manifest.name, category: s.manifest.category };
    }),
    skills: p.manifest.skills.map((id) => {
      const pack = catalogue.skillPacks.get(id)!;
      return { id, name: pack.manifest.name, skillCount: pack.manifest.skills.length };
    }),
    estimatedMemoryMB: resolution.estimatedMemoryMB,
    memoryLimitMB: resolution.memoryLimitMB,
  };
}

export function frameworkView(catalogue: Catalogue, f: FrameworkPlugin) {
  const m = f.manifest;
  return {
    id: f.id,
    name: m.name,
    description: m.description,
    runtime: m.runtime,
    default: f.id === catalogue.defaultFramework,
    interactive: m.interactive !== undefined,
    image: m.image,
    imageTag: m.imageTag,
    ports: publishedPorts(m),
    requires: [...(m.requires ?? [])],
    minMemoryMB: m.minMemoryMB,
  };
}

export function proxyView(p: ProxyPlugin) {
  return { id: p.id, name: p.manifest.name, description: p.manifest.description, image: p.manifest.image, imageTag: p.manifest.imageTag };
}
