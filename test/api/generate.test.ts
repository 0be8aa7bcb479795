// POST /api/v1/generate through HTTP: the JSON bundle, the tar download, determinism and failures.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { Generator } from '../../src/pipeline/generate.js';
import { apiError, okData, shippedCatalogue, startServer, type TestServer } from '../support/server.js';
import { composeVariables, envExampleKeys, readTarGz } from '../support/bundle.js';

let server: TestServer;
before(async () => { server = await startServer(); });
after(() => server.close());

const generate = (body: unknown) => server.post('/api/v1/generate', body);
type Bundle = { name: string; files: Record<string, string>; summary: { services: number; skills: number; proxy: string; estimatedMemoryMB: number; memoryLimitMB: number } };

describe('format json', () => {
  test('holds the files the spec lists and a summary', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'demo', preset: 'research-assistant', proxy: 'caddy', domain: 'example.com' }));
    assert.equal(bundle.name, 'demo');
    for (const file of ['docker-compose.yml', '.env.example', 'caddy/Caddyfile', 'configs/openclaw/config.yaml', 'scripts/start.sh',
      'scripts/stop.sh', 'scripts/update.sh', 'scripts/backup.sh', 'scripts/status.sh', 'README.md']) {
      assert.ok(bundle.files[file], `missing ${file}`);
    }
    assert.ok(!Object.keys(bundle.files).some((f) => f.startsWith('native/') || f === 'install.sh'), 'no bare-metal files for docker');
    const validated = await okData(await server.post('/api/v1/validate', { preset: 'research-assistant', proxy: 'caddy' }));
    assert.deepEqual(bundle.summary, {
      services: validated.resolvedServices.length, skills: validated.resolvedSkills.length, proxy: 'caddy',
      estimatedMemoryMB: validated.estimatedMemoryMB, memoryLimitMB: validated.memoryLimitMB,
    });
    // the README names both figures, each with what it means
    assert.match(bundle.files['README.md'], new RegExp(`Memory needed: about \\*\\*${validated.estimatedMemoryMB} MB\\*\\* \\(the sum of each part's minimum`));
    assert.match(bundle.files['README.md'], new RegExp(`Memory limit: at most \\*\\*${validated.memoryLimitMB} MB\\*\\* \\(the sum of each part's memory limit`));
    assert.deepEqual(Object.keys(bundle.files), Object.keys(bundle.files).sort(), 'files in a stable order');
  });

  test('the answer for a new name is exactly the envelope of a bundle rendered from scratch, Content-Length included', async () => {
    const fresh = new Generator(shippedCatalogue(), server.config.templatesDir, 0);
    // the first name renders the request's shape; the later ones are bound into it and sent as its shared buffers
    for (const name of ['first-name', 'second', 'a-third-one']) {
      const request = { name, preset: 'full-stack', proxy: 'caddy', domain: 'example.com' };
      const res = await generate(request);
      const body = Buffer.from(await res.arrayBuffer());
      assert.equal(Number(res.headers.get('content-length')), body.length, name);
      assert.equal(body.toString(), JSON.stringify({ ok: true, data: fresh.generate(request) }), name);
    }
  });

  test('summary.proxy is "none" without a proxy, and no proxy file is written', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'plain' }));
    assert.equal(bundle.summary.proxy, 'none');
    assert.deepEqual(Object.keys(bundle.files).filter((f) => /caddy|traefik|nginx/.test(f)), []);
  });

  test('every variable the compose file needs is in .env.example; secrets are left empty', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'vars', preset: 'full-stack', proxy: 'traefik' }));
    const keys = envExampleKeys(bundle.files['.env.example']);
    for (const v of composeVariables(bundle.files['docker-compose.yml'])) assert.ok(keys.has(v.name), `${v.name} not in .env.example`);
    assert.equal(keys.get('COMPOSE_PROJECT_NAME'), 'vars');
    assert.equal(keys.get('POSTGRESQL_POSTGRES_PASSWORD'), '');
    const compose = yaml.load(bundle.files['docker-compose.yml']) as { name?: string; services: Record<string, { environment?: Record<string, string> }> };
    assert.equal(compose.name, undefined, 'no top-level name: Compose v1 rejects it');
    assert.match(compose.services.postgresql.environment!.POSTGRES_PASSWORD, /^\$\{POSTGRESQL_POSTGRES_PASSWORD:\?/);
  });

  test('service ports listen on 127.0.0.1 unless .env opens them; the proxy listens everywhere only with a public domain', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'bind', services: ['redis'], proxy: 'caddy', domain: 'example.com' }));
    const compose = yaml.load(bundle.files['docker-compose.yml']) as { services: Record<string, { ports: string[] }> };
    assert.deepEqual(compose.services.redis.ports, ['${STACK_BIND_ADDRESS:-127.0.0.1}:${REDIS_PORT_6379:-6379}:6379']);
    assert.ok(compose.services.caddy.ports.every((p) => p.startsWith('${CADDY_PORT_')), compose.services.caddy.ports.join());
    const local = await okData<Bundle>(await generate({ name: 'bind', services: ['redis'], proxy: 'caddy' }));
    const localCompose = yaml.load(local.files['docker-compose.yml']) as { services: Record<string, { ports: string[] }> };
    assert.deepEqual(localCompose.services.caddy.ports, ['${STACK_BIND_ADDRESS:-127.0.0.1}:${CADDY_PORT_80:-80}:80']);
    assert.equal(envExampleKeys(bundle.files['.env.example']).get('STACK_BIND_ADDRESS'), '127.0.0.1');
    assert.match(bundle.files['README.md'], /STACK_BIND_ADDRESS=0\.0\.0\.0/);
  });

  test('deployment bare-metal adds the native installers and install scripts', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'hybrid', preset: 'automation-hub', deploymentType: 'bare-metal' }));
    for (const file of ['install.sh', 'install.ps1', 'native/openclaw.sh']) assert.ok(bundle.files[file], `missing ${file}`);
    const compose = yaml.load(bundle.files['docker-compose.yml']) as { services: Record<string, { extra_hosts?: string[] }> };
    assert.equal(compose.services.openclaw, undefined, 'the native framework leaves the compose file');
    assert.deepEqual(compose.services.n8n.extra_hosts, ['host.docker.internal:host-gateway']);
  });

  test('location references resolve for each reader: compose names in containers, published ports natively', async () => {
    const docker = await okData<Bundle>(await generate({ name: 'mem', primaryFramework: 'memu' }));
    const compose = yaml.load(docker.files['docker-compose.yml']) as { services: Record<string, { environment: Record<string, string> }> };
    assert.match(compose.services.memu.environment.DATABASE_URL, /^postgresql\+psycopg:\/\/memu:\$\{MEMU_DB_PASSWORD\}@postgresql:5432\/memu$/);
    const native = await okData<Bundle>(await generate({ name: 'mem', primaryFramework: 'memu', deploymentType: 'bare-metal' }));
    const script = native.files['native/memu.sh'];
    assert.ok(script.includes(`env_line DATABASE_URL postgresql+psycopg://memu:"$(env_value MEMU_DB_PASSWORD)"@127.0.0.1:"$(env_value POSTGRESQL_PORT_5432 5432)"/memu`), 'native memU reaches its own database on the published port');
    assert.doesNotMatch(script, /POSTGRESQL_POSTGRES_PASSWORD/, 'the superuser password stays with the server');
  });

  test('a host-port clash moves the later service and the README says so', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'clash', primaryFramework: 'openclaw', companionFrameworks: ['nanobot'] }));
    const compose = bundle.files['docker-compose.yml'];
    assert.match(compose, /\$\{OPENCLAW_PORT_18790:-18790\}:18790/);
    assert.match(compose, /\$\{NANOBOT_PORT_18790:-18791\}:18790/);
    assert.match(bundle.files['README.md'], /Host port 18790 was already taken.*`nanobot`.*published on 18791/);
  });

  test('gpu and platform reach the compose file', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'gpu', services: ['ollama', 'redis'], gpu: true, platform: 'linux/arm64' }));
    const compose = yaml.load(bundle.files['docker-compose.yml']) as { services: Record<string, Record<string, any>> };
    assert.deepEqual(compose.services.ollama.deploy.resources.reservations.devices, [{ driver: 'nvidia', count: 'all', capabilities: ['gpu'] }]);
    assert.equal(compose.services.redis.deploy, undefined, 'only GPU-capable services get a GPU');
    assert.equal(compose.services.redis.platform, 'linux/arm64');
  });

  test('a preset with services notes the ignored fields in the README', async () => {
    const bundle = await okData<Bundle>(await generate({ name: 'noted', preset: 'web-agent', services: ['redis'] }));
    assert.match(bundle.files['README.md'], /PRESET_OVERRIDES/);
    assert.doesNotMatch(bundle.files['docker-compose.yml'], /^ {2}redis:/m);
  });
});

