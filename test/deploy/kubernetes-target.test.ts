// deploymentType "kubernetes" (issue 32): every preset's Kustomize base, as the bundle's own script fills its
// secrets/, rendered by the real kubectl 1.35 (its built-in kustomize); every object it renders validated by
// kubernetes-models (core) and @kubernetes-models/gateway-api and cert-manager (CRDs), and through TypeScript's
// excess-property check on the same packages' types, which refuses a field the schema does not have at that
// place (a pod-level field on a container included); then what the model promises per object.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { Namespace, Secret, Service, ConfigMap, PersistentVolumeClaim } from 'kubernetes-models/v1';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { Gateway, HTTPRoute } from '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1';
import { Certificate, Issuer } from '@kubernetes-models/cert-manager/cert-manager.io/v1';
import { readConfig, REPO_ROOT } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { numericUser } from '../../src/catalogue/user-ids.js';
import { shippedCatalogue } from '../support/server.js';
import { writeBundle } from '../support/bundle.js';
import { KUBECTL, kustomize, runFile } from '../support/kubernetes.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 0, 0);

type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> }; spec?: any; data?: Record<string, string>; type?: string };

/** apiVersion/kind → model (runtime schema check) and the module and interface TypeScript checks it with */
const MODELS: Record<string, { model: new (data: any) => { validate(): void }; module: string; type: string }> = {
  'v1/Namespace': { model: Namespace, module: 'kubernetes-models/v1', type: 'INamespace' },
  'v1/Secret': { model: Secret, module: 'kubernetes-models/v1', type: 'ISecret' },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1', type: 'IService' },
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1', type: 'IConfigMap' },
  'v1/PersistentVolumeClaim': { model: PersistentVolumeClaim, module: 'kubernetes-models/v1', type: 'IPersistentVolumeClaim' },
  'apps/v1/Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1', type: 'IDeployment' },
  'apps/v1/StatefulSet': { model: StatefulSet, module: 'kubernetes-models/apps/v1', type: 'IStatefulSet' },
  'batch/v1/Job': { model: Job, module: 'kubernetes-models/batch/v1', type: 'IJob' },
  'networking.k8s.io/v1/NetworkPolicy': { model: NetworkPolicy, module: 'kubernetes-models/networking.k8s.io/v1', type: 'INetworkPolicy' },
  'gateway.networking.k8s.io/v1/Gateway': { model: Gateway, module: '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1', type: 'IGateway' },
  'gateway.networking.k8s.io/v1/HTTPRoute': { model: HTTPRoute, module: '@kubernetes-models/gateway-api/gateway.networking.k8s.io/v1', type: 'IHTTPRoute' },
  'cert-manager.io/v1/Issuer': { model: Issuer, module: '@kubernetes-models/cert-manager/cert-manager.io/v1', type: 'IIssuer' },
  'cert-manager.io/v1/Certificate': { model: Certificate, module: '@kubernetes-models/cert-manager/cert-manager.io/v1', type: 'ICertificate' },
};

/**
 * Traefik's Middleware has no published model here: the one shape we emit, checked field by field
 * (doc.traefik.io, "BasicAuth": spec.basicAuth.secret names a Secret; kubernetes.io/basic-auth is accepted).
 */
function checkMiddleware(m: Obj): void {
  assert.deepEqual(Object.keys(m).sort(), ['apiVersion', 'kind', 'metadata', 'spec']);
  assert.equal(m.apiVersion, 'traefik.io/v1alpha1');
  assert.deepEqual(Object.keys(m.spec), ['basicAuth']);
  assert.deepEqual(Object.keys(m.spec.basicAuth), ['secret']);
  assert.equal(typeof m.spec.basicAuth.secret, 'string');
}

interface Rendered { label: string; dir: string; files: Record<string, string>; objects: Obj[] }

const run = runFile;

/** The bundle written to disk, its secrets script run, `kubectl kustomize` over it. */
async function render(label: string, request: Parameters<Generator['generate']>[0]): Promise<Rendered> {
  const bundle = generator.generate({ deploymentType: 'kubernetes', ...request });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `sw-k8s-${label}-`));
  writeBundle(dir, bundle.files);
  await run(path.join(dir, 'scripts/secrets.sh'), []);
  const objects = await kustomize<Obj>(dir);
  return { label, dir, files: bundle.files, objects };
}

