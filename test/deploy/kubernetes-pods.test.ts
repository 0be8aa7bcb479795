// The pod runner's translator (test/real-engine/pod-runner.ts) on a rendered preset, without an engine: the docker
// flags each pod field becomes, values from the rendered Secrets, probes expanded as the kubelet does, and every
// field it does not know refused by name (a run on the engine must never pass by dropping part of a pod).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { writeBundle } from '../support/bundle.js';
import { expand, kustomize, runFile } from '../support/kubernetes.js';
import { shippedCatalogue } from '../support/server.js';
import { bytes, planPods, UnsupportedField, type K8sObject, type Plan } from '../real-engine/pod-runner.js';
import { envValue } from '../real-engine/stack.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 0, 0);
const options = { project: 'p', filesDir: '/tmp/pod-files' };

let dir: string;
let objects: K8sObject[];
let plan: Plan;

const pod = (name: string) => plan.pods.find((p) => p.pod === name)!;
const flag = (args: string[], name: string) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
/** The objects with one change made to a copy. */
function changed(edit: (objects: any[]) => void): K8sObject[] {
  const copy = structuredClone(objects);
  edit(copy);
  return copy;
}
const workload = (os: any[], name: string) => os.find((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind) && o.metadata.name === name);

describe('the pod runner translates rendered pods into docker run flags', () => {
  before(async () => {
    const bundle = generator.generate({ name: 'pods', preset: 'content-monitoring', proxy: 'traefik', deploymentType: 'kubernetes' });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sw-k8s-pods-'));
    writeBundle(dir, bundle.files);
    await runFile(path.join(dir, 'scripts/secrets.sh'), []);
    objects = await kustomize<K8sObject>(dir);
    plan = planPods(objects, options);
  });

  test('one pod per Deployment, StatefulSet and Job; the rest is read or listed as not run', () => {
    const workloads = objects.filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
    assert.equal(plan.pods.length, workloads.length);
    assert.ok(pod('postgresql-0'), 'a StatefulSet pod is named <set>-0');
    assert.ok(plan.notRun.some((n) => n.startsWith('NetworkPolicy ')));
    assert.ok(plan.notRun.some((n) => n.startsWith('HTTPRoute ')));
  });

  test('hardening: capabilities, no-new-privileges, user and fsGroup, read-only root for the helpers, memory without swap', () => {
    const pg = pod('postgresql-0').containers[0];
    assert.deepEqual(flag(pg.args, '--cap-drop'), ['ALL']);
    assert.deepEqual(flag(pg.args, '--security-opt'), ['no-new-privileges']);
    assert.deepEqual(flag(pg.args, '--memory'), [String(1024 * 1024 ** 2)]);
    assert.deepEqual(flag(pg.args, '--memory-swap'), flag(pg.args, '--memory'));
    assert.deepEqual(flag(pg.args, '--stop-timeout'), ['120']);
    const wait = pod('miniflux').init[0];
    assert.equal(wait.name, 'wait-for-postgresql');
    assert.ok(wait.args.includes('--read-only'));
    assert.deepEqual(flag(wait.args, '--user'), ['65534:65534']);
    const apprise = pod('apprise-api');
    assert.deepEqual(flag(apprise.containers[0].args, '--user'), ['1000:1000']);
    assert.deepEqual(flag(apprise.containers[0].args, '--group-add'), ['1000']);
    assert.ok(apprise.claims.every((c) => c.fsGroup === 1000));
  });

  test('volumes: claims as empty named volumes, a Memory emptyDir as a sized tmpfs, ConfigMap keys as read-only files', () => {
    const pg = pod('postgresql-0');
    assert.deepEqual(pg.claims.map((c) => c.claim), ['data-postgresql-0']);
    assert.ok(pg.containers[0].args.includes('type=volume,src=p-data-postgresql-0,dst=/var/lib/postgresql/data,volume-nocopy'));
    const shm = flag(pod('browserless').containers[0].args, '--tmpfs');
    assert.equal(shm.length, 1);
    assert.match(shm[0], /^\/dev\/shm:rw,exec,nosuid,nodev,mode=0777,size=\d+$/);
    const setup = pod('postgresql-setup');
    assert.ok(setup.containers[0].args.some((a) => /^type=bind,src=.*create-databases\.sh,dst=\/setup\/create-databases\.sh,readonly$/.test(a)));
    const script = plan.files.find((f) => f.path.endsWith('create-databases.sh'))!;
    assert.equal(script.content, fs.readFileSync(path.join(dir, 'config/postgresql/create-databases.sh'), 'utf8'));
  });

  test('environment from the rendered Secrets (as scripts/secrets.sh filled them), $(VAR) expanded, probes expanded from literal values only', () => {
    const env = fs.readFileSync(path.join(dir, '.env'), 'utf8');
    const password = envValue(env, 'MINIFLUX_DB_PASSWORD')!;
    assert.ok(password.length >= 16);
    const miniflux = pod('miniflux').containers[0];
    assert.ok(miniflux.args.includes(`DATABASE_URL=postgres://miniflux:${password}@postgresql:5432/miniflux?sslmode=disable`), miniflux.args.join(' '));
    assert.ok(miniflux.args.includes(`DB_PASSWORD=${password}`));
    const pg = pod('postgresql-0').containers[0];
    const startup = pg.probes.find((p) => p.kind === 'startup')!;
    // rendered as $${POSTGRES_USER}: the kubelet hands the shell ${POSTGRES_USER}
    assert.deepEqual(startup.command, ['sh', '-c', 'pg_isready -h 127.0.0.1 -U "${POSTGRES_USER}" -d "${POSTGRES_DB}"']);
    assert.deepEqual(pg.probes.map((p) => p.kind), ['startup', 'readiness', 'liveness']);
    assert.equal(startup.failureThreshold, 7);
  });

  test('Services become network aliases of the pods they select; a Job gets backoffLimit + 1 attempts', () => {
    assert.deepEqual(pod('postgresql-0').services, ['postgresql']);
    assert.equal(pod('postgresql-setup').attempts, 11);
    assert.equal(pod('miniflux').attempts, undefined);
  });

  test('a field, kind or value the runner does not know is refused by name, never dropped', () => {
    const refused: [string, (os: any[]) => void, RegExp][] = [
      ['a pod field', (os) => { workload(os, 'miniflux').spec.template.spec.hostNetwork = true; }, /pod\.hostNetwork is not understood/],
      ['a container field', (os) => { workload(os, 'miniflux').spec.template.spec.containers[0].lifecycle = { preStop: {} }; }, /container\.lifecycle is not understood/],
      ['a securityContext field', (os) => { workload(os, 'miniflux').spec.template.spec.containers[0].securityContext.procMount = 'Unmasked'; }, /container\.securityContext\.procMount/],
      ['a hostPath volume', (os) => { workload(os, 'miniflux').spec.template.spec.volumes = [{ name: 'h', hostPath: { path: '/' } }]; }, /volume\.hostPath is not understood/],
      ['a kind', (os) => { os.push({ apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'd' }, spec: {} }); }, /DaemonSet d: kind not understood/],
      ['an httpGet probe', (os) => { workload(os, 'miniflux').spec.template.spec.containers[0].livenessProbe = { httpGet: { port: 8080 } }; }, /livenessProbe without exec/],
      ['a missing Secret', (os) => { os.splice(os.findIndex((o: any) => o.kind === 'Secret' && o.metadata.name.startsWith('miniflux-env')), 1); }, /secretKeyRef miniflux-env-\S+ is not among the rendered objects/],
      ['two replicas', (os) => { workload(os, 'miniflux').spec.replicas = 2; }, /replicas 2/],
      ['a token', (os) => { workload(os, 'miniflux').spec.template.spec.automountServiceAccountToken = true; }, /automountServiceAccountToken/],
      ['a Service moving its port', (os) => { os.find((o: any) => o.kind === 'Service' && o.metadata.name === 'miniflux').spec.ports[0].targetPort = 9999; }, /targetPort 9999/],
    ];
    for (const [what, edit, message] of refused) {
      assert.throws(() => planPods(changed(edit), options), (e: unknown) => e instanceof UnsupportedField && message.test(e.message), what);
    }
  });

  test('the kubelet expansion and quantities', () => {
    const defined = new Map([['A', 'x'], ['B', '$(A)']]);
    assert.equal(expand('$$(A) $(A) $(C) $x $', defined), '$(A) x $(C) $x $');
    assert.equal(bytes('512Mi', 'q'), 512 * 1024 ** 2);
    assert.equal(bytes('2Gi', 'q'), 2 * 1024 ** 3);
    assert.throws(() => bytes('1.5Gi', 'q'), UnsupportedField);
  });
});
