// The `stackwright` command line as a user runs it (a real process): help and exit codes, lint of a
// dropped-in folder in every format, offline generate byte-identical to the API, and upgrade keeping
// the user's edits, .env values and override file, with a rollback.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { KEY, startServer, type TestServer } from '../support/server.js';

interface Run { code: number | null; stdout: string; stderr: string }

function cli(args: string[], env: Record<string, string> = {}, cwd = REPO_ROOT): Promise<Run> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'src/cli/main.ts'), ...args], { cwd, env: { ...process.env, NO_COLOR: '1', ...env }, maxBuffer: 32 * 1024 * 1024 },
      (_e, stdout, stderr) => resolve({ code: child.exitCode, stdout, stderr }));
  });
}

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-cli-'));

/** Every file under dir, relative path → content. */
function readTree(dir: string, skip: (rel: string) => boolean = () => false): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const e of fs.readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const rel = path.posix.join(sub, e.name);
      if (skip(rel)) continue;
      if (e.isDirectory()) walk(rel);
      else out[rel] = fs.readFileSync(path.join(dir, rel), 'utf8');
    }
  };
  walk('');
  return out;
}

describe('stackwright help and usage', () => {
  test('--help and help <command> print help and exit 0; a wrong command line exits 2 with the usage', async () => {
    const help = await cli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: stackwright <command>/);
    assert.match(help.stdout, /Exit codes: 0 done, 1 problems/);
    const lintHelp = await cli(['lint', '--help']);
    assert.equal(lintHelp.code, 0);
    assert.match(lintHelp.stdout, /--format github/);
    assert.doesNotMatch(lintHelp.stdout, /category\.unknown|file\.unreadable|folder\(s\) checked/, 'help is never lint output');
    const bad = await cli(['lint', '--format', 'xml']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--format must be one of text, json, github \(got "xml"\)/);
    assert.equal((await cli(['frobnicate'])).code, 2);
    assert.equal((await cli(['generate', '--nme', 'x'])).code, 2);
  });
});

describe('stackwright lint <folder>', () => {
  let root: string;
  before(() => {
    root = tmp();
    // an operator's new plugin, outside the plugins folder: a copy of qdrant under another id
    fs.cpSync(path.join(REPO_ROOT, 'plugins/services/qdrant'), path.join(root, 'my-vectors'), { recursive: true });
    fs.cpSync(path.join(REPO_ROOT, 'plugins/services/qdrant'), path.join(root, 'broken'), { recursive: true });
    const broken = path.join(root, 'broken', 'service.yaml');
    fs.writeFileSync(broken, fs.readFileSync(broken, 'utf8').replace('category: vector-db', 'category: vectordb').replace(/^requires: .*$/m, '') + 'requires: [postgress]\n');
    fs.mkdirSync(path.join(root, 'empty'));
  });

  test('a clean folder: exit 0, in text and json', async () => {
    const text = await cli(['lint', 'my-vectors'], {}, root);
    assert.equal(text.code, 0, text.stdout + text.stderr);
    assert.match(text.stdout, /1 folder\(s\) checked against a catalogue of \d+ services: 0 error\(s\)/);
    const json = await cli(['lint', '--format', 'json', 'my-vectors'], {}, root);
    assert.deepEqual(JSON.parse(json.stdout).errors, []);
  });

  test('a broken folder: exit 1, each problem with its file (the folder as given), pointer and rule id', async () => {
    const json = await cli(['lint', 'broken', 'empty', '--format', 'json'], {}, root);
    assert.equal(json.code, 1);
    const report = JSON.parse(json.stdout) as { ok: boolean; errors: { file: string; pointer: string; rule: string; message: string }[] };
    assert.equal(report.ok, false);
    const rules = report.errors.map((e) => `${e.file} ${e.pointer} ${e.rule}`);
    assert.ok(rules.includes('broken/service.yaml /category category.unknown'), rules.join('\n'));
    assert.ok(rules.includes('broken/service.yaml /requires/0 ref.unknown'), rules.join('\n'));
    assert.ok(rules.includes('empty  file.unreadable'), rules.join('\n'));
    assert.match(report.errors.find((e) => e.rule === 'ref.unknown')!.message, /did you mean "postgresql"/);

    const github = await cli(['lint', 'broken', '--format', 'github'], {}, root);
    assert.equal(github.code, 1);
    assert.match(github.stdout, /^::error file=broken\/service\.yaml,title=category\.unknown::\/category: /m);
  });

  test('without folders it checks the whole catalogue', async () => {
    const run = await cli(['lint']);
    assert.equal(run.code, 0);
    assert.match(run.stdout, /^ok: \d+ services, \d+ frameworks/m);
  });
});

