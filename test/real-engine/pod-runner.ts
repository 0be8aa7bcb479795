// Kubernetes pods on the Docker engine (issue 32): the objects `kubectl kustomize` rendered, and nothing else (never
// the model or the Compose file), translated into `docker run` flags the way the kubelet would start each pod, then
// run: a pod's init containers in order (each must exit 0), then its containers; a Job's container until it exits 0
// within its backoffLimit; then each container's startup, readiness and liveness probes with their own period and
// failureThreshold. A field the translator does not know makes it throw, naming the field: an unknown field is never
// dropped, so a run that passes ran what the objects say. docs/testing.md says what this proves and what it does not.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expand } from '../support/kubernetes.js';
import { docker, dockerOk } from './engine.js';

type Any = Record<string, any>;
export interface K8sObject { apiVersion: string; kind: string; metadata: Any; spec?: Any; data?: Record<string, string>; stringData?: Record<string, string>; type?: string }

/** Kinds a rendered base may hold that carry no pod: read for what pods need (Secret, ConfigMap, PVC, Service) or not run here. */
const NO_POD_KINDS = new Set(['Namespace', 'ConfigMap', 'Secret', 'Service', 'PersistentVolumeClaim', 'NetworkPolicy', 'Gateway', 'HTTPRoute', 'Middleware', 'Issuer', 'Certificate']);
/** Kinds whose pod template is run. */
const POD_KINDS = new Set(['Deployment', 'StatefulSet', 'Job']);

/** Fields the translator understands, per place; anything else throws. */
export const UNDERSTOOD: Readonly<Record<string, readonly string[]>> = {
  'Deployment.spec': ['replicas', 'selector', 'strategy', 'template'],
  'StatefulSet.spec': ['replicas', 'selector', 'serviceName', 'template', 'volumeClaimTemplates'],
  'Job.spec': ['backoffLimit', 'ttlSecondsAfterFinished', 'template'],
  'template': ['metadata', 'spec'],
  'pod': ['automountServiceAccountToken', 'enableServiceLinks', 'securityContext', 'terminationGracePeriodSeconds', 'nodeSelector', 'initContainers', 'containers', 'volumes', 'restartPolicy'],
  'pod.securityContext': ['seccompProfile', 'fsGroup', 'fsGroupChangePolicy', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'supplementalGroups'],
  'container': ['name', 'image', 'command', 'args', 'env', 'envFrom', 'ports', 'resources', 'readinessProbe', 'livenessProbe', 'startupProbe', 'securityContext', 'volumeMounts', 'stdin', 'tty', 'workingDir'],
  'container.securityContext': ['allowPrivilegeEscalation', 'capabilities', 'readOnlyRootFilesystem', 'runAsUser', 'runAsGroup', 'runAsNonRoot', 'seccompProfile', 'privileged'],
  'capabilities': ['drop', 'add'],
  'resources': ['requests', 'limits'],
  'resources.requests': ['memory', 'cpu'],
  'resources.limits': ['memory', 'cpu'],
  'env': ['name', 'value', 'valueFrom'],
  'valueFrom': ['secretKeyRef', 'configMapKeyRef'],
  'keyRef': ['name', 'key', 'optional'],
  'envFrom': ['secretRef', 'configMapRef', 'prefix'],
  'probe': ['exec', 'periodSeconds', 'timeoutSeconds', 'failureThreshold', 'successThreshold', 'initialDelaySeconds', 'tcpSocket', 'httpGet'],
  'volume': ['name', 'persistentVolumeClaim', 'emptyDir', 'configMap'],
  'emptyDir': ['medium', 'sizeLimit'],
  'configMap': ['name', 'items', 'defaultMode'],
  'volumeMount': ['name', 'mountPath', 'subPath', 'readOnly'],
  'port': ['name', 'containerPort', 'protocol'],
  'Service.spec': ['selector', 'ports'],
  'Service.port': ['name', 'port', 'targetPort', 'protocol'],
};

export class UnsupportedField extends Error {}

function only(value: Any | undefined, place: string, where: string): void {
  if (value === undefined) return;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new UnsupportedField(`${where}: ${place} is not an object`);
  const known = UNDERSTOOD[place];
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new UnsupportedField(`${where}: ${place}.${key} is not understood by the pod runner (it knows ${known.join(', ')})`);
  }
}

