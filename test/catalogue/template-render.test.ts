// A plugin template that throws only in some stacks (issue 24). The loader renders every template in
// representative stacks, so one that fails with a domain is refused by lint and at start with its file,
// line and rule; one that fails only where the check cannot reach answers generate with an error naming
// the plugin (500 PLUGIN_TEMPLATE_ERROR), never a bare INTERNAL_ERROR.
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { KEY } from '../support/keys.js';
import { logText, spawnServer, stopServer, waitForOutput, type ServerProcess } from '../support/process.js';

const WITH_FILE = 'files:\n  - { template: conf.yaml.eta, target: /etc/alpha/conf.yaml }\n';
/** Fine without a domain; with one, line 3 reads a field the context does not have. */
const FAILS_WITH_DOMAIN = 'name: <%= it.yaml(it.stack.name) %>\n<% if (it.stack.domain) { %>\nlabels: <%= it.stack.domain.labels.join(",") %>\n<% } %>\n';
/** Fine without a domain and with a two-label one (what the load check tries); a longer domain fails at line 3. */
const FAILS_WITH_SUBDOMAIN = 'name: <%= it.yaml(it.stack.name) %>\n<% if (it.stack.domain) { %>\nzone: <%= it.stack.domain.match(/^([a-z]+)\\.[a-z]+$/)[1] %>\n<% } %>\n';

function lint(folder: string, cwd: string, format = 'json'): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'src/cli/main.ts'), 'lint', '--format', format, folder],
      { cwd, env: { ...process.env, NO_COLOR: '1' } }, (_e, stdout) => resolve({ code: child.exitCode, stdout }));
  });
}

describe('a template that fails only with a domain', () => {
  test('stackwright lint refuses the folder with the template file, line and rule', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-render-'));
    const folder = path.join(root, 'domain-only');
    fs.mkdirSync(folder);
    fs.writeFileSync(path.join(folder, 'service.yaml'), service('domain-only', WITH_FILE));
    fs.writeFileSync(path.join(folder, 'conf.yaml.eta'), FAILS_WITH_DOMAIN);
    const run = await lint('domain-only', root);
    assert.equal(run.code, 1, run.stdout);
    const report = JSON.parse(run.stdout) as { errors: { file: string; line?: number; pointer: string; rule: string; message: string }[] };
    assert.equal(report.errors.length, 1, run.stdout);
    const [problem] = report.errors;
    assert.deepEqual([problem.file, problem.line, problem.rule], ['domain-only/conf.yaml.eta', 3, 'template.render']);
    assert.match(problem.message, /service "domain-only": the template fails at line 3 when rendered for a stack of service domain-only, the default framework; proxy \w+; domain example\.com; (docker|bare-metal): Cannot read properties of undefined \(reading 'join'\)/);

    const github = await lint('domain-only', root, 'github');
    assert.match(github.stdout, /^::error file=domain-only\/conf\.yaml\.eta,line=3,title=template\.render::\/: service "domain-only": the template fails at line 3/m);

    // the same template without the faulty line passes: the check renders, it does not guess
    fs.writeFileSync(path.join(folder, 'conf.yaml.eta'), FAILS_WITH_DOMAIN.replace(/^labels: .*$/m, 'domain: <%= it.stack.domain %>'));
    const fixed = await lint('domain-only', root);
    assert.equal(fixed.code, 0, fixed.stdout);
  });

  test('the server refuses to start on it, naming file:line and the rule', () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', WITH_FILE),
      'plugins/services/alpha/conf.yaml.eta': FAILS_WITH_DOMAIN,
    });
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(REPO_ROOT, 'src/main.ts')], {
      env: { ...process.env, STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: '', PORT: '0', STACK_API_KEY: KEY },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const log = logText(run.stdout);
    assert.match(log, /1 error\(s\); not starting/);
    assert.match(log, /plugins\/services\/alpha\/conf\.yaml\.eta:3 {2}\/ {2}template\.render {2}service "alpha": the template fails at line 3 when rendered for a stack of service alpha[^\n]*domain example\.com/);
  });
});

describe('a template error during a generation', () => {
  let server: ServerProcess;
  before(async () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', WITH_FILE),
      'plugins/services/alpha/conf.yaml.eta': FAILS_WITH_SUBDOMAIN,
    });
    server = await spawnServer({ STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: '', STACK_WATCH_CATALOGUE: '0' });
  });
  after(async () => {
    await stopServer(server);
  });

  const generate = (domain: string) => fetch(`${server.url}/api/v1/generate`, {
    method: 'POST', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'zone', services: ['alpha'], domain }),
  });

  test('answers 500 PLUGIN_TEMPLATE_ERROR naming the plugin, template and line; the server log names them too', async () => {
    // the domain the load check tried renders
    const fine = await generate('example.com');
    assert.equal(fine.status, 200);
    assert.match(((await fine.json()) as { data: { files: Record<string, string> } }).data.files['config/alpha/conf.yaml'], /zone: example/);

    const mark = server.output().length;
    const res = await generate('agents.example.com');
    assert.equal(res.status, 500);
    assert.match(res.headers.get('content-type') ?? '', /application\/json/);
    const body = await res.json() as { ok: boolean; error: { code: string; message: string; details: Record<string, unknown> } };
    assert.equal(body.ok, false);
    assert.equal(body.error.code, 'PLUGIN_TEMPLATE_ERROR');
    assert.deepEqual(body.error.details, { plugin: 'alpha', kind: 'service', template: 'conf.yaml.eta', line: 3 });
    assert.match(body.error.message, /^the template conf\.yaml\.eta of service "alpha" failed at line 3: Cannot read properties of null \(reading '1'\)\. This is a fault of that plugin, not of the request/);
    assert.ok(res.headers.get('x-ratelimit-limit'), 'the error carries the rate-limit headers like every answer');
    // the log line is written beside the answer, so it may arrive just after it
    const log = await waitForOutput(server, /POST \/api\/v1\/generate 500 PLUGIN_TEMPLATE_ERROR: the template conf\.yaml\.eta of service "alpha" failed at line 3/, mark);
    assert.doesNotMatch(log, /INTERNAL_ERROR|unexpected error/);
    // a record of the service's JSON log (not a bare line beside it), with the request's id like its request line
    const line = server.records().find((r) => r.code === 'PLUGIN_TEMPLATE_ERROR');
    assert.ok(line, 'the error is a JSON log record');
    assert.equal(line.level, 'error');
    assert.equal(line.requestId, res.headers.get('x-request-id'));
    assert.equal(line.route, '/api/v1/generate');
  });
});
