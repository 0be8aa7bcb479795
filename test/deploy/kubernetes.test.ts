// contrib/kubernetes/ against the Kubernetes OpenAPI schemas, as the kubernetes-models package ships them:
// each object through its generated validator (types, required fields, enums), and through TypeScript's
// excess-property check on the same package's types (a misspelt field is an error, as kubectl's strict
// field validation makes it); then what an operator relies on: probes, security, the Secret, the selectors.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { ServiceAccount, ConfigMap, Service } from 'kubernetes-models/v1';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { REPO_ROOT } from '../../src/config.js';

const DIR = path.join(REPO_ROOT, 'contrib/kubernetes');
/** apiVersion/kind → the model that validates it, and the module and interface TypeScript checks it with */
const MODELS: Record<string, { model: new (data: any) => { validate(): void }; module: string; type: string }> = {
  'v1/ServiceAccount': { model: ServiceAccount, module: 'kubernetes-models/v1', type: 'IServiceAccount' },
  'v1/ConfigMap': { model: ConfigMap, module: 'kubernetes-models/v1', type: 'IConfigMap' },
  'v1/Service': { model: Service, module: 'kubernetes-models/v1', type: 'IService' },
  'apps/v1/Deployment': { model: Deployment, module: 'kubernetes-models/apps/v1', type: 'IDeployment' },
  'policy/v1/PodDisruptionBudget': { model: PodDisruptionBudget, module: 'kubernetes-models/policy/v1', type: 'IPodDisruptionBudget' },
  'networking.k8s.io/v1/NetworkPolicy': { model: NetworkPolicy, module: 'kubernetes-models/networking.k8s.io/v1', type: 'INetworkPolicy' },
};

interface Manifest { file: string; apiVersion: string; kind: string; metadata: { name: string }; spec?: any; [field: string]: any }

const manifests: Manifest[] = fs.readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort().flatMap((file) =>
  (yaml.loadAll(fs.readFileSync(path.join(DIR, file), 'utf8')) as Manifest[]).filter(Boolean).map((m) => ({ ...m, file })));
const find = (kind: string, name: string) => {
  const found = manifests.find((m) => m.kind === kind && m.metadata.name === name);
  assert.ok(found, `${kind} ${name} is in contrib/kubernetes/`);
  return found;
};
const strip = (m: Manifest) => Object.fromEntries(Object.entries(m).filter(([k]) => k !== 'file'));

