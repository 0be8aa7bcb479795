// What must hold when a user runs a generated stack (issue 8, DECISIONS "Running stacks"): nothing
// without a login is public, no domain means local, one database per service, each container only its
// own secrets, URLs that follow the domain, and a record of where the stack came from.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { ApiError } from '../../src/errors.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import { writeCatalogue } from '../support/fixture.js';
import { envExampleKeys } from '../support/bundle.js';
import { shippedCatalogue } from '../support/server.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 200);

type Compose = { services: Record<string, { environment?: Record<string, string>; ports?: string[]; depends_on?: Record<string, { condition: string }>; image: string; volumes?: string[] }> };

function generate(request: GenerateRequest) {
  const bundle = generator.generate(request);
  return { files: bundle.files, compose: yaml.load(bundle.files['docker-compose.yml']) as Compose };
}

/** Every service whose first web port has the given auth model. */
function servicesWithAuth(auth: string): string[] {
  return [...catalogue.services.values()].filter((s) => s.manifest.ports?.find((p) => p.web)?.auth === auth).map((s) => s.id);
}

/** Site blocks of a Caddyfile by address. */
function caddySites(caddyfile: string): Map<string, string> {
  const sites = new Map<string, string>();
  for (const m of caddyfile.matchAll(/^(\S+) \{\n([\s\S]*?)^\}/gm)) sites.set(m[1], m[2]);
  return sites;
}

