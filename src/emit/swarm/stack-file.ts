// The Swarm stack file (`docker stack deploy -c stack.yml`), built as objects from the one model. Each
// service starts from the Compose emitter's definition of it (composeDocument: the same images, variables,
// mounts, health checks and hardening, so the targets cannot drift) and is then turned into what Swarm runs
// (docs/decisions.md "Swarm"):
//   restart → deploy.restart_policy; mem_limit and pids_limit → deploy.resources.limits;
//   depends_on conditions → nothing (Swarm has no start order: health checks and restart policies instead);
//   tmpfs and shm_size → tmpfs mounts in the long volume syntax (Swarm silently drops service-level tmpfs);
//   one-shot setup containers → replicated-job services, retried until they succeed;
//   security_opt → left out (Swarm ignores it: no-new-privileges is lost, the README says so);
//   ports → only the public ones (the proxy's, with a domain), published in host mode so the proxy sees the
//   client's address; Swarm cannot bind a port to one address, so nothing else is published.
//   secrets → Swarm secrets where the program reads a file or the command is ours (secrets.ts), else values.
// Every ${VAR} stays a reference: scripts/deploy.sh gives `docker stack deploy` the values of .env, and the names
// of the Swarm secrets it made from them.
import { composeDocument, NETWORK } from '../compose/compose.js';
import { dumpYaml } from '../yaml-dump.js';
import { setupServiceName } from '../../model/layout.js';
import { SOCKET_PROXY_NETWORK } from '../../model/socket-proxy.js';
import { portsOf, type StackModel } from '../../model/model.js';
import type { ServicePlugin } from '../../catalogue/types.js';
import { secretNameVariable, secretPlan, SECRETS_DIR, sensitiveKeys, wrapperScript, type SecretPlan } from './secrets.js';

export const STACK_FILE = 'stack.yml';

type Obj = Record<string, unknown>;

/** Compose keys Swarm has its own form for (or none): each is replaced below, never passed on. */
const COMPOSE_ONLY = ['restart', 'depends_on', 'security_opt', 'mem_limit', 'pids_limit', 'shm_size', 'tmpfs', 'platform', 'ports', 'deploy'] as const;

/** A restart that waits a little, so a service whose dependency is not up yet does not spin. */
const RESTART_ALWAYS = { condition: 'any', delay: '5s' };
/** A setup job tries again until its database server answers: 60 attempts 5 s apart. */
const RESTART_SETUP = { condition: 'on-failure', delay: '5s', max_attempts: 60 };
/**
 * One task at a time, the old one stopped first (two tasks must not share a data volume); an update whose
 * task fails or turns unhealthy within the monitor window is rolled back by Swarm itself.
 */
const UPDATE = { parallelism: 1, order: 'stop-first', failure_action: 'rollback', monitor: '30s' };
const ROLLBACK = { parallelism: 1, order: 'stop-first', failure_action: 'pause' };

/** The node label that places a stack's services with data (volumes, bundle files) on one node. */
export function dataLabel(stackName: string): string {
  return `stackwright.${stackName}`;
}

/** Docker's "2gb", "512m" as bytes (tmpfs mounts take a size in bytes). */
export function sizeBytes(size: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([kmgt]?)b?$/i.exec(size.trim());
  if (!m) throw new Error(`not a size: ${size}`);
  const power = { '': 0, k: 1, m: 2, g: 3, t: 4 }[m[2].toLowerCase() as '' | 'k' | 'm' | 'g' | 't'];
  return Math.round(Number(m[1]) * 1024 ** power);
}

/** The architecture a node reports (node.platform.arch) for a Docker platform's. */
const NODE_ARCH: Record<string, string> = { amd64: 'x86_64', arm64: 'aarch64', arm: 'armv7l' };

