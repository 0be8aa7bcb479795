// The Kubernetes target: a Kustomize base (kustomization.yaml at the bundle's root, objects under
// kubernetes/) built from the one stack model, beside the plugin files, .env.example and the script that
// turns .env into the per-service Secret files the kustomization's secretGenerator reads.
import type { ProxyPlugin, ServicePlugin } from '../../catalogue/types.js';
import { serviceFilePath, setupServiceName } from '../../model/layout.js';
import { shellQuote } from '../escape.js';
import { dumpYaml } from '../yaml-dump.js';
import { ACME_CA_DEFAULT, ACME_CA_VARIABLE, imageRef, PROXY_PASSWORD_VARIABLE, PROXY_USER_VARIABLE, type StackModel } from '../../model/model.js';
import type { FragmentCache } from '../../cache/fragment-cache.js';
import { TargetTemplates } from '../target-templates.js';
import { AUTH_SECRET, gatewayObjects, ISSUER_NAME, routeName } from './gateway.js';
import { networkPolicies } from './network.js';
import { configKey, filesConfigMap, memberFiles, secretName, SKILLS_CONFIGMAP, type Obj } from './pods.js';
import { DATABASE_CLAIM_SIZE, DEFAULT_CLAIM_SIZE, setupJob, setupScript, workload, type Workload } from './workloads.js';

export const KUSTOMIZATION_FILE = 'kustomization.yaml';
export const SECRETS_SCRIPT = 'scripts/secrets.sh';
/** The Compose bundle's files this target ships as they are. */
export const SHARED_FILES = ['.env.example', 'scripts/lib.sh'] as const;
/** Generated ConfigMaps that only feed replacements: kustomize leaves them out of its output. */
const LOCAL_ONLY = { annotations: { 'config.kubernetes.io/local-config': 'true' } };

/** A namespace name from the stack name (DNS-1123 label: no underscore). */
export function namespaceOf(stackName: string): string {
  return stackName.replace(/_/g, '-');
}

/** README.md and scripts/secrets.sh of a Kubernetes bundle. */
export class KubernetesTemplates extends TargetTemplates<'README.md' | 'secrets.sh'> {
  constructor(dir: string) {
    super(dir, 'kubernetes', ['README.md', 'secrets.sh']);
  }
}

/**
 * The bundle's files for Kubernetes: `pluginFiles` are the plugin templates as rendered for the model (the
 * proxy's own config is left out: the Gateway replaces it), `shared` the .env.example and scripts/lib.sh
 * the Compose bundle has.
 */