describe('exposure', () => {
  const open = servicesWithAuth('own');
  const guarded = [...servicesWithAuth('none'), ...servicesWithAuth('first-visitor')];
  const internal = [...catalogue.services.values()].filter((s) => (s.manifest.ports ?? []).length && !(s.manifest.ports ?? []).some((p) => p.web)).map((s) => s.id);

  test('the catalogue has services of every kind, so the checks below mean something', () => {
    assert.ok(open.length > 0 && guarded.length > 0 && internal.length > 0, JSON.stringify({ open, guarded, internal }));
  });

  test('behind caddy with a domain: own logins are routed as they are, the rest behind basic auth, internal APIs not at all', () => {
    const services = [...open.slice(0, 3), ...guarded.slice(0, 4), ...internal.slice(0, 3)].filter((id) => catalogue.services.get(id)!.manifest.conflictsWith === undefined);
    const { files, compose } = generate({ name: 'exposed', services, proxy: 'caddy', domain: 'example.com' });
    const sites = caddySites(files['caddy/Caddyfile']);
    // a port without a login of its own never follows STACK_BIND_ADDRESS onto the network
    for (const id of services.filter((x) => guarded.includes(x))) {
      const web = catalogue.services.get(id)!.manifest.ports!.find((p) => p.web)!;
      const port = (compose.services[id].ports ?? []).find((p) => p.endsWith(`:${web.container}`));
      if (port) assert.match(port, /^127\.0\.0\.1:/, `${id}: ${port}`);
    }
    for (const id of services.filter((x) => open.includes(x))) {
      for (const port of compose.services[id].ports ?? []) assert.match(port, /^\$\{STACK_BIND_ADDRESS:-127\.0\.0\.1\}:/, `${id}: ${port}`);
    }
    for (const id of services) {
      const block = sites.get(`https://${id}.example.com`);
      if (internal.includes(id)) assert.equal(block, undefined, `${id} is internal: no route`);
      else if (guarded.includes(id)) assert.match(block ?? '', /import basic-auth\.caddy/, `${id} is behind basic auth`);
      else assert.doesNotMatch(block ?? 'missing', /basic-auth|missing/, `${id} is routed with its own login`);
    }
    assert.match(files['caddy/basic-auth.caddy'], /basicauth \{\n\tlocked-until-start \$2b\$10\$/, 'the shipped auth file is locked until start.sh writes it');
    const env = envExampleKeys(files['.env.example']);
    assert.equal(env.get('STACK_PROXY_USER'), 'admin');
    assert.equal(env.get('STACK_PROXY_PASSWORD'), '');
    assert.match(files['scripts/lib.sh'], /write_proxy_auth\(\)/);
  });

  test('traefik and nginx guard the same routes with their own basic auth', () => {
    const services = guarded.slice(0, 2);
    const traefik = generate({ name: 'tr', services, proxy: 'traefik', domain: 'example.com' }).files;
    const dynamic = yaml.load(traefik['traefik/dynamic.yml']) as { http: { routers: Record<string, { middlewares?: string[] }>; middlewares: Record<string, { basicAuth?: { usersFile: string } }> } };
    for (const id of services) assert.ok(dynamic.http.routers[id].middlewares?.includes('stack-auth'), `${id} router has stack-auth`);
    assert.equal(dynamic.http.middlewares['stack-auth'].basicAuth?.usersFile, '/etc/traefik/htpasswd');
    const nginx = generate({ name: 'ng', services, proxy: 'nginx', domain: 'localhost' }).files;
    assert.match(nginx['nginx/stack.conf'], /auth_basic_user_file \/etc\/nginx\/conf\.d\/htpasswd;/);
    assert.match(nginx['nginx/htpasswd'], /^locked-until-start:\$2b\$10\$/);
  });

  test('without a domain the proxy listens on STACK_BIND_ADDRESS and publishes no 443; with one it is public with 443', () => {
    for (const proxy of ['caddy', 'traefik', 'nginx']) {
      const local = generate({ name: `local-${proxy}`, preset: 'web-agent', proxy }).compose.services[proxy].ports!;
      assert.deepEqual(local.filter((p) => !p.startsWith('${STACK_BIND_ADDRESS:-127.0.0.1}:')), [], `${proxy} binds locally: ${local}`);
      assert.ok(!local.some((p) => /:443(\/udp)?$/.test(p)), `${proxy} publishes no 443 without HTTPS: ${local}`);
      const pub = generate({ name: `public-${proxy}`, preset: 'web-agent', proxy, domain: 'example.com' }).compose.services[proxy].ports!;
      assert.ok(pub.some((p) => p.endsWith(':443')) && pub.every((p) => !p.startsWith('${STACK_BIND_ADDRESS')), `${proxy} public: ${pub}`);
    }
  });

  test('a proxy without automatic HTTPS refuses a public domain', () => {
    // every shipped proxy has automatic HTTPS: a plugin without it (nginx's files, the flag taken off) is still refused
    const nginxDir = path.join(readConfig({}).pluginsDir, 'proxies', 'nginx');
    const files = Object.fromEntries(fs.readdirSync(nginxDir).map((f) => [`plugins/proxies/plain/${f}`, fs.readFileSync(path.join(nginxDir, f), 'utf8')]));
    files['plugins/proxies/plain/proxy.yaml'] = files['plugins/proxies/plain/proxy.yaml'].replace(/^automaticHttps: true$/m, 'automaticHttps: false');
    const dirs = writeCatalogue(files);
    const plain = new Generator(loadCatalogueOrThrow(dirs), readConfig({}).templatesDir, 10);
    assert.throws(() => plain.generate({ name: 'plain', proxy: 'plain', domain: 'example.com' }), (e: unknown) => {
      assert.ok(e instanceof ApiError && e.status === 400, String(e));
      assert.match(JSON.stringify(e.details), /serves plain HTTP only/);
      return true;
    });
    assert.ok(plain.generate({ name: 'plain', proxy: 'plain' }).files['nginx/stack.conf'], 'without a domain it routes');
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  test('path mode routes only apps that live under a prefix; the others keep their own port', () => {
    const { files } = generate({ name: 'paths', services: [...open, ...guarded].slice(0, 8).filter((id) => !catalogue.services.get(id)!.manifest.conflictsWith), proxy: 'caddy' });
    for (const s of catalogue.services.values()) {
      const web = s.manifest.ports?.find((p) => p.web);
      if (!web || !files['docker-compose.yml'].includes(`\n  ${s.id}:\n`)) continue;
      const routed = files['caddy/Caddyfile'].includes(`"/${s.id}/*"`);
      assert.equal(routed, Boolean(web.subpath), `${s.id} subpath=${web.subpath}`);
    }
  });
});

describe('databases', () => {
  const consumers = [...catalogue.services.values()].filter((s) => s.manifest.databases?.length).map((s) => s.id);

  test('each consumer gets its own database and user, made by a setup container it waits for', () => {
    assert.ok(consumers.length >= 2, `consumers: ${consumers}`);
    const { files, compose } = generate({ name: 'dbs', services: consumers });
    const servers = new Set(consumers.flatMap((id) => catalogue.services.get(id)!.manifest.databases!.map((d) => d.server)));
    for (const server of servers) {
      const setup = compose.services[`${server}-setup`];
      assert.ok(setup, `${server}-setup exists`);
      assert.equal(setup.depends_on?.[server]?.condition, 'service_healthy');
      const superuser = catalogue.services.get(server)!.manifest.databaseServer!.superuserPasswordEnv;
      // only the server and its setup container hold the superuser password
      for (const [name, def] of Object.entries(compose.services)) {
        const holds = Object.values(def.environment ?? {}).some((v) => v.includes(`${server.toUpperCase()}_${superuser}`));
        assert.equal(holds, name === server || name === `${server}-setup`, `${name} and the ${server} superuser password`);
      }
    }
    const names = new Set<string>();
    for (const id of consumers) {
      for (const db of catalogue.services.get(id)!.manifest.databases!) {
        assert.equal(compose.services[id].depends_on?.[`${db.server}-setup`]?.condition, 'service_completed_successfully', id);
        const name = db.name ?? id.replace(/-/g, '_');
        assert.ok(!names.has(name), `${name} is one consumer's`);
        names.add(name);
        assert.match(files[`config/${db.server}/create-databases.sh`], new RegExp(`ensure_database ${name} `));
      }
    }
  });

  test('a framework whose skills keep records in PostgreSQL gets a database of its own and its URL', () => {
    const request: GenerateRequest = { name: 'fwdb', services: ['postgresql', 'qdrant'], skills: ['rag-memory'] };
    const { files, compose } = generate(request);
    assert.equal(compose.services.openclaw.environment!.POSTGRESQL_DATABASE_URL, 'postgresql://openclaw:${OPENCLAW_DB_PASSWORD}@postgresql:5432/openclaw');
    assert.equal(compose.services.openclaw.depends_on?.['postgresql-setup']?.condition, 'service_completed_successfully');
    assert.match(files['config/postgresql/create-databases.sh'], /ensure_role openclaw "\$OPENCLAW_DB_PASSWORD"/);
    assert.equal(envExampleKeys(files['.env.example']).get('OPENCLAW_DB_PASSWORD'), '');
    assert.match(files['scripts/lib.sh'], /fill_secret OPENCLAW_DB_PASSWORD 32 alnum/);
    const native = generate({ ...request, name: 'fwdb-bm', deploymentType: 'bare-metal' }).files['native/openclaw.sh'];
    assert.ok(native.includes(`POSTGRESQL_DATABASE_URL postgresql://openclaw:"$(env_value OPENCLAW_DB_PASSWORD)"@127.0.0.1:"$(env_value POSTGRESQL_PORT_5432 5432)"/openclaw`), native);
    // without a skill pack that uses the server, no database and no URL
    assert.equal(generate({ name: 'fwdb-none', services: ['postgresql'] }).compose.services.openclaw.environment!.POSTGRESQL_DATABASE_URL, undefined);
  });

  test('the setup script runs again on every up (no init folder) and only when a consumer exists', () => {
    const { files, compose } = generate({ name: 'nodb', services: ['postgresql'] });
    assert.equal(compose.services['postgresql-setup'], undefined);
    assert.equal(files['config/postgresql/create-databases.sh'], undefined);
  });
});

describe('secrets', () => {
  test('a framework receives only the client credentials of the services its skill packs use', () => {
    const { compose } = generate({ name: 'secrets', preset: 'full-stack' });
    const env = compose.services.openclaw.environment!;
    const packs = catalogue.presets.get('full-stack')!.manifest.skills.map((id) => catalogue.skillPacks.get(id)!);
    const used = new Set(packs.flatMap((p) => [...p.manifest.requiredServices, ...(p.manifest.optionalServices ?? [])]));
    for (const [name, value] of Object.entries(env)) {
      const refs = [...value.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]);
      for (const ref of refs) {
        const owner = [...catalogue.services.values()].find((s) => (s.manifest.environment ?? []).some((e) => !e.shared && `${s.id.toUpperCase().replace(/-/g, '_')}_${e.name}` === ref));
        if (!owner) continue;
        const spec = owner.manifest.environment!.find((e) => `${owner.id.toUpperCase().replace(/-/g, '_')}_${e.name}` === ref)!;
        assert.ok(!spec.secret || (spec.client && used.has(owner.id)), `openclaw gets ${ref} (${name}) of ${owner.id}`);
      }
    }
    assert.ok(!JSON.stringify(env).includes('POSTGRESQL_POSTGRES_PASSWORD'));
  });

  test('frameworks get each service address as <SERVICE>_URL', () => {
    const { compose } = generate({ name: 'urls', preset: 'research-assistant' });
    const env = compose.services.openclaw.environment!;
    assert.equal(env.SEARXNG_URL, 'http://searxng:8080');
  });

  test('every variable a skill names is handed to the framework, in containers and natively', () => {
    // the shell's own variables, and ones a skill sets itself before use
    const local = new Set(['HOME', 'PATH', 'AWS_CONFIG_FILE']);
    const conflicting = (a: string, b: string) => [[a, b], [b, a]].some(([x, y]) => catalogue.services.get(x)?.manifest.conflictsWith?.includes(y));
    for (const pack of catalogue.skillPacks.values()) {
      // optional services that conflict (two chat servers) go into separate stacks; together they see every variable
      const groups: string[][] = [];
      for (const id of pack.manifest.optionalServices ?? []) {
        const group = groups.find((g) => g.every((other) => !conflicting(id, other)));
        if (group) group.push(id);
        else groups.push([id]);
      }
      // a variable a skill assigns itself (NAME=... at the start of a line) is its own
      const assigned = new Set(pack.skills.flatMap((skill) => [...skill.body.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])));
      const used = new Set(pack.skills.flatMap((skill) => [...skill.body.matchAll(/\$\{?([A-Z][A-Z0-9_]{2,})/g)].map((m) => m[1])).filter((v) => !local.has(v) && !assigned.has(v)));
      const env: Record<string, string> = {};
      let native = '';
      for (const [i, group] of (groups.length ? groups : [[]]).entries()) {
        const services = [...pack.manifest.requiredServices, ...group];
        Object.assign(env, generate({ name: `vars-${pack.id}-${i}`, services, skills: [pack.id] }).compose.services.openclaw.environment!);
        native += generate({ name: `vars-${pack.id}-${i}-bm`, services, skills: [pack.id], deploymentType: 'bare-metal' }).files['native/openclaw.sh'];
      }
      assert.deepEqual([...used].filter((v) => !(v in env)), [], `${pack.id}: variables its skills use but the framework container lacks`);
      assert.deepEqual([...used].filter((v) => !native.includes(`env_line ${v} `)), [], `${pack.id}: variables the native framework lacks`);
    }
  });

  test('a prefixed secret is generated with its prefix', () => {
    const prefixed = [...catalogue.services.values()].flatMap((s) => (s.manifest.environment ?? []).filter((e) => typeof e.secret === 'object' && e.secret.prefix).map((e) => [s.id, e] as const));
    for (const [id, e] of prefixed) {
      const { files } = generate({ name: `p-${id}`, services: [id] });
      assert.match(files['scripts/lib.sh'], new RegExp(`fill_secret ${id.toUpperCase().replace(/-/g, '_')}_${e.name} \\d+ \\w+ ${(e.secret as { prefix: string }).prefix}`));
    }
  });
});

describe('URLs follow the domain', () => {
  test('{{url:id}} defaults are the routed https URL with a domain and the host port without one', () => {
    // a variable that holds the service's own URL and is always emitted (not ifPresent)
    const ownUrl = (s: { id: string; manifest: { environment?: { name: string; default?: string; ifPresent?: string }[] } }) =>
      (s.manifest.environment ?? []).find((e) => e.default?.startsWith(`{{url:${s.id}}}`) && !e.ifPresent);
    const withUrl = [...catalogue.services.values()].filter((s) => ownUrl(s));
    assert.ok(withUrl.length >= 3, withUrl.map((s) => s.id).join());
    for (const s of withUrl) {
      if (s.manifest.conflictsWith) continue;
      const spec = ownUrl(s)!;
      const key = `${s.id.toUpperCase().replace(/-/g, '_')}_${spec.name}`;
      const domain = envExampleKeys(generate({ name: `d-${s.id}`, services: [s.id], proxy: 'caddy', domain: 'example.com' }).files['.env.example']);
      assert.ok(domain.get(key)!.startsWith(`https://${s.id}.example.com`), `${key}=${domain.get(key)}`);
      const local = envExampleKeys(generate({ name: `l-${s.id}`, services: [s.id] }).files['.env.example']);
      assert.match(local.get(key)!, /^http:\/\/localhost:\d+/, `${key}=${local.get(key)}`);
    }
  });
});

describe('provenance', () => {
  test('stackwright.json records the request, the catalogue revision, the version and every file hash', () => {
    const request = { name: 'traced', preset: 'web-agent', proxy: 'caddy', domain: 'example.com' };
    const { files } = generate(request);
    const record = JSON.parse(files['stackwright.json']);
    assert.deepEqual(record.request, request);
    assert.equal(record.stackwright.catalogueRevision, catalogue.revision);
    assert.match(record.stackwright.version, /^\d+\.\d+\.\d+/);
    const listed = Object.keys(record.files).sort();
    assert.deepEqual(listed, Object.keys(files).filter((f) => f !== 'stackwright.json').sort());
    for (const f of listed) assert.equal(record.files[f], crypto.createHash('sha256').update(files[f]).digest('hex'), f);
  });

  test('the scripts never name a compose file, so docker-compose.override.yml stays in effect', () => {
    const { files } = generate({ name: 'override', preset: 'web-agent', proxy: 'caddy' });
    for (const [file, text] of Object.entries(files)) {
      if (file.endsWith('.sh') || file.endsWith('.ps1')) assert.doesNotMatch(text, /docker compose (-f|--file)\b/, file);
    }
    assert.match(files['README.md'], /docker-compose\.override\.yml/);
  });
});

describe('frameworks and hardware', () => {
  test('every framework has first-chat steps in the README, and start.sh checks the primary has a key (or notes its login)', () => {
    for (const fw of catalogue.frameworks.values()) {
      const { files } = generate({ name: `chat-${fw.id}`, primaryFramework: fw.id });
      assert.match(files['README.md'], new RegExp(`## First chat[\\s\\S]*\\*\\*${fw.manifest.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\*\\*`), fw.id);
      for (const step of fw.manifest.firstRun.steps) assert.ok(files['README.md'].includes(step), `${fw.id}: ${step}`);
      // a framework that also answers after an account login only notes a missing key (issue 20)
      if (fw.manifest.firstRun.keys.length) assert.match(files['scripts/start.sh'], fw.manifest.firstRun.withoutKey ? /note: no model provider key for / : /needs a model provider key/, fw.id);
    }
  });

  test('gpu: true runs the GPU build of services that have one', () => {
    const gpuServices = [...catalogue.services.values()].filter((s) => s.manifest.gpuImageTag);
    assert.ok(gpuServices.length > 0);
    for (const s of gpuServices) {
      const { compose } = generate({ name: `gpu-${s.id}`, services: [s.id], gpu: true });
      const variable = `${s.id.toUpperCase().replace(/-/g, '_')}_IMAGE`;
      assert.equal(compose.services[s.id].image, `\${${variable}:-${s.manifest.image}:${s.manifest.gpuImageTag}}`);
      assert.equal(generate({ name: `cpu-${s.id}`, services: [s.id] }).compose.services[s.id].image, `\${${variable}:-${s.manifest.image}:${s.manifest.imageTag}}`);
    }
  });

  test('bare metal: a native part reaches another native part where it listens (STACK_NATIVE_BIND), containers on loopback', () => {
    const { files, compose } = generate({ name: 'natives', services: ['ollama', 'litellm', 'redis'], deploymentType: 'bare-metal' });
    const framework = files['native/openclaw.sh'];
    // ollama and litellm run natively (they have recipes), redis in a container published on loopback
    assert.ok(files['native/ollama.sh'] && files['native/litellm.sh'] && compose.services.redis);
    assert.match(framework, /env_line OLLAMA_URL http:\/\/"\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)":11434/);
    assert.match(framework, /env_line REDIS_URL http:\/\/127\.0\.0\.1:/);
    assert.match(files['native/litellm.sh'], /OLLAMA_API_BASE http:\/\/"\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)":11434/);
    assert.match(files['config/litellm/config.yaml'], /api_base: os\.environ\/OLLAMA_API_BASE/);
    // in containers the same setting names the compose service
    const docker = generate({ name: 'in-docker', services: ['ollama', 'litellm'] });
    assert.equal(docker.compose.services.litellm.environment!.OLLAMA_API_BASE, 'http://ollama:11434');
  });

  test('bare metal: natives run as the stackwright user on STACK_NATIVE_BIND, install.ps1 starts them in the background', () => {
    for (const fw of catalogue.frameworks.values()) {
      const { files } = generate({ name: `bm-${fw.id}`, primaryFramework: fw.id, deploymentType: 'bare-metal', proxy: 'caddy' });
      const native = files[`native/${fw.id}.sh`];
      if (fw.manifest.native.run) assert.match(native, /"User=\$service_user"/, fw.id);
      assert.match(native, /STACK_NATIVE_BIND "\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)"/, fw.id);
      assert.match(files['install.sh'], /docker network inspect bridge/, fw.id);
      const ps1 = files['install.ps1'];
      const { windows, windowsRun, run } = fw.manifest.native;
      if (windows && windowsRun) {
        assert.match(ps1, /Start-Process/, fw.id);
        assert.ok(ps1.indexOf('docker compose up') < ps1.indexOf('Start-Process'), `${fw.id}: containers first`);
      } else if (windows && !run) {
        assert.doesNotMatch(ps1, /^Fail .*cannot run natively/m, `${fw.id} is a CLI: installing is all it needs`);
      } else {
        assert.match(ps1, /^Fail .*cannot run natively on Windows/m, fw.id);
      }
    }
  });
});