describe('the Kubernetes manifests', () => {
  test('every object is valid against the Kubernetes OpenAPI schemas', () => {
    assert.ok(manifests.length >= 8);
    for (const m of manifests) {
      const entry = MODELS[`${m.apiVersion}/${m.kind}`];
      assert.ok(entry, `${m.file}: no schema for ${m.apiVersion} ${m.kind}`);
      assert.doesNotThrow(() => new entry.model(strip(m)).validate(), `${m.file}: ${m.kind} ${m.metadata.name}`);
    }
    // the validator is not a rubber stamp: a wrong type is refused
    const broken = structuredClone(strip(find('Deployment', 'stackwright')));
    (broken.spec as any).template.spec.containers[0].ports[0].containerPort = 'http';
    assert.throws(() => new Deployment(broken).validate(), /containerPort must be integer/);
  });

  test('no object holds a field the schemas do not know (TypeScript excess-property check on the models\' types)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-k8s-'));
    fs.symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    const lines = manifests.map((m, i) => {
      const entry = MODELS[`${m.apiVersion}/${m.kind}`];
      return `import type { ${entry.type} as T${i} } from '${entry.module}';\nexport const m${i}: T${i} = ${JSON.stringify(strip(m), null, 2)};`;
    });
    const typo = `import type { IDeployment as Typo } from 'kubernetes-models/apps/v1';\nexport const typo: Typo = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'x' }, spec: { selector: {}, template: { spec: { containers: [{ name: 'x', securityContex: {} }] } } } };`;
    fs.writeFileSync(path.join(dir, 'manifests.ts'), lines.join('\n'));
    fs.writeFileSync(path.join(dir, 'typo.ts'), typo);
    // one compiler run over both: the manifests must have no error, the planted typo exactly its own
    const errors = await new Promise<string[]>((resolve) => {
      execFile(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--skipLibCheck', 'manifests.ts', 'typo.ts'], { cwd: dir }, (_e, stdout) => resolve(stdout.split('\n').filter((l) => /error TS/.test(l))));
    });
    assert.deepEqual(errors.filter((l) => !l.startsWith('typo.ts')), []);
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(errors[0], /'securityContex' does not exist/, 'the check catches a misspelt field');
  });

  test('the Deployment: several replicas, probes on /livez and /readyz, non-root and read-only, resources, the key from a Secret, Redis', () => {
    const deployment = find('Deployment', 'stackwright');
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    assert.ok(deployment.spec.replicas >= 2);
    assert.equal(deployment.spec.strategy.rollingUpdate.maxUnavailable, 0);
    const port = container.ports.find((p: any) => p.name === 'http');
    assert.equal(port.containerPort, 8080);
    assert.deepEqual([container.livenessProbe.httpGet.path, container.livenessProbe.httpGet.port], ['/livez', 'http']);
    assert.deepEqual([container.readinessProbe.httpGet.path, container.readinessProbe.httpGet.port], ['/readyz', 'http']);
    // the image's user (Dockerfile: USER node, uid 1000), never root
    assert.equal(pod.securityContext.runAsNonRoot, true);
    assert.equal(pod.securityContext.runAsUser, 1000);
    assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
    assert.equal(pod.automountServiceAccountToken, false);
    for (const c of [...pod.initContainers, ...pod.containers]) {
      assert.equal(c.securityContext.readOnlyRootFilesystem, true, c.name);
      assert.equal(c.securityContext.allowPrivilegeEscalation, false, c.name);
      assert.deepEqual(c.securityContext.capabilities.drop, ['ALL'], c.name);
      assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory, `${c.name} has resources`);
    }
    const env = Object.fromEntries(container.env.map((e: any) => [e.name, e]));
    assert.deepEqual(env.STACK_API_KEY.valueFrom.secretKeyRef, { name: 'stackwright', key: 'api-key' });
    const redisService = find('Service', 'stackwright-redis');
    assert.equal(env.REDIS_URL.value, `redis://${redisService.metadata.name}:${redisService.spec.ports[0].port}`);
    // the drain fits in the grace period Kubernetes gives before SIGKILL
    assert.ok(Number(env.STACK_SHUTDOWN_GRACE_MS.value) / 1000 + Number(env.STACK_SHUTDOWN_TIMEOUT_SECONDS.value) < pod.terminationGracePeriodSeconds);
    // /tmp is writable (the start-up snapshot) and the plugins folder comes from the ConfigMap over the image's
    const mounts = Object.fromEntries(container.volumeMounts.map((v: any) => [v.mountPath, v.name]));
    assert.ok(mounts['/tmp'] && mounts['/app/plugins']);
    const volumes = Object.fromEntries(pod.volumes.map((v: any) => [v.name, v]));
    assert.equal(volumes['extra-plugins'].configMap.name, find('ConfigMap', 'stackwright-plugins').metadata.name);
    assert.match(pod.initContainers[0].command.join(' '), /cp -R \/app\/plugins\/\. \/plugins\/ && cp -RL \/extra-plugins\/\. \/plugins\//);
  });

  test('the Service, PodDisruptionBudget and NetworkPolicies select the pods they are for', () => {
    const labels = (name: string) => find('Deployment', name).spec.template.metadata.labels as Record<string, string>;
    const matches = (selector: Record<string, string>, podLabels: Record<string, string>) => Object.entries(selector).every(([k, v]) => podLabels[k] === v);
    const app = labels('stackwright');
    const redis = labels('stackwright-redis');
    assert.ok(matches(find('Service', 'stackwright').spec.selector, app));
    assert.equal(find('Service', 'stackwright').spec.ports[0].targetPort, 'http');
    assert.ok(matches(find('PodDisruptionBudget', 'stackwright').spec.selector.matchLabels, app));
    assert.ok(matches(find('Service', 'stackwright-redis').spec.selector, redis));
    const policy = find('NetworkPolicy', 'stackwright');
    assert.ok(matches(policy.spec.podSelector.matchLabels, app));
    assert.deepEqual(policy.spec.policyTypes, ['Ingress', 'Egress']);
    assert.ok(matches(policy.spec.egress[0].to[0].podSelector.matchLabels, redis), 'the service may reach Redis');
    const redisPolicy = find('NetworkPolicy', 'stackwright-redis');
    assert.ok(matches(redisPolicy.spec.podSelector.matchLabels, redis));
    assert.ok(matches(redisPolicy.spec.ingress[0].from[0].podSelector.matchLabels, app), 'only the service reaches Redis');
    assert.deepEqual(redisPolicy.spec.egress, []);
  });
});
