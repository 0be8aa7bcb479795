// One pod template per container member of the model, and the parts every pod shares: security contexts,
// probes from the manifest's health check, environment from the service's own Secret, mounts.
import type { ContainerManifest, ContainerPlugin, FrameworkPlugin, HealthcheckSpec, ServicePlugin } from '../../catalogue/types.js';
import { numericUser } from '../../catalogue/user-ids.js';
import { frameworkConfigPath, serviceFilePath } from '../../model/layout.js';
import type { ContainerVariable } from '../container-env.js';

export type Obj = Record<string, unknown>;

/** Labels every object of the stack carries; the first two select a member's pods. */
export function labels(stack: string, id: string): Record<string, string> {
  return { 'app.kubernetes.io/name': id, 'app.kubernetes.io/part-of': stack };
}

export function selector(id: string): Record<string, string> {
  return { 'app.kubernetes.io/name': id };
}

/** Seconds of a Compose duration (30s, 1m30s, 2m, 500ms rounded up). */
export function seconds(duration: string): number {
  let total = 0;
  for (const [, n, unit] of duration.matchAll(/(\d+(?:\.\d+)?)(ms|us|ns|h|m|s)/g)) {
    total += Number(n) * ({ h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6, ns: 1e-9 } as Record<string, number>)[unit];
  }
  return Math.max(1, Math.ceil(total));
}

/** `$` doubled: Kubernetes expands $(VAR) in env values, command and args; $$ is a literal $. */
export function k8sLiteral(text: string): string {
  return text.replaceAll('$', () => '$$');
}

/** The name of the Secret holding the .env values a member reads (kustomize adds a content hash). */
export function secretName(id: string): string {
  return `${id}-env`;
}

/** Env entries referring to another .env value inside a longer value are spelt $(KEY) after this prefix. */
const REF_PREFIX = 'STACKWRIGHT_REF_';

/**
 * Container env from parts: a value that is exactly one .env variable comes from the member's Secret; a
 * longer value names its variables as $(STACKWRIGHT_REF_KEY), each defined from the Secret before it
 * (Kubernetes expands only variables defined earlier in the list).
 */
export function envEntries(env: readonly ContainerVariable[], secret: string): Obj[] {
  const refs: Obj[] = [];
  const seen = new Set<string>();
  const out: Obj[] = [];
  const fromSecret = (name: string, key: string) => ({ name, valueFrom: { secretKeyRef: { name: secret, key } } });
  for (const v of env) {
    if (v.parts.length === 1 && 'variable' in v.parts[0]) {
      out.push(fromSecret(v.name, v.parts[0].variable));
      continue;
    }
    const value = v.parts.map((p) => {
      if ('text' in p) return k8sLiteral(p.text);
      if (!seen.has(p.variable)) {
        seen.add(p.variable);
        refs.push(fromSecret(`${REF_PREFIX}${p.variable}`, p.variable));
      }
      return `$(${REF_PREFIX}${p.variable})`;
    }).join('');
    out.push({ name: v.name, value });
  }
  return [...refs, ...out];
}

/** A Compose health check as a probe's handler and timing. */
function probe(h: HealthcheckSpec): Obj {
  const command = typeof h.test === 'string' ? ['sh', '-c', h.test] : h.test;
  return {
    exec: { command: command.map(k8sLiteral) },
    periodSeconds: seconds(h.interval ?? '10s'),
    timeoutSeconds: seconds(h.timeout ?? '5s'),
    failureThreshold: h.retries ?? 5,
  };
}

/**
 * readiness and liveness from the health check; a startup probe covers start_period (Compose's grace
 * before failures count): the other two wait until it has passed once.
 */
export function probes(h: HealthcheckSpec | undefined): Obj {
  if (!h) return {};
  const p = probe(h);
  const out: Obj = { readinessProbe: p, livenessProbe: p };
  if (h.startPeriod) {
    const period = Math.min(10, p.periodSeconds as number);
    out.startupProbe = { ...p, periodSeconds: period, failureThreshold: Math.ceil(seconds(h.startPeriod) / period) + (h.retries ?? 5) };
  }
  return out;
}

/**
 * The numeric user a member's containers run as on Kubernetes: the manifest's `user` where it is uid[:gid] (Compose
 * runs it so too), else, where the manifest sets none, the user its image starts as (`imageUser`, what Docker runs
 * without a `user`): written out, so the kubelet can check runAsNonRoot and the pod's claims get its group. A named
 * `user` gives none (Kubernetes takes only numbers).
 */
export function podUser(m: ContainerManifest): { uid: number; gid?: number } | null {
  return numericUser(m.user) ?? (m.user === undefined ? numericUser(m.imageUser) : null);
}

/** Capabilities Pod Security "restricted" lets a container add back. */
const RESTRICTED_CAPS = new Set(['NET_BIND_SERVICE']);
/** Capabilities "baseline" allows beyond the runtime's defaults (pod-security-standards "Capabilities"). */
const BASELINE_CAPS = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

export interface PodSecurity {
  /** why the pod misses Pod Security "restricted" (empty: it qualifies) */
  notRestricted: string[];
  /** why it misses "baseline" */
  notBaseline: string[];
}

