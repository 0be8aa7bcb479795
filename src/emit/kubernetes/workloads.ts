// The workloads of a stack on Kubernetes: per container member a Deployment (a StatefulSet with
// volumeClaimTemplates for a database) and its Service, per database server with consumers a setup Job.
import type { ContainerPlugin, ServicePlugin } from '../../catalogue/types.js';
import { setupServiceName, volumeName } from '../../model/layout.js';
import { HELPER_IMAGE } from '../../model/helper-image.js';
import { shellQuote } from '../escape.js';
import { databasesOf, imageRef, type StackMember, type StackModel } from '../../model/model.js';
import { containerEnvironment, envKeysOf, setupEnvironment, type ContainerVariable } from '../container-env.js';
import {
  containerSecurity, envEntries, filesConfigMap, HELPER_SECURITY, k8sLiteral, labels, podUser, podVolumes, probes, seconds, secretName, selector,
  type Obj, type PodSecurity,
} from './pods.js';

/** A member's objects, the .env keys its Secret holds, how its pod stands against Pod Security. */
export interface Workload {
  id: string;
  objects: Obj[];
  secretKeys: string[];
  security: PodSecurity;
  /** claims and the size each starts with: [replacement key, kind, object name, claim template or null] */
  claims: { key: string; kind: 'PersistentVolumeClaim' | 'StatefulSet'; object: string; template: number | null }[];
}

/** Claims a member starts with unless the kustomization's storage sizes say otherwise. */
export const DEFAULT_CLAIM_SIZE = '5Gi';
export const DATABASE_CLAIM_SIZE = '10Gi';

/** A database keeps its claims with its pod (a StatefulSet), the rest are Deployments. */
export function isDatabase(plugin: ContainerPlugin): boolean {
  return plugin.kind === 'service' && Boolean((plugin as ServicePlugin).manifest.databaseServer || (plugin as ServicePlugin).manifest.backup);
}

/** The dependencies a member waits for before it starts: what it requires, and the servers of its databases. */
export function waitsFor(model: StackModel, plugin: ContainerPlugin): { id: string; port: number }[] {
  const ids = new Set([...(plugin.manifest.requires ?? []), ...databasesOf(model, plugin.id).map((d) => d.server)]);
  return [...ids].flatMap((id) => {
    const dep = model.plugins.get(id);
    const port = dep?.manifest.ports?.[0]?.container;
    return dep && port !== undefined ? [{ id, port }] : [];
  });
}

/**
 * Init containers that wait until each dependency's Service answers on its port: a Service has endpoints
 * only while its pod is ready, so this is Compose's service_healthy. No API token is mounted for them.
 */
function waitContainers(deps: { id: string; port: number }[]): Obj[] {
  return deps.map(({ id, port }) => ({
    name: `wait-for-${id}`,
    image: HELPER_IMAGE,
    command: ['sh', '-c', k8sLiteral(`until nc -z -w 2 ${id} ${port}; do echo "waiting for ${id}:${port}"; sleep 2; done`)],
    resources: { requests: { memory: '16Mi' }, limits: { memory: '16Mi' } },
    securityContext: HELPER_SECURITY,
  }));
}

/** Where a seed container mounts the claim it fills (the image's own folder stays where the image has it). */
export const SEED_MOUNT = '/stackwright-seed';
/** Left in a seeded claim once it holds the image's files: the next start copies nothing again. */
export const SEED_MARKER = '.stackwright-seeded';

/**
 * Init containers that fill each seeded claim (a folder whose image files the program needs) from the image once:
 * Docker does that for a new named volume, a claim starts empty. The member's own image and security context; the
 * marker is written after the copy, so a copy that fails leaves no marker, fails the pod start and runs again. Its
 * root filesystem is read-only, as every init container's: it writes only into the claim.
 */
function seedContainers(model: StackModel, plugin: ContainerPlugin, context: Obj): Obj[] {
  return (plugin.manifest.volumes ?? []).filter((v) => v.seed).map((v) => ({
    name: `seed-${v.name}`,
    image: imageRef(plugin, model.options.gpu),
    command: ['sh', '-c', k8sLiteral(`set -e; if [ ! -e ${SEED_MOUNT}/${SEED_MARKER} ]; then cp -R ${shellQuote(`${v.target}/.`)} ${SEED_MOUNT}/; : > ${SEED_MOUNT}/${SEED_MARKER}; echo ${shellQuote(`filled the claim of ${v.target} from the image`)}; fi`)],
    resources: { requests: { memory: '32Mi' }, limits: { memory: '64Mi' } },
    securityContext: { ...context, readOnlyRootFilesystem: true },
    volumeMounts: [{ name: claimVolume(plugin, v.name), mountPath: SEED_MOUNT }],
  }));
}

