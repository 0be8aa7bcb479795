// The rules every plugin must follow so a stack is safe when run (issue 8): auth declared on web ports,
// secrets kept to their own service, databases of their own, a first chat described. A dropped-in
// folder that breaks one is refused at load, with its file and field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { formatProblem } from '../../src/catalogue/problems.js';
import { readConfig } from '../../src/config.js';
import { resolve } from '../../src/model/resolve.js';
import { BASE_FILES, service, writeCatalogue } from '../support/fixture.js';
import { expectProblem, problems } from '../support/problems.js';

const ALPHA = 'plugins/services/alpha/service.yaml';
const BETA = 'plugins/services/beta/service.yaml';
const SERVER = `databaseServer: { setup: setup.sh.eta, superuserPasswordEnv: ROOT_PASSWORD, port: 5432, clientUrl: "x://{user}:{password}@{host}:{port}/{database}" }
ports:
  - { container: 5432, description: db }
environment:
  - { name: ROOT_PASSWORD, secret: true, description: superuser password }
  - { name: API_TOKEN, secret: true, client: true, description: token agents send }
`;

describe('plugin rules', () => {
  test('every shipped plugin follows them (the catalogue loads clean)', () => {
    const config = readConfig({});
    const result = loadCatalogue({ plugins: config.pluginsDir, catalogue: config.catalogueDir });
    assert.deepEqual(result.errors.map(formatProblem), []);
    for (const s of result.catalogue!.services.values()) {
      for (const p of s.manifest.ports ?? []) if (p.web) assert.ok(p.auth, `${s.id}:${p.container} declares auth`);
      assert.ok(!/(^|:)latest$/.test(s.manifest.imageTag), `${s.id} pins a release`);
    }
  });

  test('every preset resolves cleanly, without conflicts, within the memory budget it states', () => {
    const config = readConfig({});
    const catalogue = loadCatalogue({ plugins: config.pluginsDir, catalogue: config.catalogueDir }).catalogue!;
    for (const preset of catalogue.presets.values()) {
      const r = resolve(catalogue, { preset: preset.id });
      assert.deepEqual([...r.errors, ...r.conflicts.map(String)], [], preset.id);
      // the worst case (every container at its limit) fits the budget, so the estimate does too
      assert.ok(r.memoryLimitMB <= preset.manifest.memoryBudgetMB, `${preset.id}: ${r.memoryLimitMB} MB of limits, budget ${preset.manifest.memoryBudgetMB} MB`);
    }
  });

  test('a service must say where its facts come from and when they were checked', () => {
    const list = problems({ [ALPHA]: service('alpha').replace(/, source: "[^"]+"/, '').replace('checked: 2026-11-23\n', 'checked: 23/11/2026\n') });
    expectProblem(list, ALPHA, '/links', 'schema', /source/);
    expectProblem(list, ALPHA, '/checked', 'schema', /date/);
  });

  test('a web port without an auth model is refused', () => {
    const list = problems({ [ALPHA]: service('alpha', 'ports:\n  - { container: 80, host: 8080, web: true, description: UI }\n') });
    expectProblem(list, ALPHA, '/ports/0', 'port.auth', /declares no auth: own .* none or first-visitor/);
  });

  test('login is for a web port, and names only the plugin\'s own .env variables', () => {
    const web = 'ports:\n  - { container: 80, host: 8080, web: true, auth: own, description: UI }\nenvironment:\n  - { name: ADMIN_PASSWORD, secret: true, description: admin password }\n  - { name: MODE, value: fixed, description: fixed mode }\n';
    const noPort = problems({ [ALPHA]: service('alpha', 'login: "user admin, password from .env"\n') });
    expectProblem(noPort, ALPHA, '/login', 'login.ref', /this plugin has none \(no port with web: true\)/);
    const refs = problems({
      [ALPHA]: service('alpha', `${web}login: "user admin, password {{alpha.ADMIN_PASSWORD}}, or {{beta.TOKEN}}, {{alpha.MODE}} or {{alpha.NOPE}}"\n`),
    });
    expectProblem(refs, ALPHA, '/login', 'login.ref', /\{\{beta\.TOKEN\}\}: login may name only this plugin's own variables, as \{\{alpha\.VAR\}\}/);
    expectProblem(refs, ALPHA, '/login', 'login.ref', /\{\{alpha\.MODE\}\}: "alpha" declares no variable MODE kept in \.env/);
    expectProblem(refs, ALPHA, '/login', 'login.ref', /\{\{alpha\.NOPE\}\}: "alpha" declares no variable NOPE/);
    assert.ok(!refs.some((p) => p.message.includes('ADMIN_PASSWORD')), refs.map(formatProblem).join('\n'));
    // one line of a Markdown table cell: no | and no line break
    expectProblem(problems({ [ALPHA]: service('alpha', `${web}login: "user admin | password"\n`) }), ALPHA, '/login', 'schema', /pattern|must match/);
  });

  test('auth or subpath on a port that gets no route is refused', () => {
    const list = problems({ [ALPHA]: service('alpha', 'ports:\n  - { container: 80, auth: none, description: API }\n') });
    expectProblem(list, ALPHA, '/ports/0/auth', 'port.auth', /not web: true/);
  });

  test("a reference to another service's server-internal secret is refused; a client credential is fine", () => {
    const alpha = service('alpha', SERVER);
    const list = problems({
      [ALPHA]: alpha,
      'plugins/services/alpha/setup.sh.eta': 'true\n',
      [BETA]: service('beta', 'requires: [alpha]\nenvironment:\n  - { name: DSN, value: "x://{{alpha.ROOT_PASSWORD}}@{{alpha.API_TOKEN}}", description: uses both }\n'),
    });
    expectProblem(list, BETA, '/environment/0/value', 'env.scope', /ROOT_PASSWORD is a secret of "alpha" that stays with it/);
    assert.ok(!list.some((p) => p.message.includes('API_TOKEN')), list.map(formatProblem).join('\n'));
  });

  test('a database on a server that is not required, or with a password that is not a secret, is refused', () => {
    const list = problems({
      [ALPHA]: service('alpha', SERVER),
      'plugins/services/alpha/setup.sh.eta': 'true\n',
      [BETA]: service('beta', 'databases:\n  - { server: alpha, passwordEnv: DB_PASSWORD }\nenvironment:\n  - { name: DB_PASSWORD, default: x, description: not secret }\n'),
    });
    expectProblem(list, BETA, '/databases/0/server', 'database.server', /not in requires/);
    expectProblem(list, BETA, '/databases/0/passwordEnv', 'database.password', /must be a secret variable/);
  });

  test('a database server of a family runs the family\'s one setup script, with its own extensions as data', () => {
    const family = 'catalogue/database-families/pg/';
    const files = {
      [`${family}family.yaml`]: 'name: Pg\ndescription: roles and databases\nsetup: create.sh.eta\nenvironment: [ROOT_PASSWORD]\nextensions: true\n',
      [`${family}create.sh.eta`]: '# <%= it.self.name %>: <%= it.server.extensions.join(" ") %>\n',
      'catalogue/database-families/my/family.yaml': 'name: My\ndescription: users\nsetup: create.sh.eta\nenvironment: [ROOT_PASSWORD]\nhostEnv: MY_HOST\nextensions: false\n',
      'catalogue/database-families/my/create.sh.eta': '# my\n',
    };
    const server = (id: string, family: string, extra = '') => service(id, SERVER.replace('setup: setup.sh.eta', `family: ${family}${extra}`));
    const consumer = (id: string, server: string, extensions = '') => service(id, `requires: [${server}]\ndatabases:\n  - { server: ${server}, passwordEnv: DB_PASSWORD${extensions} }\nenvironment:\n  - { name: DB_PASSWORD, secret: true, description: own database }\n`);
    const result = loadCatalogue(writeCatalogue({ ...files, [ALPHA]: server('alpha', 'pg', ', extensions: [vchord]'), [BETA]: consumer('beta', 'alpha') }));
    assert.deepEqual(result.errors.map(formatProblem), []);
    const alpha = result.catalogue!.services.get('alpha')!;
    assert.equal(alpha.manifest.databaseServer!.setup, 'create.sh.eta', 'the family names the template');
    assert.equal(alpha.templates.get('create.sh.eta'), files[`${family}create.sh.eta`], 'the family\'s template, read once for all its servers');

    const list = problems({
      ...files,
      [ALPHA]: server('alpha', 'postgress'),
      'plugins/services/gamma/service.yaml': service('gamma', SERVER.replace('setup: setup.sh.eta', 'family: pg, setup: own.sh.eta').replace('ROOT_PASSWORD, secret', 'OTHER, secret')),
      'plugins/services/delta/service.yaml': server('delta', 'my', ', extensions: [x], hostEnv: PGHOST'),
      'plugins/services/epsilon/service.yaml': consumer('epsilon', 'delta', ', extensions: [pg_trgm]'),
      'plugins/services/zeta/service.yaml': service('zeta', SERVER.replace('setup: setup.sh.eta, ', '')),
    });
    expectProblem(list, ALPHA, '/databaseServer/family', 'database.family', /"postgress" is no database family \(a folder of catalogue\/database-families\/ with family.yaml\): use one of my, pg/);
    expectProblem(list, 'plugins/services/gamma/service.yaml', '/databaseServer/setup', 'database.family', /family "pg" brings the setup script/);
    expectProblem(list, 'plugins/services/gamma/service.yaml', '/databaseServer/family', 'database.family', /the pg family's setup script reads ROOT_PASSWORD, which this plugin does not declare/);
    expectProblem(list, 'plugins/services/delta/service.yaml', '/databaseServer/hostEnv', 'database.family', /reads the server's host from MY_HOST: remove hostEnv/);
    expectProblem(list, 'plugins/services/delta/service.yaml', '/databaseServer/extensions', 'database.family', /the my family's setup creates no extensions/);
    expectProblem(list, 'plugins/services/epsilon/service.yaml', '/databases/0/extensions', 'database.family', /"delta" is a my server, whose setup creates no extensions/);
    expectProblem(list, 'plugins/services/zeta/service.yaml', '/databaseServer', 'database.family', /needs family \(its engine's shared setup script: my, pg\) or, for an engine with no family, setup/);
    // a family.yaml that breaks its schema is named, and its servers are told where to look
    const broken = problems({ ...files, [`${family}family.yaml`]: 'name: Pg\nsetup: create.sh\nenvironment: []\nextensions: true\n', [ALPHA]: server('alpha', 'pg') });
    expectProblem(broken, `${family}family.yaml`, '/setup', 'schema', /pattern|must match/);
    expectProblem(broken, ALPHA, '/databaseServer/family', 'database.family', /family "pg", whose catalogue\/database-families\/pg\/family.yaml did not load/);
  });

  test('a metrics endpoint is a declared port, and a scraper renders the one shared scrape configuration as one of its files', () => {
    const MDB = 'plugins/services/mdb/service.yaml';
    const EXP = 'plugins/services/exp/service.yaml';
    const scrape = 'catalogue/metrics/scrape-config.yml.eta';
    const shared = { [scrape]: '# <%= it.self.name %> <%= it.scraper.evaluationInterval %>\n' };
    const scraper = (id: string, extra = '') => service(id, `ports:\n  - { container: 9090, description: api }\nfiles:\n  - { template: conf.yml.eta, target: /etc/conf.yml }\nscrapeConfig: { template: conf.yml.eta${extra} }\nmetrics: { port: 9090, path: /metrics }\n`);
    const exporter = (id: string, port: number, path = '/metrics') => service(id, `ports:\n  - { container: 9100, description: metrics }\nmetrics: { port: ${port}, path: ${path} }\n`);
    const result = loadCatalogue(writeCatalogue({ ...shared, [MDB]: scraper('mdb', ', evaluationInterval: 15s'), [EXP]: exporter('exp', 9100) }));
    assert.deepEqual(result.errors.map(formatProblem), []);
    const mdb = result.catalogue!.services.get('mdb')!;
    assert.equal(mdb.templates.get('conf.yml.eta'), shared[scrape], 'the shared template under the file name the plugin gives it');
    // the shared template is part of the plugin's hash (fragment cache) and of the catalogue's revision (snapshot key)
    const changed = loadCatalogue(writeCatalogue({ [scrape]: '# changed\n', [MDB]: scraper('mdb', ', evaluationInterval: 15s'), [EXP]: exporter('exp', 9100) }));
    assert.notEqual(changed.catalogue!.services.get('mdb')!.hash, mdb.hash);
    assert.notEqual(changed.catalogue!.revision, result.catalogue!.revision);
    assert.equal(changed.catalogue!.services.get('exp')!.hash, result.catalogue!.services.get('exp')!.hash, 'a service that scrapes nothing keeps its hash');

    const list = problems({
      ...shared,
      [MDB]: scraper('mdb').replace('scrapeConfig: { template: conf.yml.eta }', 'scrapeConfig: { template: other.yml.eta }').replace('metrics: { port: 9090, path: /metrics }\n', ''),
      [EXP]: exporter('exp', 9200),
      'plugins/services/gamma/service.yaml': exporter('gamma', 9100, 'metrics'),
    });
    expectProblem(list, MDB, '/scrapeConfig/template', 'metrics.endpoint', /"other.yml.eta" is not a files\[\].template of this plugin \(conf.yml.eta\)/);
    expectProblem(list, MDB, '/scrapeConfig', 'metrics.endpoint', /a scraper declares its own metrics endpoint/);
    expectProblem(list, EXP, '/metrics/port', 'metrics.endpoint', /port 9200 is not a container port of this plugin \(ports: 9100\)/);
    expectProblem(list, 'plugins/services/gamma/service.yaml', '/metrics/path', 'schema', /pattern|must match/);
    // without the shared template every scraper is told which file is missing
    expectProblem(problems({ [MDB]: scraper('mdb') }), MDB, '/scrapeConfig', 'template.missing', /template "scrape-config.yml.eta" is not in catalogue\/metrics/);
  });

  test('a database backed up with its own tools names declared variables, the ones its kind needs, and tools its image lists', () => {
    const list = problems({
      [BETA]: service('beta', 'backup: { kind: mongo, passwordEnv: NOPE }\nbinaries: [sh, mongodump]\nenvironment:\n  - { name: ROOT, default: x, description: root }\n'),
    });
    expectProblem(list, BETA, '/backup/passwordEnv', 'database.backup', /NOPE is not a variable this plugin declares/);
    expectProblem(list, BETA, '/backup', 'database.backup', /a mongo backup needs userEnv/);
    expectProblem(list, BETA, '/backup/kind', 'database.backup', /runs mongorestore in the container, which binaries does not list/);
    const clean = problems({ [BETA]: service('beta', 'backup: { kind: redis }\nbinaries: [redis-cli]\n') });
    assert.deepEqual(clean.filter((p) => p.rule === 'database.backup'), [], 'a Redis without a password needs no variable');
  });

  test('ifPresent must name a plugin, and a default may hold only {{url:id}}', () => {
    const list = problems({
      [BETA]: service('beta', 'requires: [alpha]\nenvironment:\n  - { name: A, ifPresent: gamma, value: x, description: a }\n  - { name: B, default: "{{host:alpha}}", description: b }\n'),
    });
    expectProblem(list, BETA, '/environment/0/ifPresent', 'ref.unknown', /unknown plugin "gamma"/);
    expectProblem(list, BETA, '/environment/1/default', 'env.ref', /only \{\{url:id\}\}/);
  });

  test('{{url:id}} needs a web port on that plugin', () => {
    const list = problems({ [BETA]: service('beta', 'requires: [alpha]\nenvironment:\n  - { name: U, default: "{{url:alpha}}/x", description: u }\n') });
    expectProblem(list, BETA, '/environment/0/default', 'env.ref', /has no web port/);
  });

  test('a health check must run a program the manifest says the image holds', () => {
    const missing = problems({ [ALPHA]: service('alpha', 'healthcheck: { test: "curl -fsS http://127.0.0.1/health" }\n') });
    expectProblem(missing, ALPHA, '/healthcheck', 'image.binary', /list in binaries/);
    const noCurl = problems({ [ALPHA]: service('alpha', 'binaries: [sh, wget]\nhealthcheck: { test: "curl -fsS http://127.0.0.1/health" }\n') });
    expectProblem(noCurl, ALPHA, '/healthcheck/test', 'image.binary', /runs curl, which binaries does not list for example\/alpha:1\.2\.3/);
    const noShell = problems({ [ALPHA]: service('alpha', 'binaries: [/alpha]\nhealthcheck: { test: "/alpha health" }\n') });
    expectProblem(noShell, ALPHA, '/healthcheck/test', 'image.binary', /shell-form health check runs sh/);
    const fine = loadCatalogue(writeCatalogue({ [ALPHA]: service('alpha', 'binaries: [/alpha]\nhealthcheck: { test: ["/alpha", "health"] }\n') }));
    assert.deepEqual(fine.errors.map(formatProblem), []);
  });

  test('a framework without firstRun or with a key it does not declare is refused', () => {
    const fw = 'plugins/frameworks/fw/framework.yaml';
    const base = loadCatalogue(writeCatalogue()).catalogue;
    assert.ok(base, 'the base fixture loads');
    const list = problems({ [fw]: (readFixture(fw)).replace('keys: [FW_API_KEY]', 'keys: [OTHER_KEY]') });
    expectProblem(list, fw, '/firstRun/keys/0', 'framework.first-run', /OTHER_KEY is not a shared provider key/);
    const missing = problems({ [fw]: readFixture(fw).replace(/^firstRun:.*\n/m, '') });
    expectProblem(missing, fw, '', 'schema', /firstRun/);
    // every framework says what holds for a local model server in the stack (issue 20)
    const silent = problems({ [fw]: readFixture(fw).replace(/, localModelsNote: "[^"]*"/, '') });
    expectProblem(silent, fw, '/firstRun', 'schema', /localModelsNote/);
  });

  test('a framework wired to a local model server declares the models it uses there (issue 20)', () => {
    const fw = 'plugins/frameworks/fw/framework.yaml';
    const wired = readFixture(fw).replace('localModelsNote:', 'localModels: [alpha], localModelsNote:');
    const undeclared = problems({ [fw]: wired });
    expectProblem(undeclared, fw, '/firstRun/localModels', 'framework.first-run', /OLLAMA_MODEL names a model of the local model server: declare it in environment with shared: true and ifPresent: alpha/);
    const model = '  - { name: OLLAMA_MODEL, shared: true, ifPresent: alpha, default: "m:1b", description: Local model }\n';
    const declared = wired.replace('firstRun:', `${model}firstRun:`);
    assert.deepEqual(loadCatalogue(writeCatalogue({ [fw]: declared })).errors.map(formatProblem), []);
    const embed = problems({ [fw]: declared.replace('localModels: [alpha],', 'localModels: [alpha], localModelVariables: [OLLAMA_MODEL, EMBED_MODEL],') });
    expectProblem(embed, fw, '/firstRun/localModelVariables/1', 'framework.first-run', /EMBED_MODEL names a model/);
  });
});

function readFixture(file: string): string {
  return BASE_FILES[file];
}