/** docker's size for a Kubernetes quantity of bytes (Mi, Gi, plain bytes). */
export function bytes(quantity: string | number, where: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G)?$/.exec(String(quantity));
  if (!m) throw new UnsupportedField(`${where}: quantity ${quantity} is not understood`);
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

function cpus(quantity: string | number, where: string): string {
  const m = /^(\d+(?:\.\d+)?)(m)?$/.exec(String(quantity));
  if (!m) throw new UnsupportedField(`${where}: cpu ${quantity} is not understood`);
  return String(m[2] ? Number(m[1]) / 1000 : Number(m[1]));
}

export interface Probe { kind: 'startup' | 'readiness' | 'liveness'; command: string[]; period: number; timeout: number; failureThreshold: number; initialDelay: number }
export interface ContainerPlan {
  name: string;
  docker: string;
  image: string;
  args: string[];
  probes: Probe[];
  /** runAsNonRoot without runAsUser: the kubelet starts it only if the image's user is a non-zero number */
  verifyNonRoot: boolean;
}
/** A docker volume standing for a claim, and the fsGroup the kubelet gives its files (or none). */
export interface ClaimVolume { name: string; claim: string; fsGroup?: number }
export interface PodPlan {
  owner: { kind: string; name: string };
  pod: string;
  services: string[];
  init: ContainerPlan[];
  containers: ContainerPlan[];
  /** a Job's attempts: backoffLimit + 1; undefined for a long-running pod */
  attempts?: number;
  claims: ClaimVolume[];
}
export interface Plan { pods: PodPlan[]; files: { path: string; content: string }[]; notRun: string[] }

/** Labels, names and places of one run: every container, volume and the network carry the project's label. */
export interface RunOptions { project: string; filesDir: string }

export const LABEL = 'stackwright.k8s-pods';

function decode(o: K8sObject): Map<string, string> {
  const out = new Map<string, string>();
  // kustomize folds long base64 lines; the API server's decoder skips line breaks
  for (const [k, v] of Object.entries(o.data ?? {})) out.set(k, o.kind === 'Secret' ? Buffer.from(String(v).replace(/\s/g, ''), 'base64').toString('utf8') : String(v));
  for (const [k, v] of Object.entries(o.stringData ?? {})) out.set(k, String(v));
  return out;
}

function labelsMatch(selector: Record<string, string>, labels: Record<string, string> = {}): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/**
 * The docker side of every pod in `objects`. Throws UnsupportedField for a kind, field or value it cannot carry
 * over faithfully.
 */