/** The container securityContext Compose's hardening becomes, and how the pod stands against Pod Security. */
export function containerSecurity(plugin: ContainerPlugin, hardened: boolean): { context: Obj; security: PodSecurity } {
  const m = plugin.manifest;
  const context: Obj = {};
  const notRestricted: string[] = [];
  const notBaseline: string[] = [];
  if (hardened && !m.hardening.unsupported) {
    const add = [...(m.hardening.capAdd ?? [])].sort();
    context.allowPrivilegeEscalation = false;
    context.capabilities = { drop: ['ALL'], ...(add.length ? { add } : {}) };
    const extra = add.filter((c) => !RESTRICTED_CAPS.has(c));
    if (extra.length) notRestricted.push(`adds ${extra.join(', ')}`);
    const beyond = add.filter((c) => !BASELINE_CAPS.has(c));
    if (beyond.length) notBaseline.push(`adds ${beyond.join(', ')}`);
  } else {
    notRestricted.push(hardened ? `cannot run hardened: ${m.hardening.unsupported}` : 'the stack is generated with hardened: false');
  }
  const user = podUser(m);
  if (user) {
    context.runAsUser = user.uid;
    if (user.gid !== undefined) context.runAsGroup = user.gid;
    if (user.uid !== 0) context.runAsNonRoot = true;
    else notRestricted.push('runs as root (user 0)');
  } else {
    // Compose starts such a container as the named user; Kubernetes takes only numbers, so the pod starts as the
    // image's own user (root for most): an image that drops privileges itself then lacks the capabilities to do so
    notRestricted.push(m.user ? `the manifest's user "${m.user}" is a name, which Kubernetes cannot set (runAsUser takes a number): the pod starts as the image's user` : 'runs as the image\'s user (root unless the image says otherwise)');
  }
  if ((m.hostMounts ?? []).length) {
    notRestricted.push('mounts host paths');
    notBaseline.push('mounts host paths');
  }
  return { context, security: { notRestricted, notBaseline } };
}

/** Our own helper containers: unprivileged, read-only, nothing added. */
export const HELPER_SECURITY: Obj = {
  allowPrivilegeEscalation: false,
  capabilities: { drop: ['ALL'] },
  readOnlyRootFilesystem: true,
  runAsNonRoot: true,
  runAsUser: 65534,
  runAsGroup: 65534,
};

/** The ConfigMap holding a member's files (framework config, service config files). */
export function filesConfigMap(id: string): string {
  return `${id}-files`;
}

/** The ConfigMap holding the skills every framework mounts. */
export const SKILLS_CONFIGMAP = 'skills';

/** A ConfigMap key for a bundle path (keys allow [-._a-zA-Z0-9]). */
export function configKey(file: string): string {
  return file.replace(/[^-._a-zA-Z0-9]/g, '_');
}

/** Files of a member mounted from its ConfigMap: [bundle path, mount path]. */
export function memberFiles(plugin: ContainerPlugin): [string, string][] {
  if (plugin.kind === 'service') return ((plugin as ServicePlugin).manifest.files ?? []).map((f) => [serviceFilePath(plugin.id, f.template), f.target]);
  if (plugin.kind === 'framework') return [[frameworkConfigPath(plugin.id), (plugin as FrameworkPlugin).manifest.config.target]];
  return [];
}

/** Volumes and mounts of a member's pod besides its claims. */
export function podVolumes(plugin: ContainerPlugin, skillFiles: readonly string[]): { volumes: Obj[]; mounts: Obj[] } {
  const volumes: Obj[] = [];
  const mounts: Obj[] = [];
  const files = memberFiles(plugin);
  if (files.length) {
    volumes.push({ name: 'files', configMap: { name: filesConfigMap(plugin.id) } });
    for (const [file, target] of files) mounts.push({ name: 'files', mountPath: target, subPath: configKey(file), readOnly: true });
  }
  if (plugin.kind === 'framework' && skillFiles.length) {
    // the skills folder as it is in the bundle: each file a key, put back at its path
    volumes.push({ name: 'skills', configMap: { name: SKILLS_CONFIGMAP, items: skillFiles.map((f) => ({ key: configKey(f), path: f.replace(/^skills\//, '') })) } });
    mounts.push({ name: 'skills', mountPath: (plugin as FrameworkPlugin).manifest.skillsTarget, readOnly: true });
  }
  (plugin.manifest.hostMounts ?? []).forEach((h, i) => {
    volumes.push({ name: `host-${i}`, hostPath: { path: h.source } });
    mounts.push({ name: `host-${i}`, mountPath: h.target, ...(h.readOnly ? { readOnly: true } : {}) });
  });
  if (plugin.manifest.shmSize) {
    volumes.push({ name: 'shm', emptyDir: { medium: 'Memory', sizeLimit: plugin.manifest.shmSize.toUpperCase().replace(/^(\d+)([KMGT])B?$/, '$1$2i') } });
    mounts.push({ name: 'shm', mountPath: '/dev/shm' });
  }
  return { volumes, mounts };
}