/** The pod's name for a member volume's claim: its claim template's name in a database's StatefulSet, else the claim's. */
function claimVolume(plugin: ContainerPlugin, volume: string): string {
  return isDatabase(plugin) ? volume : volumeName(plugin.id, volume);
}

function podSecurityContext(plugin: ContainerPlugin): Obj {
  return { seccompProfile: { type: 'RuntimeDefault' }, ...claimGroup(plugin) };
}

/**
 * The group that owns a pod's claims. A claim starts as a root-owned empty folder, where Docker fills a new volume
 * from the image's folder, owner included: a process that starts as another user could not write its volumes. The
 * kubelet gives the claims to fsGroup and adds that group to every container's process: the user's own group, or
 * its uid where that group is root's (an image whose user is uid:0, Grafana's 472:0). OnRootMismatch: only a claim
 * whose top folder is not the group's yet is walked; the default walks every file at every mount, adding group
 * write, which PostgreSQL refuses on its data folder after a restart, and takes long on a large volume.
 */
function claimGroup(plugin: ContainerPlugin): Obj {
  const user = podUser(plugin.manifest);
  if (!user || user.uid === 0) return {};
  return { fsGroup: user.gid !== undefined && user.gid !== 0 ? user.gid : user.uid, fsGroupChangePolicy: 'OnRootMismatch' };
}

/** The data folder named by a volume's subfolderVariable, one level inside the claim. */
export const CLAIM_SUBFOLDER = 'pgdata';

/**
 * A claim starts as a root-owned mount point (with lost+found on most block storage), which a program that must
 * create and own its data folder refuses (PostgreSQL's initdb: hub.docker.com/_/postgres "PGDATA" asks for a
 * subdirectory of such a mount); its variable then points one folder down, which the program makes itself.
 */
function subfolderEnv(plugin: ContainerPlugin): Obj[] {
  return (plugin.manifest.volumes ?? []).filter((v) => v.subfolderVariable).map((v) => ({ name: v.subfolderVariable!, value: k8sLiteral(`${v.target}/${CLAIM_SUBFOLDER}`) }));
}

function container(model: StackModel, plugin: ContainerPlugin, env: ContainerVariable[], mounts: Obj[], context: Obj): Obj {
  const m = plugin.manifest;
  const gpu = model.options.gpu && plugin.kind === 'service' && ((plugin as ServicePlugin).manifest.gpu === 'optional' || (plugin as ServicePlugin).manifest.gpu === 'required');
  const out: Obj = { name: plugin.id, image: imageRef(plugin, model.options.gpu) };
  const list = (v: string | string[]) => (Array.isArray(v) ? v : ['sh', '-c', v]).map(k8sLiteral);
  // Compose's entrypoint is Kubernetes' command, Compose's command its args
  if (m.entrypoint !== undefined) out.command = list(m.entrypoint);
  if (m.command !== undefined) out.args = list(m.command);
  const entries = [...envEntries(env, secretName(plugin.id)), ...subfolderEnv(plugin)];
  if (entries.length) out.env = entries;
  if (m.ports?.length) out.ports = m.ports.map((p) => ({ name: portName(p.container, p.protocol ?? 'tcp'), containerPort: p.container, protocol: (p.protocol ?? 'tcp').toUpperCase() }));
  out.resources = {
    requests: { memory: `${m.minMemoryMB}Mi` },
    limits: { memory: `${m.memoryLimitMB}Mi`, ...(gpu ? { 'nvidia.com/gpu': 1 } : {}) },
  };
  Object.assign(out, probes(m.healthcheck));
  out.securityContext = context;
  if (mounts.length) out.volumeMounts = mounts;
  if (plugin.kind === 'framework' && plugin.manifest.interactive) {
    out.stdin = true;
    out.tty = true;
  }
  return out;
}

export function portName(port: number, protocol: string): string {
  return `${protocol}-${port}`;
}

