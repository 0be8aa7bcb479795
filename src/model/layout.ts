// Where things sit in a stack, the same for every deployment target and for the bundle's scripts: the
// files a plugin's templates become, its volumes' names and a database server's setup container.
import type { ContainerPlugin, ProxyPlugin } from '../catalogue/types.js';
import { perObject } from '../memo.js';

/** Compose name of the one-shot container that creates the consumers' databases on a server. */
export function setupServiceName(serverId: string): string {
  return `${serverId}-setup`;
}

export function volumeName(pluginId: string, volume: string): string {
  return `${pluginId}-${volume}`;
}

/** The names of a plugin's volumes, in its manifest's order (read off the manifest once: every target and script lists them). */
export const volumeNames = perObject((plugin: ContainerPlugin): readonly string[] =>
  Object.freeze((plugin.manifest.volumes ?? []).map((v) => volumeName(plugin.id, v.name))));

export function serviceFilePath(pluginId: string, template: string): string {
  return `config/${pluginId}/${template.replace(/\.eta$/, '')}`;
}

export function proxyFilePath(proxy: ProxyPlugin, file: string): string {
  return `${proxy.manifest.configDir.path}/${file}`;
}

export function frameworkConfigPath(frameworkId: string): string {
  return `configs/${frameworkId}/config.yaml`;
}