describe('stackwright generate', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(async () => { await server.close(); });

  const request = { name: 'offline', preset: 'research-assistant', proxy: 'caddy', domain: 'example.com' };

  test('writes the same files as the API, from a request file or from flags', async () => {
    const api = (await (await server.post('/api/v1/generate', request, { Authorization: `Bearer ${KEY}` })).json()) as { data: { files: Record<string, string> } };
    const dir = tmp();
    const file = path.join(dir, 'request.json');
    fs.writeFileSync(file, JSON.stringify(request));
    const fromFile = await cli(['generate', '--request', file, '--out', path.join(dir, 'a')]);
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.deepEqual(readTree(path.join(dir, 'a')), api.data.files);
    assert.equal(fs.statSync(path.join(dir, 'a', 'scripts/start.sh')).mode & 0o777, 0o755);
    const fromFlags = await cli(['generate', '--name', 'offline', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'example.com', '--out', path.join(dir, 'b')]);
    assert.equal(fromFlags.code, 0, fromFlags.stderr);
    assert.deepEqual(readTree(path.join(dir, 'b')), api.data.files);
    // a folder that is not empty is refused
    const again = await cli(['generate', '--request', file, '--out', path.join(dir, 'a')]);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /is not empty/);
  });

  test('--tar writes the bytes the API sends', async () => {
    const res = await server.post('/api/v1/generate', { ...request, format: 'tar' }, { Authorization: `Bearer ${KEY}` });
    const apiTar = Buffer.from(await res.arrayBuffer());
    const target = path.join(tmp(), 'offline.tar.gz');
    const run = await cli(['generate', '--name', 'offline', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'example.com', '--tar', target]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.readFileSync(target).equals(apiTar));
  });

  test('a request the API refuses is refused the same way, with what to fix', async () => {
    const run = await cli(['generate', '--name', 'x', '--services', 'postgress', '--out', path.join(tmp(), 'x')]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /VALIDATION_ERROR: .*\n {2}- .*unknown service "postgress" \(did you mean "postgresql"\?\)/);
  });
});

/** A copy of the plugins (to move a tag in), the env that points the CLI at it, and where a stack goes. */
function catalogueCopy() {
  const root = tmp();
  const plugins = path.join(root, 'plugins');
  fs.cpSync(path.join(REPO_ROOT, 'plugins'), plugins, { recursive: true });
  const env = { STACK_PLUGINS_DIR: plugins, STACK_CATALOGUE_DIR: path.join(REPO_ROOT, 'catalogue') };
  return { plugins, env, stack: path.join(root, 'stack') };
}

/** Moves a service's imageTag in the catalogue copy. */
function moveTag(plugins: string, id: string, tag: string): void {
  const manifest = path.join(plugins, `services/${id}/service.yaml`);
  fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8').replace(/^imageTag: .*$/m, `imageTag: ${tag}`));
}