describe('format tar', () => {
  test('is a gzip download named after the stack, entries under <name>/, scripts 0755, fixed mtimes, same files as JSON', async () => {
    const body = { name: 'packed', preset: 'observability', proxy: 'nginx' };
    const res = await generate({ ...body, format: 'tar' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/gzip');
    assert.equal(res.headers.get('content-disposition'), 'attachment; filename="packed.tar.gz"');
    assert.ok(res.headers.get('x-ratelimit-limit'));
    const entries = await readTarGz(Buffer.from(await res.arrayBuffer()));
    const json = await okData<Bundle>(await generate(body));
    const files = entries.filter((e) => e.type === 'file');
    assert.deepEqual(Object.fromEntries(files.map((e) => [e.name.replace(/^packed\//, ''), e.content])), json.files);
    for (const e of entries) {
      assert.ok(e.name.startsWith('packed/'), e.name);
      assert.equal(e.mtime.getTime(), Date.UTC(2000, 0, 1));
      if (e.type === 'file') assert.equal(e.mode, e.name.endsWith('.sh') ? 0o755 : 0o644, e.name);
    }
  });

  test('two identical requests give identical bytes, JSON and tar alike', async () => {
    const body = { name: 'same', preset: 'full-stack', proxy: 'caddy', domain: 'example.org' };
    const [a, b] = [await generate(body), await generate(body)];
    assert.equal(await a.text(), await b.text());
    const [x, y] = [await generate({ ...body, format: 'tar' }), await generate({ ...body, format: 'tar' })];
    assert.ok(Buffer.from(await x.arrayBuffer()).equals(Buffer.from(await y.arrayBuffer())));
  });
});

describe('failures', () => {
  test('conflicting services are 409 CONFLICT with the pairs', async () => {
    const err = await apiError(await generate({ name: 'x', services: ['redis', 'valkey', 'ntfy', 'gotify'] }), 409, 'CONFLICT');
    assert.deepEqual(err.details.conflicts, [{ services: ['gotify', 'ntfy'] }, { services: ['redis', 'valkey'] }]);
  });

  async function errors(body: unknown): Promise<string[]> {
    return (await apiError(await generate(body), 400, 'VALIDATION_ERROR')).details.errors;
  }

  test('name is required and must be a Compose project name', async () => {
    assert.ok((await errors({})).some((e) => /missing required field "name"/.test(e)));
    for (const name of ['', 'Upper', '-lead', 'has space', 'a;rm -rf', 'x'.repeat(64), '../etc']) {
      const list = await errors({ name });
      assert.ok(list.some((e) => /^name must be 1 to 63 characters of a-z, 0-9, _ and -/.test(e)), `${JSON.stringify(name)}: ${list}`);
    }
  });

  test('domain must be a host name', async () => {
    for (const domain of ['no_dots', 'exa mple.com', '-bad.com', 'a..b', 'x.com/path', '${HOME}.com', `${'a'.repeat(250)}.com`]) {
      const list = await errors({ name: 'x', domain });
      assert.ok(list.some((e) => /^domain must be a host name/.test(e)), `${domain}: ${list}`);
    }
    await okData(await generate({ name: 'x', domain: 'localhost' }));
    await okData(await generate({ name: 'x', domain: 'Sub.Example.COM' }));
  });

  test('bad proxy, framework, deploymentType, format and platform values are named', async () => {
    const list = await errors({ name: 'x', proxy: 'apache', primaryFramework: 'nope', deploymentType: 'k8s', format: 'zip', platform: 'windows/amd64' });
    assert.ok(list.includes('deploymentType must be one of: "docker", "bare-metal", "kubernetes", "swarm"'), list.join('\n'));
    assert.ok(list.includes('format must be one of: "json", "tar"'));
    assert.ok(list.includes('platform must be one of: "linux/amd64", "linux/arm64"'));
    // id values are checked against the catalogue once the shape is right
    const ids = await errors({ name: 'x', proxy: 'apache', primaryFramework: 'nope' });
    assert.ok(ids.some((e) => /unknown proxy "apache"/.test(e)) && ids.some((e) => /unknown primaryFramework "nope"/.test(e)));
  });

  test('wrong types never reach a 500', async () => {
    for (const body of [{ name: 5 }, { name: 'x', services: {} }, { name: 'x', gpu: 1 }, { name: 'x', companionFrameworks: 'codex' }, null, 'text', []]) {
      const res = await generate(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      await res.arrayBuffer();
    }
  });
});

describe('deploymentType kubernetes (issue 32)', () => {
  test('generate gives the Kustomize base in JSON and tar, validate accepts it', async () => {
    const body = { name: 'kube', preset: 'research-assistant', proxy: 'traefik', domain: 'example.com', deploymentType: 'kubernetes' };
    const bundle = await okData<Bundle>(await generate(body));
    for (const file of ['kustomization.yaml', 'kubernetes/namespace.yaml', 'kubernetes/gateway.yaml', 'kubernetes/network-policies.yaml', 'scripts/secrets.sh', '.env.example', '.gitignore', 'README.md']) {
      assert.ok(bundle.files[file], `missing ${file}`);
    }
    assert.ok(!bundle.files['docker-compose.yml'], 'no compose file for kubernetes');
    const tar = await server.post('/api/v1/generate', { ...body, format: 'tar' });
    assert.equal(tar.status, 200);
    const entries = await readTarGz(Buffer.from(await tar.arrayBuffer()));
    assert.ok(entries.some((e) => e.name === 'kube/kustomization.yaml'));
    assert.equal(entries.find((e) => e.name === 'kube/scripts/secrets.sh')!.mode, 0o755);
    const valid = await okData<{ valid: boolean }>(await server.post('/api/v1/validate', body));
    assert.equal(valid.valid, true);
  });

  test('a proxy without a Gateway API implementation, or a service that drives Docker, is a 400 TARGET_UNSUPPORTED naming what works', async () => {
    for (const path of ['/api/v1/validate', '/api/v1/generate']) {
      const nginx = await apiError(await server.post(path, { name: 'kube', preset: 'research-assistant', proxy: 'nginx', deploymentType: 'kubernetes' }), 400, 'TARGET_UNSUPPORTED');
      assert.match(nginx.details.errors[0], /proxy "nginx".*use proxy "traefik"/);
      const docker = await apiError(await server.post(path, { name: 'kube', services: ['portainer'], deploymentType: 'kubernetes' }), 400, 'TARGET_UNSUPPORTED');
      assert.match(docker.details.errors[0], /"portainer" uses the Docker engine/);
    }
    // the same selection is fine for Compose
    await okData(await server.post('/api/v1/validate', { name: 'kube', services: ['portainer'], proxy: 'nginx' }));
  });

  test('the OpenAPI document offers the target', async () => {
    const doc = await (await server.get('/api/v1/openapi.json')).json() as any;
    assert.ok(JSON.stringify(doc).includes('"kubernetes"'));
  });
});

describe('deploymentType swarm (issue 32)', () => {
  test('generate gives the stack file and its scripts in JSON and tar, validate accepts it, the OpenAPI document offers it', async () => {
    const body = { name: 'swarmy', preset: 'research-assistant', proxy: 'nginx', domain: 'example.com', deploymentType: 'swarm' };
    const bundle = await okData<Bundle>(await generate(body));
    for (const file of ['stack.yml', 'scripts/deploy.sh', 'scripts/status.sh', 'scripts/remove.sh', 'scripts/backup.sh', 'scripts/update.sh', 'scripts/rollback.sh', 'scripts/lib.sh', '.env.example', 'README.md']) {
      assert.ok(bundle.files[file], `missing ${file}`);
    }
    for (const file of ['docker-compose.yml', 'scripts/start.sh', 'kustomization.yaml']) assert.ok(!bundle.files[file], `no ${file} for swarm`);
    const tar = await server.post('/api/v1/generate', { ...body, format: 'tar' });
    assert.equal(tar.status, 200);
    const entries = await readTarGz(Buffer.from(await tar.arrayBuffer()));
    assert.equal(entries.find((e) => e.name === 'swarmy/scripts/deploy.sh')!.mode, 0o755);
    assert.equal((await okData<{ valid: boolean }>(await server.post('/api/v1/validate', body))).valid, true);
    const doc = await (await server.get('/api/v1/openapi.json')).json() as any;
    assert.ok(JSON.stringify(doc).includes('"swarm"'));
  });

  test('a GPU is a 400 TARGET_UNSUPPORTED on validate and generate; the same request is fine for Compose', async () => {
    for (const path of ['/api/v1/validate', '/api/v1/generate']) {
      const gpu = await apiError(await server.post(path, { name: 'swarmy', preset: 'local-ai', gpu: true, deploymentType: 'swarm' }), 400, 'TARGET_UNSUPPORTED');
      assert.match(gpu.details.errors[0], /gpu: deploymentType "swarm" cannot reserve a GPU.*use deploymentType "docker"/);
    }
    await okData(await server.post('/api/v1/validate', { name: 'swarmy', preset: 'local-ai', gpu: true }));
  });
});