export function kubernetesFiles(model: StackModel, pluginFiles: ReadonlyMap<string, string>, shared: ReadonlyMap<string, string>, templates: KubernetesTemplates, cache?: FragmentCache): Map<string, string> {
  const proxy = model.resolution.proxy as ProxyPlugin | undefined;
  const files = new Map<string, string>();
  for (const [file, content] of pluginFiles) if (!proxy || !file.startsWith(`${proxy.manifest.configDir.path}/`)) files.set(file, content);
  const skillFiles = [...files.keys()].filter((f) => f.startsWith('skills/') && f !== 'skills/README.md').sort();
  const containers = model.members.filter((m) => m.placement === 'container' && m.plugin.kind !== 'proxy');
  const workloads: Workload[] = containers.map((m) => workload(model, m, skillFiles));
  const servers = [...new Set(model.databases.map((d) => d.server))].map((id) => model.plugins.get(id) as ServicePlugin).filter((s) => s?.manifest.databaseServer);
  const jobs = servers.map((s) => setupJob(model, s));
  const all = [...workloads, ...jobs];
  const ns = namespaceOf(model.options.name);
  // dumping is most of a render's cost: each object's YAML is a fragment keyed by its JSON (which costs a tenth)
  const dumpOne = (o: Obj) => (cache?.enabled ? cache.get('kubernetes', '', JSON.stringify(o), () => dumpYaml(o)) : dumpYaml(o));
  const dump = (objects: Obj[]) => objects.map(dumpOne).join('---\n');

  // Pod Security: "restricted" where every pod qualifies, else the strictest level all meet, with the exceptions named
  const notRestricted = all.filter((w) => w.security.notRestricted.length);
  const level = !notRestricted.length ? 'restricted' : all.some((w) => w.security.notBaseline.length) ? 'privileged' : 'baseline';
  const exceptions = notRestricted.map((w) => `${w.id}: ${w.security.notRestricted.join('; ')}`);
  const namespace: Obj = {
    apiVersion: 'v1', kind: 'Namespace',
    metadata: {
      name: ns,
      labels: { 'pod-security.kubernetes.io/enforce': level, 'pod-security.kubernetes.io/warn': 'restricted', 'pod-security.kubernetes.io/audit': 'restricted' },
      ...(exceptions.length ? { annotations: { 'stackwright.dev/pod-security-exceptions': exceptions.join(' | ') } } : {}),
    },
  };
  const resources: string[] = ['kubernetes/namespace.yaml'];
  files.set('kubernetes/namespace.yaml', dump([namespace]));
  for (const w of all) {
    const file = `kubernetes/${w.id}.yaml`;
    files.set(file, dump(w.objects));
    resources.push(file);
  }
  files.set('kubernetes/network-policies.yaml', dump(networkPolicies(model, all.map((w) => w.id))));
  resources.push('kubernetes/network-policies.yaml');
  const gateway = gatewayObjects(model);
  if (gateway.length) {
    files.set('kubernetes/gateway.yaml', dump(gateway));
    resources.push('kubernetes/gateway.yaml');
  }

  // Secrets: one per pod, from secrets/<name>.env, which scripts/secrets.sh writes from .env
  const secretFiles = all.filter((w) => w.secretKeys.length).map((w) => ({ name: secretName(w.id), file: `secrets/${w.id}.env`, keys: w.secretKeys }));
  const secretGenerator: Obj[] = secretFiles.map((s) => ({ name: s.name, envs: [s.file] }));
  if (model.proxyAuth && gateway.length) {
    // Traefik reads the basic-auth Secret by its name: no content hash in it
    secretGenerator.push({ name: AUTH_SECRET, type: 'kubernetes.io/basic-auth', envs: [`secrets/${AUTH_SECRET}.env`], options: { disableNameSuffixHash: true } });
  }
  const configMapGenerator: Obj[] = [];
  for (const m of containers) {
    const mounted = memberFiles(m.plugin);
    if (mounted.length) configMapGenerator.push({ name: filesConfigMap(m.plugin.id), files: mounted.map(([file]) => `${configKey(file)}=${file}`) });
  }
  for (const s of servers) {
    const file = serviceFilePath(s.id, s.manifest.databaseServer!.setup);
    configMapGenerator.push({ name: filesConfigMap(setupServiceName(s.id)), files: [`${setupScript(s)}=${file}`] });
  }
  if (skillFiles.length && containers.some((m) => m.plugin.kind === 'framework')) {
    configMapGenerator.push({ name: SKILLS_CONFIGMAP, files: skillFiles.map((f) => `${configKey(f)}=${f}`) });
  }
  // sizes of the claims: one line each to change here (kustomize puts them in place and leaves this map out)
  const claims = all.flatMap((w) => w.claims);
  const replacements: Obj[] = [];
  if (claims.length) {
    configMapGenerator.push({
      name: 'storage-sizes', options: LOCAL_ONLY,
      literals: claims.map((c) => `${c.key}=${c.kind === 'StatefulSet' ? DATABASE_CLAIM_SIZE : DEFAULT_CLAIM_SIZE}`),
    });
    for (const c of claims) {
      replacements.push({
        source: { kind: 'ConfigMap', name: 'storage-sizes', fieldPath: `data.${c.key}` },
        targets: [{
          select: { kind: c.kind, name: c.object },
          fieldPaths: [c.template !== null ? `spec.volumeClaimTemplates.${c.template}.spec.resources.requests.storage` : 'spec.resources.requests.storage'],
        }],
      });
    }
  }
  if (model.https && gateway.length) {
    configMapGenerator.push({ name: 'stack-settings', options: LOCAL_ONLY, envs: ['secrets/settings.env'] });
    replacements.push({
      source: { kind: 'ConfigMap', name: 'stack-settings', fieldPath: `data.${ACME_CA_VARIABLE}` },
      targets: [{ select: { kind: 'Issuer', name: ISSUER_NAME }, fieldPaths: ['spec.acme.server'] }],
    });
  }
  const images = new Map<string, string>();
  for (const w of containers) {
    const ref = imageRef(w.plugin, model.options.gpu);
    const at = ref.lastIndexOf(':');
    images.set(ref.slice(0, at), ref.slice(at + 1));
  }
  for (const s of servers) images.set(s.manifest.image, s.manifest.imageTag);
  const kustomization: Obj = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    namespace: ns,
    labels: [{ pairs: { 'app.kubernetes.io/managed-by': 'stackwright' } }],
    resources,
    // scripts/update.sh's counterpart: change a tag here and apply again (kubectl rollout undo goes back)
    images: [...images].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, newTag]) => ({ name, newTag })),
    ...(configMapGenerator.length ? { configMapGenerator } : {}),
    ...(secretGenerator.length ? { secretGenerator } : {}),
    ...(replacements.length ? { replacements } : {}),
  };
  files.set(KUSTOMIZATION_FILE, `# Generated by Stackwright for stack "${model.options.name}". Run scripts/secrets.sh first (it writes\n`
    + '# secrets/ from .env), then: kubectl apply -k .   See README.md.\n' + dumpYaml(kustomization));

  for (const file of SHARED_FILES) files.set(file, shared.get(file)!);
  files.set('.gitignore', '# written by scripts/secrets.sh: never commit them\n.env\nsecrets/\n');
  const context = {
    stack: { name: model.options.name, domain: model.options.domain ?? null },
    namespace: ns,
    secretFiles,
    // values a pod reads that nobody generates: .env must give them
    required: model.env.filter((v) => v.required && !v.secret && secretFiles.some((f) => f.keys.includes(v.key))).map((v) => v.key),
    proxyAuth: model.proxyAuth && gateway.length ? { file: `secrets/${AUTH_SECRET}.env`, userVariable: PROXY_USER_VARIABLE, passwordVariable: PROXY_PASSWORD_VARIABLE } : null,
    acme: model.https && gateway.length ? { variable: ACME_CA_VARIABLE, fallback: ACME_CA_DEFAULT } : null,
    secrets: model.env.filter((v) => v.secret).map((v) => ({ key: v.key, length: v.secret!.length, charset: v.secret!.charset, prefix: v.secret!.prefix })),
    workloads: all.map((w) => ({ id: w.id, kind: (w.objects[0] as { kind: string }).kind })),
    dumps: containers.filter((m) => m.plugin.kind === 'service' && (m.plugin as ServicePlugin).manifest.backup).map((m) => ({ id: m.plugin.id, ...(m.plugin as ServicePlugin).manifest.backup! })),
    routes: model.routes.map((r) => ({ name: routeName(r), url: r.url, service: r.service, protected: r.protected })),
    gateway: gateway.length ? { proxy: proxy!.manifest.name } : null,
    https: model.https,
    level,
    exceptions,
    claims: claims.map((c) => c.key),
    ports: model.ports.filter((p) => p.plugin !== proxy?.id).map((p) => ({ id: p.plugin, port: p.container, web: p.web })),
    sh: shellQuote,
  };
  files.set('README.md', templates.render('README.md', context));
  files.set(SECRETS_SCRIPT, templates.render('secrets.sh', context));
  return files;
}