/** The .env keys scripts/secrets.sh filled with random values (empty in .env.example, set in .env). */
function generatedSecrets(dir: string): string[] {
  const read = (file: string) => new Map(fs.readFileSync(path.join(dir, file), 'utf8').split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  const example = read('.env.example');
  return [...read('.env')].filter(([k, value]) => example.get(k) === '' && value !== '').map(([k]) => k);
}

const presets = [...catalogue.presets.keys()].sort();
/** Presets with a service that drives the Docker engine: Kubernetes refuses them (TARGET_UNSUPPORTED), naming it. */
const dockerUsers = (id: string) => catalogue.presets.get(id)!.manifest.services.filter((s) => {
  const m = catalogue.services.get(s)!.manifest;
  return m.dockerApi || (m.hostMounts ?? []).some((h) => h.source.endsWith('docker.sock'));
});
const refused = new Set(presets.filter((p) => dockerUsers(p).length));
const renders: Rendered[] = [];

describe('deploymentType kubernetes', () => {
  test('kubectl 1.35 is there (scripts/install-test-tools.sh)', () => {
    assert.match(execFileSync(KUBECTL, ['version', '--client'], { encoding: 'utf8' }), /v1\.35\./);
  });

  test('presets with a service that drives the Docker engine are refused, naming it', () => {
    assert.ok(refused.size < presets.length / 4, [...refused].join(', '));
    for (const preset of refused) {
      assert.throws(() => generator.generate({ name: 'r', preset, proxy: 'traefik', deploymentType: 'kubernetes' }), (e: any) => {
        assert.equal(e.code, 'TARGET_UNSUPPORTED');
        for (const id of dockerUsers(preset)) assert.ok(e.details.errors.some((m: string) => m.startsWith(`"${id}" uses the Docker engine`)), `${preset}: ${id} named`);
        return true;
      });
    }
  });

  test('every other preset renders with kubectl kustomize (Traefik with a domain, a path-routed stack, no proxy)', async () => {
    const jobs: [string, Parameters<Generator['generate']>[0]][] = [
      ...presets.filter((p) => !refused.has(p)).map((preset) => [preset, { name: `p-${preset}`.slice(0, 40), preset, proxy: 'traefik', domain: 'example.com' }] as [string, Parameters<Generator['generate']>[0]]),
      ['paths', { name: 'paths', preset: 'full-stack', proxy: 'traefik' }],
      ['bare', { name: 'bare', preset: 'document-rag' }],
    ];
    // two at a time: the machine's two cores
    for (let i = 0; i < jobs.length; i += 2) renders.push(...await Promise.all(jobs.slice(i, i + 2).map(([label, request]) => render(label, request))));
    for (const r of renders) assert.ok(r.objects.length > 5, r.label);
  });

  test('every object passes its schema (kubernetes-models) and names only fields the schema has (TypeScript, strict)', async () => {
    assert.ok(renders.length);
    const lines: string[] = [];
    let i = 0;
    for (const r of renders) {
      for (const o of r.objects) {
        if (o.kind === 'Middleware') {
          checkMiddleware(o);
          continue;
        }
        const entry = MODELS[`${o.apiVersion}/${o.kind}`];
        assert.ok(entry, `${r.label}: no schema for ${o.apiVersion} ${o.kind}`);
        // kustomize folds long base64 lines; the API server's decoder skips line breaks, the schema's "byte" format does not
        const object = o.kind === 'Secret' ? { ...o, data: Object.fromEntries(Object.entries(o.data ?? {}).map(([k, v]) => [k, v.replace(/\n/g, '')])) } : o;
        assert.doesNotThrow(() => new entry.model(object).validate(), `${r.label}: ${o.kind} ${o.metadata.name}`);
        lines.push(`import type { ${entry.type} as T${i} } from '${entry.module}';\n// ${r.label} ${o.kind} ${o.metadata.name}\nexport const m${i}: T${i} = ${JSON.stringify(o)};`);
        i++;
      }
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-k8s-types-'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    fs.writeFileSync(path.join(dir, 'objects.ts'), lines.join('\n'));
    // the check catches the mistake kubernetes-models' runtime schema lets through: a pod field on a container
    fs.writeFileSync(path.join(dir, 'planted.ts'), `import type { IDeployment } from 'kubernetes-models/apps/v1';\nexport const d: IDeployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'x', automountServiceAccountToken: false }] } } } };`);
    const planted = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'x', automountServiceAccountToken: false }] } } } };
    assert.doesNotThrow(() => new Deployment(planted as any).validate(), 'the runtime schema alone accepts the misplaced field');
    const errors = await new Promise<string[]>((resolve) => {
      execFile(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'objects.ts', 'planted.ts'],
        { cwd: dir, maxBuffer: 64 * 1024 * 1024 }, (_e, stdout) => resolve(stdout.split('\n').filter((l) => /error TS/.test(l))));
    });
    assert.deepEqual(errors.filter((l) => !l.startsWith('planted.ts')), []);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /'automountServiceAccountToken' does not exist/);
  });

  test('pods: hardened as Compose is, probes from the health check, memory from the manifest, no token, their own Secret', () => {
    for (const r of renders) {
      const secrets = new Map(r.objects.filter((o) => o.kind === 'Secret').map((o) => [o.metadata.name, o]));
      for (const w of r.objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind))) {
        const id = w.metadata.name;
        const pod = w.spec.template.spec;
        const where = `${r.label} ${w.kind} ${id}`;
        assert.equal(pod.automountServiceAccountToken, false, where);
        assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault', where);
        for (const c of pod.initContainers ?? []) {
          assert.equal(c.securityContext.allowPrivilegeEscalation, false, where);
          assert.equal(c.securityContext.readOnlyRootFilesystem, true, where);
        }
        const [c] = pod.containers;
        const plugin = catalogue.services.get(id) ?? catalogue.frameworks.get(id);
        if (plugin) {
          const m = plugin.manifest;
          assert.equal(c.resources.requests.memory, `${m.minMemoryMB}Mi`, where);
          assert.equal(c.resources.limits.memory, `${m.memoryLimitMB}Mi`, where);
          if (!m.hardening.unsupported) {
            assert.equal(c.securityContext.allowPrivilegeEscalation, false, where);
            assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], where);
            assert.deepEqual(c.securityContext.capabilities.add ?? [], [...(m.hardening.capAdd ?? [])].sort(), where);
          }
          if (m.healthcheck) {
            assert.ok(c.readinessProbe?.exec && c.livenessProbe?.exec, `${where}: probes`);
            assert.equal(Boolean(c.startupProbe), Boolean(m.healthcheck.startPeriod), `${where}: startup probe iff start_period`);
          }
          if (m.stop) assert.ok(pod.terminationGracePeriodSeconds > 0, where);
          // a numeric manifest user (else the user the image starts as) is the pod's user, and a user other than root
          // gets the claims' group: its own, or its uid where that is root's (a name cannot be carried)
          const user = numericUser(m.user) ?? (m.user === undefined ? numericUser(m.imageUser) : null);
          if (user) {
            assert.equal(c.securityContext.runAsUser, user.uid, `${where}: runAsUser`);
            if (user.gid !== undefined) assert.equal(c.securityContext.runAsGroup, user.gid, `${where}: runAsGroup`);
          }
          if (user && user.uid !== 0) {
            assert.equal(c.securityContext.runAsNonRoot, true, `${where}: runAsNonRoot`);
            assert.equal(pod.securityContext.fsGroup, user.gid || user.uid, `${where}: fsGroup`);
            assert.equal(pod.securityContext.fsGroupChangePolicy, 'OnRootMismatch', `${where}: fsGroupChangePolicy`);
          } else {
            assert.equal(pod.securityContext.fsGroup, undefined, `${where}: no fsGroup for a pod that starts as root or as a named user`);
          }
          assert.equal(w.kind === 'StatefulSet', Boolean((m as any).databaseServer || (m as any).backup), `${where}: databases are StatefulSets`);
        }
        // every secret value comes from this pod's own Secret, which holds exactly the keys it reads
        const refs = [...pod.containers, ...(pod.initContainers ?? [])].flatMap((x: any) => (x.env ?? []).filter((e: any) => e.valueFrom).map((e: any) => e.valueFrom.secretKeyRef));
        const names = new Set(refs.map((ref: any) => ref.name));
        assert.ok(names.size <= 1, `${where}: one Secret`);
        for (const name of names) {
          assert.match(name as string, new RegExp(`^${id}-env-[a-z0-9]+$`), where);
          assert.deepEqual(Object.keys(secrets.get(name as string)!.data ?? {}).sort(), [...new Set(refs.map((ref: any) => ref.key as string))].sort(), `${where}: the Secret holds only what the pod reads`);
        }
      }
      const generated = generatedSecrets(r.dir);
      assert.ok(generated.length, `${r.label}: the script generated secrets`);
      const secretValues = r.objects.filter((o) => o.kind === 'Secret').flatMap((o) => Object.entries(o.data ?? {}).filter(([k]) => generated.includes(k)).map(([, v]) => Buffer.from(v, 'base64').toString()));
      assert.ok(secretValues.length, `${r.label}: generated secrets reach Secrets`);
      const notSecret = JSON.stringify(r.objects.filter((o) => o.kind !== 'Secret'));
      for (const v of secretValues) assert.ok(!notSecret.includes(v), `${r.label}: a generated secret's value outside a Secret`);
      for (const file of Object.keys(r.files)) assert.ok(!file.startsWith('secrets/') && file !== '.env', `${r.label}: ${file} is in the bundle`);
    }
  });

  test('PostgreSQL (engine run, k8s-pods): its numeric user owns the claim through fsGroup, and its data is one folder inside the claim', () => {
    const r = renders.find((x) => x.label === 'full-stack')!;
    const pg = r.objects.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'postgresql')!;
    const pod = pg.spec.template.spec;
    const [c] = pod.containers;
    // a named user cannot become runAsUser: the image started as root with every capability dropped could not chown
    assert.equal(c.securityContext.runAsUser, 999);
    assert.equal(c.securityContext.runAsGroup, 999);
    assert.equal(c.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.fsGroup, 999);
    // the kubelet's default walks every file at each mount adding group write, which PostgreSQL refuses on its data
    // folder ("has invalid permissions") after a restart: only a claim whose top folder is not the group's yet
    assert.equal(pod.securityContext.fsGroupChangePolicy, 'OnRootMismatch');
    // initdb cannot own a claim's root (root-owned, lost+found): PGDATA one folder down, which it makes itself
    const mount = c.volumeMounts.find((m: any) => m.name === 'data');
    assert.deepEqual(c.env.filter((e: any) => e.name === 'PGDATA'), [{ name: 'PGDATA', value: `${mount.mountPath}/pgdata` }]);
    const ns = r.objects.find((o) => o.kind === 'Namespace')!;
    assert.doesNotMatch(ns.metadata.annotations?.['stackwright.dev/pod-security-exceptions'] ?? '', /postgresql:/);
  });

  test('the six images that run as a named user carry its numbers (upstream uid:gid), so none is a Pod Security exception', () => {
    // uid:gid of each image's user at the pinned tag, as the manifests cite them
    const expected: Record<string, [number, number]> = {
      redis: [999, 1000], rabbitmq: [999, 999], searxng: [977, 977], vectorchord: [999, 999], neo4j: [7474, 7474], 'playwright-server': [1001, 1001],
    };
    const files = generator.generate({ name: 'named-users', services: Object.keys(expected), deploymentType: 'kubernetes' }).files;
    for (const [id, [uid, gid]] of Object.entries(expected)) {
      const workload = (yaml.loadAll(files[`kubernetes/${id}.yaml`]) as Obj[]).find((o) => ['Deployment', 'StatefulSet'].includes(o.kind) && o.metadata.name === id)!;
      const pod = workload.spec.template.spec;
      const [c] = pod.containers;
      assert.deepEqual([c.securityContext.runAsUser, c.securityContext.runAsGroup, c.securityContext.runAsNonRoot, pod.securityContext.fsGroup], [uid, gid, true, gid], id);
    }
    const ns = yaml.load(files['kubernetes/namespace.yaml']) as Obj;
    const exceptions = ns.metadata.annotations?.['stackwright.dev/pod-security-exceptions'] ?? '';
    for (const id of Object.keys(expected)) assert.ok(!exceptions.split(' | ').some((e) => e.startsWith(`${id}:`)), `${id} named in: ${exceptions}`);
    // VectorChord is PostgreSQL's image: initdb as uid 999 cannot own a claim's root either, so PGDATA goes one folder down
    const vc = (yaml.loadAll(files['kubernetes/vectorchord.yaml']) as Obj[]).find((o) => o.kind === 'StatefulSet')!.spec.template.spec.containers[0];
    assert.deepEqual(vc.env.filter((e: any) => e.name === 'PGDATA'), [{ name: 'PGDATA', value: '/var/lib/postgresql/data/pgdata' }]);
  });

  test('network: default deny, DNS, and only the edges the model knows', () => {
    const fs1 = renders.find((r) => r.label === 'full-stack')!;
    const policies = fs1.objects.filter((o) => o.kind === 'NetworkPolicy');
    const deny = policies.find((p) => p.metadata.name === 'default-deny')!;
    assert.deepEqual(deny.spec, { podSelector: {}, policyTypes: ['Ingress', 'Egress'] });
    const pg = policies.find((p) => p.metadata.name === 'postgresql')!;
    const from = pg.spec.ingress[0].from.map((f: any) => f.podSelector.matchLabels['app.kubernetes.io/name']).sort();
    // the consumers of its databases and its setup Job; nobody else
    const consumers = [...new Set(generatorModelConsumers('full-stack'))];
    assert.deepEqual(from, [...consumers, 'postgresql-setup'].sort());
    // a service nobody uses gets no ingress but the gateway's
    for (const p of policies.filter((x) => x.spec.ingress)) {
      for (const rule of p.spec.ingress) for (const peer of rule.from) assert.ok(peer.podSelector, `${p.metadata.name}: every peer is named`);
    }
  });

  test('routes: HTTPRoutes on the Traefik Gateway, basic auth where Compose has it, certificates from the ACME CA in .env', () => {
    const r = renders.find((x) => x.label === 'full-stack')!;
    const routes = r.objects.filter((o) => o.kind === 'HTTPRoute' && o.metadata.name !== 'https-redirect');
    assert.ok(routes.length > 3);
    const compose = generator.generate({ name: 'fs-compose', preset: 'full-stack', proxy: 'traefik', domain: 'example.com' });
    const dynamic = yaml.load(compose.files['proxy/traefik/dynamic.yml'] ?? Object.entries(compose.files).find(([f]) => f.endsWith('dynamic.yml'))![1]) as any;
    const composeRouters = dynamic.http.routers as Record<string, { middlewares?: string[]; rule: string }>;
    for (const route of routes) {
      const host = route.spec.hostnames[0];
      const router = Object.values(composeRouters).find((x) => x.rule.includes(host));
      assert.ok(router, `${host} is routed by Compose's Traefik too`);
      const auth = (route.spec.rules[0].filters ?? []).some((f: any) => f.type === 'ExtensionRef' && f.extensionRef.kind === 'Middleware');
      assert.equal(auth, (router!.middlewares ?? []).length > 0, `${host}: basic auth as in Compose`);
    }
    const gateway = r.objects.find((o) => o.kind === 'Gateway')!;
    assert.equal(gateway.spec.gatewayClassName, 'traefik');
    const auth = r.objects.find((o) => o.kind === 'Secret' && o.metadata.name === 'proxy-auth')!;
    assert.equal(auth.type, 'kubernetes.io/basic-auth');
    assert.deepEqual(Object.keys(auth.data!).sort(), ['password', 'username']);
    // STACK_ACME_CA reaches the Issuer
    fs.appendFileSync(path.join(r.dir, '.env'), '\nSTACK_ACME_CA=https://acme.test/dir\n');
    execFileSync(path.join(r.dir, 'scripts/secrets.sh'), { stdio: 'pipe' });
    const again = (yaml.loadAll(execFileSync(KUBECTL, ['kustomize', r.dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Obj[]).filter(Boolean);
    assert.equal(again.find((o) => o.kind === 'Issuer')!.spec.acme.server, 'https://acme.test/dir');
    assert.equal(r.objects.find((o) => o.kind === 'Issuer')!.spec.acme.server, 'https://acme-v02.api.letsencrypt.org/directory');
    // local-only maps feed the replacements and stay out of the output
    assert.ok(!again.some((o) => o.kind === 'ConfigMap' && ['storage-sizes', 'stack-settings'].includes(o.metadata.name)));
  });

  test('storage sizes are one line each in kustomization.yaml', () => {
    const r = renders.find((x) => x.label === 'full-stack')!;
    const k = path.join(r.dir, 'kustomization.yaml');
    fs.writeFileSync(k, fs.readFileSync(k, 'utf8').replace('postgresql-data=10Gi', 'postgresql-data=42Gi'));
    const out = (yaml.loadAll(execFileSync(KUBECTL, ['kustomize', r.dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Obj[]).filter(Boolean);
    assert.equal(out.find((o) => o.kind === 'StatefulSet' && o.metadata.name === 'postgresql')!.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '42Gi');
  });

  test('Pod Security: restricted only where every pod qualifies, else the exceptions are named', () => {
    for (const r of renders) {
      const ns = r.objects.find((o) => o.kind === 'Namespace')!;
      const level = ns.metadata.labels!['pod-security.kubernetes.io/enforce'];
      const exceptions = ns.metadata.annotations?.['stackwright.dev/pod-security-exceptions'];
      assert.equal(level === 'restricted', !exceptions, r.label);
      assert.equal(ns.metadata.labels!['pod-security.kubernetes.io/warn'], 'restricted');
    }
  });

  test('a generator with fragment caches gives the same files as one without, twice over', () => {
    const cached = new Generator(catalogue, readConfig({}).templatesDir, 2000);
    for (const request of [{ name: 'c1', preset: 'full-stack', proxy: 'traefik', domain: 'example.com' }, { name: 'c2', preset: 'document-rag' }]) {
      const plain = generator.generate({ ...request, deploymentType: 'kubernetes' }).files;
      assert.deepEqual(cached.generate({ ...request, deploymentType: 'kubernetes' }).files, plain);
      assert.deepEqual(cached.generate({ ...request, name: `${request.name}x`, deploymentType: 'kubernetes' }).files['kubernetes/namespace.yaml'], generator.generate({ ...request, name: `${request.name}x`, deploymentType: 'kubernetes' }).files['kubernetes/namespace.yaml']);
    }
  });

  test('the secrets script is safe to run again and keeps .env', () => {
    const r = renders.find((x) => x.label === 'bare')!;
    const before = fs.readFileSync(path.join(r.dir, '.env'), 'utf8');
    const files = fs.readdirSync(path.join(r.dir, 'secrets')).sort();
    execFileSync(path.join(r.dir, 'scripts/secrets.sh'), { stdio: 'pipe' });
    assert.equal(fs.readFileSync(path.join(r.dir, '.env'), 'utf8'), before);
    assert.deepEqual(fs.readdirSync(path.join(r.dir, 'secrets')).sort(), files);
    assert.equal(fs.statSync(path.join(r.dir, 'secrets', files[0])).mode & 0o077, 0, 'secrets/ files are the owner\'s only');
  });
});

/** The consumers of PostgreSQL's databases in a preset, from the same model the emitters read. */
function generatorModelConsumers(preset: string): string[] {
  const compose = yaml.load(generator.generate({ name: 'consumers', preset, proxy: 'traefik', domain: 'example.com' }).files['docker-compose.yml']) as any;
  return Object.entries(compose.services as Record<string, any>)
    .filter(([id, s]) => id !== 'postgresql-setup' && s.depends_on?.['postgresql-setup'])
    .map(([id]) => id);
}