export function planPods(objects: K8sObject[], options: RunOptions): Plan {
  const secrets = new Map<string, Map<string, string>>();
  const configMaps = new Map<string, Map<string, string>>();
  const claims = new Set<string>();
  const services: K8sObject[] = [];
  const notRun: string[] = [];
  for (const o of objects) {
    if (POD_KINDS.has(o.kind)) continue;
    if (!NO_POD_KINDS.has(o.kind)) throw new UnsupportedField(`${o.kind} ${o.metadata?.name}: kind not understood by the pod runner`);
    if (o.kind === 'Secret') secrets.set(o.metadata.name, decode(o));
    else if (o.kind === 'ConfigMap') configMaps.set(o.metadata.name, decode(o));
    else if (o.kind === 'PersistentVolumeClaim') claims.add(o.metadata.name);
    else if (o.kind === 'Service') {
      only(o.spec, 'Service.spec', `Service ${o.metadata.name}`);
      for (const p of o.spec!.ports ?? []) {
        only(p, 'Service.port', `Service ${o.metadata.name}`);
        // a network alias keeps the port: a Service that moves it cannot be stood in for
        if (p.targetPort !== undefined && p.targetPort !== p.port) throw new UnsupportedField(`Service ${o.metadata.name}: port ${p.port} -> targetPort ${p.targetPort} (an alias cannot remap a port)`);
      }
      services.push(o);
    } else if (o.kind !== 'Namespace') notRun.push(`${o.kind} ${o.metadata.name}`);
  }
  const files: Plan['files'] = [];
  const pods: PodPlan[] = [];
  for (const w of objects.filter((o) => POD_KINDS.has(o.kind))) {
    const where = `${w.kind} ${w.metadata.name}`;
    only(w.spec, `${w.kind}.spec`, where);
    const spec = w.spec!;
    if (w.kind !== 'Job' && (spec.replicas ?? 1) !== 1) throw new UnsupportedField(`${where}: replicas ${spec.replicas} (the runner starts one pod)`);
    only(spec.template, 'template', where);
    const pod = spec.template.spec as Any;
    only(pod, 'pod', where);
    if (w.kind !== 'Job' && spec.selector?.matchLabels && !labelsMatch(spec.selector.matchLabels, spec.template.metadata?.labels)) throw new UnsupportedField(`${where}: its selector does not select its own pods`);
    if (pod.automountServiceAccountToken !== false) throw new UnsupportedField(`${where}: automountServiceAccountToken is not false (no API server here to give a token)`);
    if (pod.nodeSelector) {
      const arch = { x64: 'amd64', arm64: 'arm64' }[process.arch as string];
      for (const [k, v] of Object.entries(pod.nodeSelector)) {
        if (k !== 'kubernetes.io/arch') throw new UnsupportedField(`${where}: nodeSelector ${k}`);
        if (v !== arch) throw new UnsupportedField(`${where}: nodeSelector ${k}=${v}, this node is ${arch}`);
      }
    }
    const podName = w.kind === 'StatefulSet' ? `${w.metadata.name}-0` : w.metadata.name;
    const psc = (pod.securityContext ?? {}) as Any;
    only(psc, 'pod.securityContext', where);
    if (psc.seccompProfile && psc.seccompProfile.type !== 'RuntimeDefault') throw new UnsupportedField(`${where}: seccompProfile ${psc.seccompProfile.type}`);
    // a claim here is always new (prepare makes it), where OnRootMismatch and Always both give it to the group
    if (psc.fsGroupChangePolicy !== undefined && !['OnRootMismatch', 'Always'].includes(psc.fsGroupChangePolicy)) throw new UnsupportedField(`${where}: fsGroupChangePolicy ${psc.fsGroupChangePolicy}`);
    const restartPolicy = pod.restartPolicy ?? 'Always';
    if (w.kind === 'Job' ? !['OnFailure', 'Never'].includes(restartPolicy) : restartPolicy !== 'Always') throw new UnsupportedField(`${where}: restartPolicy ${restartPolicy}`);

    // volumes: claims as named docker volumes (empty, as a new claim is), emptyDir as tmpfs, ConfigMaps as files
    const claimVolumes: ClaimVolume[] = [];
    const volumes = new Map<string, { mount: (target: string, sub: string | undefined, readOnly: boolean) => string[] }>();
    const volumeName = (claim: string) => `${options.project}-${claim}`;
    const addClaim = (name: string, claim: string) => {
      const docker = volumeName(claim);
      claimVolumes.push({ name: docker, claim, ...(psc.fsGroup !== undefined ? { fsGroup: psc.fsGroup } : {}) });
      volumes.set(name, {
        mount: (target, sub, readOnly) => {
          if (sub) throw new UnsupportedField(`${where}: subPath on claim ${claim}`);
          // volume-nocopy: a new claim is empty, where a new docker volume would get the image's files at that path
          return ['--mount', `type=volume,src=${docker},dst=${target},volume-nocopy${readOnly ? ',readonly' : ''}`];
        },
      });
    };
    for (const t of spec.volumeClaimTemplates ?? []) addClaim(t.metadata.name, `${t.metadata.name}-${podName}`);
    for (const v of pod.volumes ?? []) {
      only(v, 'volume', where);
      const vw = `${where} volume ${v.name}`;
      if (v.persistentVolumeClaim) {
        if (!claims.has(v.persistentVolumeClaim.claimName)) throw new UnsupportedField(`${vw}: claim ${v.persistentVolumeClaim.claimName} is not among the rendered objects`);
        addClaim(v.name, v.persistentVolumeClaim.claimName);
      } else if (v.emptyDir) {
        only(v.emptyDir, 'emptyDir', vw);
        if (v.emptyDir.medium !== undefined && v.emptyDir.medium !== 'Memory') throw new UnsupportedField(`${vw}: medium ${v.emptyDir.medium}`);
        const size = v.emptyDir.sizeLimit !== undefined ? `,size=${bytes(v.emptyDir.sizeLimit, vw)}` : '';
        volumes.set(v.name, {
          mount: (target, sub, readOnly) => {
            if (sub || readOnly) throw new UnsupportedField(`${vw}: subPath or readOnly on an emptyDir`);
            // an emptyDir is a world-writable folder that allows exec (docker's tmpfs defaults to noexec)
            return ['--tmpfs', `${target}:rw,exec,nosuid,nodev,mode=0777${size}`];
          },
        });
      } else if (v.configMap) {
        only(v.configMap, 'configMap', vw);
        const name = v.configMap.name;
        const data = configMaps.get(name);
        if (!data) throw new UnsupportedField(`${vw}: ConfigMap ${name} is not among the rendered objects`);
        if ((v.configMap.defaultMode ?? 0o644) !== 0o644) throw new UnsupportedField(`${vw}: defaultMode ${v.configMap.defaultMode.toString(8)}`);
        const items: { key: string; path: string }[] = v.configMap.items ?? [...data.keys()].map((key) => ({ key, path: key }));
        const dir = path.join(options.filesDir, podName, v.name);
        for (const item of items) {
          if (!data.has(item.key)) throw new UnsupportedField(`${vw}: key ${item.key} is not in ${name}`);
          files.push({ path: path.join(dir, item.path), content: data.get(item.key)! });
        }
        volumes.set(v.name, {
          mount: (target, sub) => {
            if (sub && !items.some((i) => i.path === sub)) throw new UnsupportedField(`${vw}: subPath ${sub} is not a key of ${name}`);
            // a ConfigMap volume is read-only whatever the mount says
            return ['--mount', `type=bind,src=${sub ? path.join(dir, sub) : dir},dst=${target},readonly`];
          },
        });
      } else {
        throw new UnsupportedField(`${vw}: only persistentVolumeClaim, emptyDir and configMap volumes are understood`);
      }
    }

    const container = (c: Any, kind: 'init' | 'main'): ContainerPlan => {
      const cw = `${where} ${kind === 'init' ? 'initContainer' : 'container'} ${c.name}`;
      only(c, 'container', cw);
      const name = `${options.project}-${podName}-${c.name}`;
      const args: string[] = ['--name', name, '--label', `${LABEL}=${options.project}`, '--hostname', podName];
      // environment: envFrom first, then env in order, each $(VAR) from what is defined before it
      const env = new Map<string, string>();
      const staticEnv = new Map<string, string>();
      const lookup = (ref: Any, from: 'secretKeyRef' | 'configMapKeyRef'): string | undefined => {
        only(ref, 'keyRef', cw);
        const map = (from === 'secretKeyRef' ? secrets : configMaps).get(ref.name);
        const value = map?.get(ref.key);
        if (value === undefined && !ref.optional) throw new UnsupportedField(`${cw}: ${from} ${ref.name}/${ref.key} is not among the rendered objects`);
        return value;
      };
      for (const e of c.envFrom ?? []) {
        only(e, 'envFrom', cw);
        const ref = e.secretRef ?? e.configMapRef;
        const map = (e.secretRef ? secrets : configMaps).get(ref?.name);
        if (!map) throw new UnsupportedField(`${cw}: envFrom ${ref?.name} is not among the rendered objects`);
        for (const [k, v] of map) env.set(`${e.prefix ?? ''}${k}`, v);
      }
      for (const e of c.env ?? []) {
        only(e, 'env', cw);
        if (e.valueFrom) {
          only(e.valueFrom, 'valueFrom', cw);
          const value = e.valueFrom.secretKeyRef ? lookup(e.valueFrom.secretKeyRef, 'secretKeyRef') : lookup(e.valueFrom.configMapKeyRef, 'configMapKeyRef');
          if (value !== undefined) env.set(e.name, value);
          // the probe's expansion sees such a variable as empty (it reads only the container spec's values)
          staticEnv.set(e.name, '');
        } else {
          env.set(e.name, expand(String(e.value ?? ''), env));
          staticEnv.set(e.name, String(e.value ?? ''));
        }
      }
      for (const [k, v] of env) args.push('-e', `${k}=${v}`);
      // security: the pod's context, then the container's over it
      const sc = (c.securityContext ?? {}) as Any;
      only(sc, 'container.securityContext', cw);
      if (sc.privileged) throw new UnsupportedField(`${cw}: privileged`);
      if (sc.seccompProfile && sc.seccompProfile.type !== 'RuntimeDefault') throw new UnsupportedField(`${cw}: seccompProfile ${sc.seccompProfile.type}`);
      const uid = sc.runAsUser ?? psc.runAsUser;
      const gid = sc.runAsGroup ?? psc.runAsGroup;
      const nonRoot = sc.runAsNonRoot ?? psc.runAsNonRoot;
      if (gid !== undefined && uid === undefined) throw new UnsupportedField(`${cw}: runAsGroup without runAsUser`);
      if (uid !== undefined) args.push('--user', gid !== undefined ? `${uid}:${gid}` : String(uid));
      if (nonRoot && uid === 0) throw new UnsupportedField(`${cw}: runAsNonRoot with runAsUser 0 (the kubelet refuses to start it)`);
      for (const g of [...(psc.fsGroup !== undefined ? [psc.fsGroup] : []), ...(psc.supplementalGroups ?? [])]) args.push('--group-add', String(g));
      if (sc.capabilities) {
        only(sc.capabilities, 'capabilities', cw);
        for (const cap of sc.capabilities.drop ?? []) args.push('--cap-drop', cap);
        for (const cap of sc.capabilities.add ?? []) args.push('--cap-add', cap);
      }
      if (sc.allowPrivilegeEscalation === false) args.push('--security-opt', 'no-new-privileges');
      if (sc.readOnlyRootFilesystem) args.push('--read-only');
      // resources: the memory limit and no swap beyond it (a node runs without swap by default)
      if (c.resources) {
        only(c.resources, 'resources', cw);
        only(c.resources.requests, 'resources.requests', cw);
        only(c.resources.limits, 'resources.limits', cw);
        const limit = c.resources.limits?.memory;
        if (limit !== undefined) args.push('--memory', String(bytes(limit, cw)), '--memory-swap', String(bytes(limit, cw)));
        const request = c.resources.requests?.memory;
        if (request !== undefined) args.push('--memory-reservation', String(bytes(request, cw)));
        if (c.resources.limits?.cpu !== undefined) args.push('--cpus', cpus(c.resources.limits.cpu, cw));
      }
      for (const p of c.ports ?? []) only(p, 'port', cw);
      for (const m of c.volumeMounts ?? []) {
        only(m, 'volumeMount', cw);
        const volume = volumes.get(m.name);
        if (!volume) throw new UnsupportedField(`${cw}: volumeMount ${m.name} names no volume of the pod`);
        args.push(...volume.mount(m.mountPath, m.subPath, Boolean(m.readOnly)));
      }
      if (c.workingDir) args.push('--workdir', c.workingDir);
      if (c.stdin) args.push('--interactive');
      if (c.tty) args.push('--tty');
      if (pod.terminationGracePeriodSeconds !== undefined) args.push('--stop-timeout', String(pod.terminationGracePeriodSeconds));
      // command replaces the image's entrypoint and drops its CMD (as --entrypoint does), args replace CMD
      const command = (c.command ?? []).map((a: string) => expand(a, env));
      const cmdArgs = (c.args ?? []).map((a: string) => expand(a, env));
      if (command.length) args.push('--entrypoint', command[0]);
      args.push(c.image, ...command.slice(1), ...cmdArgs);
      const probes: Probe[] = [];
      for (const kindName of ['startup', 'readiness', 'liveness'] as const) {
        const p = c[`${kindName}Probe`] as Any | undefined;
        if (!p) continue;
        if (kind === 'init') throw new UnsupportedField(`${cw}: probes on an init container`);
        only(p, 'probe', cw);
        if (!p.exec) throw new UnsupportedField(`${cw}: ${kindName}Probe without exec (the pod runner runs exec probes; tcpSocket and httpGet are not emitted)`);
        if ((p.successThreshold ?? 1) !== 1) throw new UnsupportedField(`${cw}: ${kindName}Probe successThreshold ${p.successThreshold}`);
        // the kubelet expands an exec probe's $(VAR) from the container's literal values only (prober.go runProbe:
        // kubecontainer.ExpandContainerCommandOnlyStatic(p.Exec.Command, container.Env))
        probes.push({
          kind: kindName,
          command: (p.exec.command as string[]).map((a) => expand(a, staticEnv)),
          period: p.periodSeconds ?? 10,
          timeout: p.timeoutSeconds ?? 1,
          failureThreshold: p.failureThreshold ?? 3,
          initialDelay: p.initialDelaySeconds ?? 0,
        });
      }
      return { name: c.name, docker: name, image: c.image, args, probes, verifyNonRoot: Boolean(nonRoot) && uid === undefined };
    };
    const init = (pod.initContainers ?? []).map((c: Any) => container(c, 'init'));
    const containers = pod.containers.map((c: Any) => container(c, 'main'));
    const owned = services.filter((s) => s.spec!.selector && labelsMatch(s.spec!.selector, spec.template.metadata?.labels)).map((s) => s.metadata.name);
    pods.push({
      owner: { kind: w.kind, name: w.metadata.name },
      pod: podName,
      services: owned,
      init,
      containers,
      ...(w.kind === 'Job' ? { attempts: (spec.backoffLimit ?? 6) + 1 } : {}),
      claims: claimVolumes,
    });
  }
  return { pods, files, notRun };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ProbeResult { container: string; kind: Probe['kind']; passed: boolean; attempts: number; output: string }
export interface PodResult {
  pod: string;
  kind: string;
  /** init containers that exited 0, in order */
  init: string[];
  /** a Job's attempts until it exited 0, or undefined for a long-running pod */
  jobAttempts?: number;
  probes: ProbeResult[];
  problems: string[];
  restarts: number;
}

/** Runs a plan on the engine: one network with each Service's name as its pods' alias, every pod at once. */
export class PodRunner {
  readonly network: string;

  constructor(readonly plan: Plan, readonly options: RunOptions & { initTimeoutMs?: number }) {
    this.network = `${options.project}-pods`;
  }

  async prepare(): Promise<void> {
    await this.remove();
    for (const f of this.plan.files) {
      mkdirSync(path.dirname(f.path), { recursive: true, mode: 0o755 });
      writeFileSync(f.path, f.content, { mode: 0o644 });
    }
    await dockerOk(['network', 'create', '--label', `${LABEL}=${this.options.project}`, this.network]);
    const helper = 'alpine:3.23';
    // the kubelet's runAsNonRoot check where no runAsUser is set: the image's user must be a number other than 0
    for (const c of this.plan.pods.flatMap((p) => [...p.init, ...p.containers]).filter((x) => x.verifyNonRoot)) {
      const user = (await dockerOk(['image', 'inspect', '--format', '{{.Config.User}}', c.image])).trim().split(':')[0];
      if (!/^\d+$/.test(user) || user === '0') throw new UnsupportedField(`${c.docker}: runAsNonRoot, and the image's user "${user}" is not a non-zero number: the kubelet would not start it`);
    }
    for (const claim of this.plan.pods.flatMap((p) => p.claims)) {
      await dockerOk(['volume', 'create', '--label', `${LABEL}=${this.options.project}`, claim.name]);
      // the kubelet's volume ownership for fsGroup (SetVolumeOwnership): the group owns everything, may read and
      // write, and folders pass it on (setgid)
      if (claim.fsGroup !== undefined) {
        await dockerOk(['run', '--rm', '--label', `${LABEL}=${this.options.project}`, '--mount', `type=volume,src=${claim.name},dst=/v,volume-nocopy`, helper,
          'sh', '-c', `chgrp -R ${claim.fsGroup} /v && chmod -R g+rwX /v && find /v -type d -exec chmod g+s {} +`]);
      }
    }
  }

  /** Every pod at once, as a cluster starts them; each in its own order (init containers, then containers, then probes). */
  async run(): Promise<PodResult[]> {
    return Promise.all(this.plan.pods.map(async (p) => {
      const result = await this.runPod(p);
      // one pod failed: the init containers still waiting for it would wait forever; ending them ends the run
      if (result.problems.length) await this.stopWaiting();
      return result;
    }));
  }

  private stopped = false;

  private async stopWaiting(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const waiting = this.plan.pods.flatMap((p) => p.init.map((c) => c.docker));
    await docker(['rm', '-f', ...waiting]);
  }

  private async runPod(p: PodPlan): Promise<PodResult> {
    const result: PodResult = { pod: p.pod, kind: p.owner.kind, init: [], probes: [], problems: [], restarts: 0 };
    for (const c of p.init) {
      const created = await docker(['run', '-d', '--network', this.network, ...c.args]);
      if (created.code !== 0) {
        result.problems.push(`init ${c.name}: docker run failed: ${created.stderr.trim()}`);
        return result;
      }
      const exit = await docker(['wait', c.docker], { timeoutMs: this.options.initTimeoutMs ?? 600_000 });
      if (exit.code !== 0 || exit.stdout.trim() !== '0') {
        result.problems.push(this.stopped ? `init ${c.name}: ended after another pod failed` : `init ${c.name}: exit ${exit.stdout.trim() || 'none (timed out)'}: ${await this.logs(c.docker)}`);
        return result;
      }
      result.init.push(c.name);
    }
    if (p.attempts !== undefined) {
      // a Job: its container until it exits 0 (restartPolicy OnFailure restarts it in the same pod)
      const [c] = p.containers;
      const created = await docker(['run', '-d', '--network', this.network, ...c.args]);
      if (created.code !== 0) {
        result.problems.push(`${c.name}: docker run failed: ${created.stderr.trim()}`);
        return result;
      }
      for (let attempt = 1; attempt <= p.attempts; attempt++) {
        if (attempt > 1) {
          await sleep(Math.min(10_000 * 2 ** (attempt - 2), 60_000));
          await docker(['start', c.docker]);
        }
        const exit = (await dockerOk(['wait', c.docker], { timeoutMs: 600_000 })).trim();
        if (exit === '0') {
          result.jobAttempts = attempt;
          return result;
        }
      }
      result.problems.push(`${c.name}: the Job failed ${p.attempts} times: ${await this.logs(c.docker)}`);
      return result;
    }
    for (const c of p.containers) {
      const aliases = p.services.flatMap((s) => ['--network-alias', s]);
      // restartPolicy Always: the engine restarts a container that exits, as the kubelet would
      const created = await docker(['run', '-d', '--restart', 'always', '--network', this.network, ...aliases, ...c.args]);
      if (created.code !== 0) result.problems.push(`${c.name}: docker run failed: ${created.stderr.trim()}`);
    }
    if (result.problems.length) return result;
    await Promise.all(p.containers.map(async (c) => {
      const startup = c.probes.find((x) => x.kind === 'startup');
      const order = [startup, ...c.probes.filter((x) => x.kind !== 'startup')].filter((x): x is Probe => Boolean(x));
      for (const probe of order) {
        const r = await this.probe(c, probe);
        result.probes.push(r);
        if (!r.passed) {
          result.problems.push(`${c.name}: ${probe.kind} probe failed ${r.attempts} times: ${r.output}\n${await this.logs(c.docker)}`);
          return;
        }
      }
    }));
    for (const c of p.containers) result.restarts += Number((await dockerOk(['inspect', '--format', '{{.RestartCount}}', c.docker])).trim());
    return result;
  }

  /** A probe as the kubelet runs it: after its initial delay, every period, until it passes or fails failureThreshold times in a row. */
  private async probe(c: ContainerPlan, probe: Probe): Promise<ProbeResult> {
    await sleep(probe.initialDelay * 1000);
    let output = '';
    for (let attempt = 1; attempt <= probe.failureThreshold; attempt++) {
      const started = Date.now();
      const r = await docker(['exec', c.docker, ...probe.command], { timeoutMs: probe.timeout * 1000 });
      if (r.code === 0) return { container: c.name, kind: probe.kind, passed: true, attempts: attempt, output: '' };
      output = `exit ${r.code}: ${(r.stderr + r.stdout).trim().slice(-400)}`;
      await sleep(Math.max(0, probe.period * 1000 - (Date.now() - started)));
    }
    return { container: c.name, kind: probe.kind, passed: false, attempts: probe.failureThreshold, output };
  }

  private async logs(container: string): Promise<string> {
    const r = await docker(['logs', '--tail', '30', container]);
    return (r.stdout + r.stderr).trim();
  }

  /** Every container, volume and the network of the project. */
  async remove(): Promise<void> {
    const filter = ['--filter', `label=${LABEL}=${this.options.project}`];
    const ids = (await dockerOk(['ps', '-aq', ...filter])).split('\n').filter(Boolean);
    if (ids.length) await dockerOk(['rm', '-f', '-v', ...ids]);
    const volumes = (await dockerOk(['volume', 'ls', '-q', ...filter])).split('\n').filter(Boolean);
    if (volumes.length) await dockerOk(['volume', 'rm', '-f', ...volumes]);
    const networks = (await dockerOk(['network', 'ls', '-q', ...filter])).split('\n').filter(Boolean);
    if (networks.length) await dockerOk(['network', 'rm', ...networks]);
  }
}
