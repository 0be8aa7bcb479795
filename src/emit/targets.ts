// What each deployment target cannot do with a selection, said before anything is rendered: validate and
// generate both ask here, so validate never accepts what generate refuses. Compose (docker, bare-metal)
// runs every plugin, and so does Swarm but for a GPU; Kubernetes has no Docker API and routes only through a Gateway API implementation
// that reads our basic-auth filter.
import type { ContainerPlugin } from '../catalogue/types.js';
import { ApiError } from '../errors.js';
import type { Resolution } from '../model/resolve.js';
import { GATEWAY_IMPLEMENTATIONS } from './kubernetes/gateway.js';

export type DeploymentType = 'docker' | 'bare-metal' | 'kubernetes' | 'swarm';

/** A plugin that drives the Docker engine (its API, or the socket mounted): a cluster has neither. */
function usesDocker(plugin: ContainerPlugin): boolean {
  return Boolean(plugin.manifest.dockerApi) || (plugin.manifest.hostMounts ?? []).some((h) => /docker\.sock$/.test(h.source));
}

/** One sentence per part of the selection the target cannot run, naming what works instead. */
export function targetProblems(resolution: Resolution, deployment: DeploymentType | undefined, gpu = false): string[] {
  if (deployment === 'swarm') return gpu ? ['gpu: deploymentType "swarm" cannot reserve a GPU for a service (Swarm offers GPUs only as generic resources each node declares by hand); use deploymentType "docker", or leave gpu out'] : [];
  if (deployment !== 'kubernetes') return [];
  const problems: string[] = [];
  const proxy = resolution.proxy;
  const working = Object.keys(GATEWAY_IMPLEMENTATIONS).map((id) => `"${id}"`).join(' or ');
  if (proxy && !GATEWAY_IMPLEMENTATIONS[proxy.id]) {
    problems.push(`proxy "${proxy.id}": deploymentType "kubernetes" routes through a Gateway API implementation with a basic-auth filter, and "${proxy.id}" has none here; use proxy ${working} (the Gateway API implementation k3s ships), or "none" and reach services with kubectl port-forward`);
  }
  for (const plugin of [resolution.primary, ...resolution.companions, ...resolution.services]) {
    if (usesDocker(plugin)) {
      problems.push(`"${plugin.id}" uses the Docker engine (its API or socket), which a Kubernetes cluster does not offer; leave it out or use deploymentType "docker"`);
    }
  }
  return problems;
}

/** 400 TARGET_UNSUPPORTED when the target cannot run the selection. */
export function checkTarget(resolution: Resolution, deployment: DeploymentType | undefined, gpu = false): void {
  const errors = targetProblems(resolution, deployment, gpu);
  if (errors.length) {
    throw new ApiError('TARGET_UNSUPPORTED', `deploymentType "${deployment}" cannot run this selection: ${errors.length === 1 ? 'one part needs' : `${errors.length} parts need`} another target or a change`, { details: { errors } });
  }
}