export function workload(model: StackModel, member: StackMember, skillFiles: readonly string[]): Workload {
  const plugin = member.plugin;
  const m = plugin.manifest;
  const stack = model.options.name;
  const env = containerEnvironment(model, member);
  const { context, security } = containerSecurity(plugin, model.options.hardened);
  const { volumes, mounts } = podVolumes(plugin, skillFiles);
  const database = isDatabase(plugin);
  const claims: Workload['claims'] = [];
  const objects: Obj[] = [];
  const templates: Obj[] = [];
  for (const v of m.volumes ?? []) {
    const name = volumeName(plugin.id, v.name);
    const spec = { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: database ? DATABASE_CLAIM_SIZE : DEFAULT_CLAIM_SIZE } } };
    mounts.unshift({ name: claimVolume(plugin, v.name), mountPath: v.target });
    if (database) {
      templates.push({ metadata: { name: v.name, labels: labels(stack, plugin.id) }, spec });
      claims.push({ key: name, kind: 'StatefulSet', object: plugin.id, template: templates.length - 1 });
    } else {
      volumes.unshift({ name, persistentVolumeClaim: { claimName: name } });
      objects.push({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, labels: labels(stack, plugin.id), annotations: { 'stackwright.dev/volume': v.description } }, spec });
      claims.push({ key: name, kind: 'PersistentVolumeClaim', object: name, template: null });
    }
  }
  const pod: Obj = {
    automountServiceAccountToken: false,
    // Service links would put every Service's address in each container's environment
    enableServiceLinks: false,
    securityContext: podSecurityContext(plugin),
    ...(m.stop ? { terminationGracePeriodSeconds: seconds(m.stop.gracePeriod) } : {}),
    ...(model.options.platform ? { nodeSelector: { 'kubernetes.io/arch': model.options.platform.replace(/^linux\//, '') } } : {}),
  };
  const init = [...seedContainers(model, plugin, context), ...waitContainers(waitsFor(model, plugin))];
  if (init.length) pod.initContainers = init;
  pod.containers = [container(model, plugin, env, mounts, context)];
  if (volumes.length) pod.volumes = volumes;
  const template = { metadata: { labels: labels(stack, plugin.id) }, spec: pod };
  const meta = { name: plugin.id, labels: labels(stack, plugin.id) };
  if (database) {
    objects.unshift({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta,
      spec: { serviceName: plugin.id, replicas: 1, selector: { matchLabels: selector(plugin.id) }, template, ...(templates.length ? { volumeClaimTemplates: templates } : {}) },
    });
  } else {
    objects.unshift({
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta,
      // one pod at a time where a ReadWriteOnce claim is mounted: a rolling update would wait for it forever
      spec: { replicas: 1, selector: { matchLabels: selector(plugin.id) }, strategy: { type: (m.volumes ?? []).length ? 'Recreate' : 'RollingUpdate' }, template },
    });
  }
  if (m.ports?.length) {
    objects.push({
      apiVersion: 'v1', kind: 'Service', metadata: meta,
      spec: { selector: selector(plugin.id), ports: m.ports.map((p) => ({ name: portName(p.container, p.protocol ?? 'tcp'), port: p.container, targetPort: p.container, protocol: (p.protocol ?? 'tcp').toUpperCase() })) },
    });
  }
  return { id: plugin.id, objects, secretKeys: envKeysOf(env), security, claims };
}

/** The ConfigMap key and bundle path of a server's setup script. */
export function setupScript(server: ServicePlugin): string {
  return server.manifest.databaseServer!.setup.replace(/\.eta$/, '');
}

/**
 * A database server's setup as a Job: the server's image and hardening, emptyDir where the image
 * declares its data VOLUMEs (as Compose's tmpfs), after the server answers. It is removed a while after
 * it finished, so the next `kubectl apply -k` runs it again (idempotent), as `docker compose up` does.
 */
export function setupJob(model: StackModel, server: ServicePlugin): Workload {
  const id = setupServiceName(server.id);
  const stack = model.options.name;
  const env = setupEnvironment(model, server);
  const { context, security } = containerSecurity(server, model.options.hardened);
  const script = setupScript(server);
  const scratch = (server.manifest.volumes ?? []).map((v, i) => ({ name: `scratch-${i}`, target: v.target }));
  const pod: Obj = {
    automountServiceAccountToken: false,
    enableServiceLinks: false,
    restartPolicy: 'OnFailure',
    securityContext: podSecurityContext(server),
    initContainers: waitContainers([{ id: server.id, port: server.manifest.databaseServer!.port }]),
    containers: [{
      name: 'setup',
      image: imageRef(server, false),
      command: ['sh', `/setup/${script}`],
      env: envEntries(env, secretName(id)),
      resources: { requests: { memory: '64Mi' }, limits: { memory: '128Mi' } },
      securityContext: context,
      volumeMounts: [{ name: 'setup', mountPath: `/setup/${script}`, subPath: script, readOnly: true }, ...scratch.map((s) => ({ name: s.name, mountPath: s.target }))],
    }],
    volumes: [{ name: 'setup', configMap: { name: filesConfigMap(id) } }, ...scratch.map((s) => ({ name: s.name, emptyDir: {} }))],
  };
  return {
    id,
    objects: [{
      apiVersion: 'batch/v1', kind: 'Job', metadata: { name: id, labels: labels(stack, id) },
      spec: { backoffLimit: 10, ttlSecondsAfterFinished: 300, template: { metadata: { labels: labels(stack, id) }, spec: pod } },
    }],
    secretKeys: envKeysOf(env),
    security,
    claims: [],
  };
}