describe('stackwright upgrade', () => {
  test('applies the new catalogue to files the user left alone, keeps edits, .env values and the override file, and rolls back', async () => {
    const { plugins, env, stack } = catalogueCopy();
    assert.equal((await cli(['generate', '--name', 'up', '--services', 'qdrant', '--out', stack], env)).code, 0);

    // the user runs it (.env appears), edits the README and adds an override
    const compose0 = fs.readFileSync(path.join(stack, 'docker-compose.yml'), 'utf8');
    fs.writeFileSync(path.join(stack, '.env'), 'QDRANT_QDRANT__SERVICE__API_KEY=kept-secret\nCOMPOSE_PROJECT_NAME=up\n');
    fs.appendFileSync(path.join(stack, 'README.md'), '\nMy notes.\n');
    fs.writeFileSync(path.join(stack, 'docker-compose.override.yml'), 'services: {}\n');

    // the catalogue moves on: a new tag and a new setting
    const manifest = path.join(plugins, 'services/qdrant/service.yaml');
    fs.writeFileSync(manifest, fs.readFileSync(manifest, 'utf8')
      .replace(/^imageTag: .*$/m, 'imageTag: v9.9.9')
      .replace(/^environment:\n/m, 'environment:\n  - { name: QDRANT__TELEMETRY_DISABLED, default: "true", description: Send no telemetry }\n'));

    const dry = await cli(['upgrade', stack, '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^\+.*qdrant\/qdrant:v9\.9\.9/m, 'the diff shows the new tag');
    assert.match(dry.stdout, /kept your edit: README\.md/);
    assert.match(dry.stdout, /dry run, nothing written/);
    assert.equal(fs.readFileSync(path.join(stack, 'docker-compose.yml'), 'utf8'), compose0);

    const run = await cli(['upgrade', stack], env);
    assert.equal(run.code, 0, run.stderr);
    const compose = fs.readFileSync(path.join(stack, 'docker-compose.yml'), 'utf8');
    assert.match(compose, /qdrant\/qdrant:v9\.9\.9/);
    assert.match(fs.readFileSync(path.join(stack, 'README.md'), 'utf8'), /My notes\.\n$/, 'the edited README is kept');
    assert.ok(fs.existsSync(path.join(stack, 'README.md.stackwright-new')), 'the new README is beside it');
    const dotenv = fs.readFileSync(path.join(stack, '.env'), 'utf8');
    assert.match(dotenv, /^QDRANT_QDRANT__SERVICE__API_KEY=kept-secret$/m);
    assert.match(dotenv, /^QDRANT_QDRANT__TELEMETRY_DISABLED=true$/m, 'the new key is added');
    assert.equal(fs.readFileSync(path.join(stack, 'docker-compose.override.yml'), 'utf8'), 'services: {}\n');
    const record = JSON.parse(fs.readFileSync(path.join(stack, 'stackwright.json'), 'utf8'));
    assert.equal(record.request.name, 'up');

    // a second upgrade finds nothing to do, and still keeps the edit
    const again = await cli(['upgrade', stack, '--dry-run'], env);
    assert.match(again.stdout, /0 updated, 0 added, 0 removed, 1 kept as you edited them/);

    const back = await cli(['upgrade', stack, '--rollback'], env);
    assert.equal(back.code, 0, back.stderr);
    assert.equal(fs.readFileSync(path.join(stack, 'docker-compose.yml'), 'utf8'), compose0);
    assert.doesNotMatch(fs.readFileSync(path.join(stack, '.env'), 'utf8'), /TELEMETRY/);
  });

  test('image pins left at the previous default follow the new one; a pin the user chose stays and is named; rollback removes what it wrote', async () => {
    const { plugins, env, stack } = catalogueCopy();
    assert.equal((await cli(['generate', '--name', 'pins', '--services', 'qdrant,redis', '--out', stack], env)).code, 0);
    const record0 = JSON.parse(fs.readFileSync(path.join(stack, 'stackwright.json'), 'utf8'));
    const qdrant0 = record0.images.QDRANT_IMAGE as string;
    assert.match(qdrant0, /^qdrant\/qdrant:/, 'the record keeps the pins it wrote');

    // as start.sh does: .env is .env.example, secrets filled; the user pins Redis to a tag of their own and edits the README
    const example = fs.readFileSync(path.join(stack, '.env.example'), 'utf8');
    fs.writeFileSync(path.join(stack, '.env'), example.replace(/^REDIS_IMAGE=.*$/m, 'REDIS_IMAGE=redis:7.4.0-alpine').replace(/^(REDIS_REDIS_PASSWORD)=$/m, '$1=s3cret'));
    fs.appendFileSync(path.join(stack, 'README.md'), '\nMy notes.\n');

    // the catalogue moves both tags
    for (const id of ['qdrant', 'redis']) moveTag(plugins, id, 'v9.9.9');
    const run = await cli(['upgrade', stack], env);
    assert.equal(run.code, 0, run.stderr);
    const dotenv = fs.readFileSync(path.join(stack, '.env'), 'utf8');
    assert.match(dotenv, /^QDRANT_IMAGE=qdrant\/qdrant:v9\.9\.9$/m, 'the untouched pin follows the new default');
    assert.match(dotenv, /^REDIS_IMAGE=redis:7\.4\.0-alpine$/m, 'the chosen pin stays');
    assert.match(dotenv, /^REDIS_REDIS_PASSWORD=s3cret$/m);
    assert.ok(run.stdout.includes(`QDRANT_IMAGE: ${qdrant0} → qdrant/qdrant:v9.9.9`), run.stdout);
    assert.match(run.stdout, /kept your REDIS_IMAGE=redis:7\.4\.0-alpine; the new default is redis:v9\.9\.9/);
    assert.match(run.stdout, /1 image\(s\) moved to the new default/);
    assert.ok(fs.existsSync(path.join(stack, 'README.md.stackwright-new')));
    assert.equal(JSON.parse(fs.readFileSync(path.join(stack, 'stackwright.json'), 'utf8')).images.QDRANT_IMAGE, 'qdrant/qdrant:v9.9.9');

    // nothing left to change: no backup is made
    const backups = path.join(stack, '.stackwright', 'upgrade-backups');
    const made = fs.readdirSync(backups);
    const again = await cli(['upgrade', stack], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /nothing to change/);
    assert.deepEqual(fs.readdirSync(backups), made, 'no second backup');

    const back = await cli(['upgrade', stack, '--rollback'], env);
    assert.equal(back.code, 0, back.stderr);
    assert.ok(!fs.existsSync(path.join(stack, 'README.md.stackwright-new')), 'the file it wrote beside the edit is gone');
    assert.match(back.stdout, /README\.md\.stackwright-new/);
    assert.match(fs.readFileSync(path.join(stack, '.env'), 'utf8'), new RegExp(`^QDRANT_IMAGE=${qdrant0.replace(/[.]/g, '\\.')}$`, 'm'), '.env is as it was');
  });

  test('a stack recorded before pins were kept takes the previous defaults from its unedited .env.example', async () => {
    const { plugins, env, stack } = catalogueCopy();
    assert.equal((await cli(['generate', '--name', 'old', '--services', 'qdrant', '--out', stack], env)).code, 0);
    const recordFile = path.join(stack, 'stackwright.json');
    const record = JSON.parse(fs.readFileSync(recordFile, 'utf8'));
    delete record.images;
    fs.writeFileSync(recordFile, JSON.stringify(record));
    fs.copyFileSync(path.join(stack, '.env.example'), path.join(stack, '.env'));
    moveTag(plugins, 'qdrant', 'v9.9.9');
    const run = await cli(['upgrade', stack], env);
    assert.equal(run.code, 0, run.stderr);
    assert.match(fs.readFileSync(path.join(stack, '.env'), 'utf8'), /^QDRANT_IMAGE=qdrant\/qdrant:v9\.9\.9$/m);
  });

  test('a folder without stackwright.json is refused with what to do', async () => {
    const run = await cli(['upgrade', tmp()]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /has no stackwright\.json: it is not a stack Stackwright generated/);
  });
});
