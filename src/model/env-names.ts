// The .env variables Stackwright keeps for each plugin, named from its id. A module of its own, below the
// stack model and the compose builders, so the socket proxy (which the resolver reads for memory) can
// name its variables without importing the model.
import { perString } from '../memo.js';

/** UPPER_SNAKE form of an id, for variable names: asked for the same plugin ids many times a render, each converted once. */
export const envPrefix = perString(10_000, (id) => id.toUpperCase().replace(/-/g, '_'));

/** The .env variable holding a plugin's image (image:tag), so one service can move without editing compose. */
export function imageVariable(pluginId: string): string {
  return `${envPrefix(pluginId)}_IMAGE`;
}

/** The .env variable holding a plugin's memory limit (e.g. 512m). */
export function memoryVariable(pluginId: string): string {
  return `${envPrefix(pluginId)}_MEMORY`;
}

/** The .env variable holding the host port a container port is published on. */
export function portVariable(pluginId: string, container: number, protocol: 'tcp' | 'udp'): string {
  return `${envPrefix(pluginId)}_PORT_${container}${protocol === 'udp' ? '_UDP' : ''}`;
}

/** The variable holding a service's address as a framework reaches it (skills use it). */
export function urlVariable(pluginId: string): string {
  return `${envPrefix(pluginId)}_URL`;
}