/** The stack file as plain objects, and how each service gets its secrets (the README lists what stays a value). */
export function swarmDocument(model: StackModel): { document: Obj; plans: Map<string, SecretPlan> } {
  const compose = composeDocument(model) as { services: Record<string, Obj>; volumes?: Obj; networks: Record<string, Obj> };
  const setups = new Map([...new Set(model.databases.map((d) => d.server))].map((s) => [setupServiceName(s), model.plugins.get(s) as ServicePlugin]));
  const sensitive = sensitiveKeys(model);
  const services: Record<string, Obj> = {};
  const secretKeys = new Set<string>();
  const plans = new Map<string, SecretPlan>();
  for (const [id, def] of Object.entries(compose.services)) {
    const plan = secretPlan(model, id, def, sensitive, setups.get(id));
    plans.set(id, plan);
    plan.mounts.forEach((k) => secretKeys.add(k));
    services[id] = swarmService(model, id, def, setups.has(id), plan);
  }
  const networks: Record<string, Obj> = { [NETWORK]: { driver: 'overlay', attachable: true } };
  // the Docker API stays on a network with no way out, as in Compose
  if (compose.networks[SOCKET_PROXY_NETWORK]) networks[SOCKET_PROXY_NETWORK] = { driver: 'overlay', internal: true };
  // made by scripts/lib.sh (swarm_secrets) from .env before each deploy, one per value
  const secrets = Object.fromEntries([...secretKeys].map((k) => [k, {
    external: true, name: `\${${secretNameVariable(k)}:?${secretNameVariable(k)} is empty: run scripts/deploy.sh}`,
  }]));
  return { document: { services, networks, ...(compose.volumes ? { volumes: compose.volumes } : {}), ...(secretKeys.size ? { secrets } : {}) }, plans };
}

function swarmService(model: StackModel, id: string, def: Obj, setup: boolean, plan: SecretPlan): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(def)) if (!(COMPOSE_ONLY as readonly string[]).includes(key)) out[key] = value;
  if (def.environment) {
    const gone = new Set([...plan.files.map((f) => f.name), ...plan.loaded.map((v) => v.name)]);
    const environment: Record<string, string> = {};
    for (const [k, v] of Object.entries(def.environment as Record<string, string>)) {
      const file = plan.files.find((f) => f.name === k);
      if (file) environment[file.fileVariable] = `${SECRETS_DIR}/${file.key}`;
      // the messages of required values name this target's script
      else if (!gone.has(k)) environment[k] = v.replace(/is empty: run scripts\/start\.sh/, 'is empty: run scripts/deploy.sh');
    }
    out.environment = environment;
  }
  if (plan.loaded.length && plan.wrap) out[plan.wrap] = ['sh', '-c', wrapperScript(plan.loaded), 'sh', ...(def[plan.wrap] as string[])];
  if (plan.mounts.length) out.secrets = plan.mounts;
  const volumes = [...((def.volumes as string[] | undefined) ?? [])] as unknown[];
  for (const t of (def.tmpfs as string[] | undefined) ?? []) volumes.push({ type: 'tmpfs', target: t.split(':')[0] });
  if (typeof def.shm_size === 'string') volumes.push({ type: 'tmpfs', target: '/dev/shm', tmpfs: { size: sizeBytes(def.shm_size) } });
  if (volumes.length) out.volumes = volumes;
  const ports = portsOf(model, id).filter((p) => p.public).map((p) => ({
    target: p.container, published: `\${${p.variable}:-${p.host}}`, protocol: p.protocol, mode: 'host',
  }));
  if (ports.length) out.ports = ports;
  const constraints: string[] = [];
  // named volumes are local to a node, and the bundle's files are on the node it was deployed from
  if ((def.volumes as string[] | undefined)?.length) constraints.push(`node.labels.${dataLabel(model.options.name)} == true`);
  const platform = model.options.platform?.split('/');
  if (platform) {
    constraints.push(`node.platform.os == ${platform[0]}`);
    if (platform[1]) constraints.push(`node.platform.arch == ${NODE_ARCH[platform[1]] ?? platform[1]}`);
  }
  out.deploy = {
    ...(setup ? { mode: 'replicated-job' } : { mode: 'replicated', replicas: 1 }),
    // a service name resolves to its task's own address, as in Compose: no virtual IP, which needs the
    // kernel's IPVS (absent on some hosts, this test machine among them) and hides nothing a stack relies on
    endpoint_mode: 'dnsrr',
    restart_policy: setup ? RESTART_SETUP : RESTART_ALWAYS,
    resources: { limits: { memory: def.mem_limit, pids: def.pids_limit } },
    ...(setup ? {} : { update_config: UPDATE, rollback_config: ROLLBACK }),
    ...(constraints.length ? { placement: { constraints } } : {}),
  };
  return out;
}

/** stack.yml's text, and the secret plans. */
export function buildStackFile(model: StackModel): { text: string; plans: Map<string, SecretPlan> } {
  const { document, plans } = swarmDocument(model);
  const text = `# Generated by Stackwright for stack "${model.options.name}" (Docker Swarm). Deploy it with scripts/deploy.sh,\n`
    + '# which creates .env from .env.example, fills in the secrets and gives docker stack deploy its values.\n'
    + dumpYaml(document);
  return { text, plans };
}
