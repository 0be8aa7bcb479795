// The `stackwright` command line as a user runs it (a real process): help and exit codes as docs/cli.md
// states them, messages in the flags the user typed, lint of a dropped-in folder in every format (every
// problem in one round), the catalogue listed offline as the API lists it, offline generate
// byte-identical to the API, and upgrade keeping the user's edits, .env values and override file.
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { REPO_ROOT } from '../../src/config.js';
import { service, writeCatalogue } from '../support/fixture.js';
import { KEY, shippedCatalogue, startServer, type TestServer } from '../support/server.js';
import { MAX_JSON_DEPTH } from '../../src/json-nesting.js';

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
    const typo = await cli(['generate', '--nme', 'x']);
    assert.equal(typo.code, 2);
    assert.match(typo.stderr, /^error: unknown option --nme \(did you mean "--name"\?\): the options of generate are --request, --name, /);
    const firstLine = typo.stderr.split('\n')[0];
    assert.equal((firstLine.match(/"/g) ?? []).length % 2, 0, 'quotes balance');
    assert.equal((firstLine.match(/'/g) ?? []).length % 2, 0, 'quotes balance');
    assert.match((await cli(['serve', '--port', '1'])).stderr, /unknown option --port: serve takes no options/);
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
    // a folder named with a leading dot, with a problem of its own
    fs.cpSync(path.join(root, 'broken'), path.join(root, '.hidden'), { recursive: true });
    // a schema error beside problems the rules find: all in one round
    fs.cpSync(path.join(REPO_ROOT, 'plugins/services/qdrant'), path.join(root, 'schema-and-more'), { recursive: true });
    const more = path.join(root, 'schema-and-more', 'service.yaml');
    fs.writeFileSync(more, fs.readFileSync(more, 'utf8').replace('category: vector-db', 'category: vectordb').replace(/^minMemoryMB: .*$/m, 'minMemoryMB: lots').replace(/^requires: .*$/m, '') + 'requires: [postgress]\n');
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

  test('a folder named with a leading dot is checked, and its name reported', async () => {
    const run = await cli(['lint', '.hidden', '--format', 'json'], {}, root);
    assert.equal(run.code, 1);
    const rules = (JSON.parse(run.stdout).errors as { file: string; rule: string; message: string }[]).map((e) => `${e.file} ${e.rule}`);
    assert.ok(rules.includes('.hidden id.invalid'), rules.join('\n'));
    assert.ok(rules.includes('.hidden/service.yaml category.unknown'), rules.join('\n'));
    assert.match(JSON.parse(run.stdout).errors[0].message, /starts with a dot: the service skips such folders/);
  });

  test('a schema error does not hide the folder\'s other problems', async () => {
    const run = await cli(['lint', 'schema-and-more', '--format', 'json'], {}, root);
    assert.equal(run.code, 1);
    const errors = (JSON.parse(run.stdout).errors as { file: string; pointer: string; rule: string }[]).map((e) => `${e.pointer} ${e.rule}`).sort();
    assert.deepEqual(errors, ['/category category.unknown', '/minMemoryMB schema', '/requires/0 ref.unknown']);
  });

  test('a folder that does not exist, or a file, is named as such', async () => {
    const run = await cli(['lint', 'nowhere', 'my-vectors/service.yaml'], {}, root);
    assert.equal(run.code, 1);
    assert.match(run.stdout, /^nowhere {2}\/ {2}file\.unreadable {2}nowhere does not exist/m);
    assert.match(run.stdout, /^my-vectors\/service\.yaml {2}\/ {2}file\.unreadable {2}.* is a file, not a folder/m);
    assert.doesNotMatch(run.stdout, /no plugin manifest here/);
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

  test('--force writes over an earlier stack: edited files get our content and modes back, folders that exist are reused', async () => {
    const api = (await (await server.post('/api/v1/generate', request, { Authorization: `Bearer ${KEY}` })).json()) as { data: { files: Record<string, string> } };
    const dir = path.join(tmp(), 'stack');
    const flags = ['generate', '--name', 'offline', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'example.com', '--out', dir];
    assert.equal((await cli(flags)).code, 0);
    fs.writeFileSync(path.join(dir, 'scripts/start.sh'), 'echo edited\n');
    fs.chmodSync(path.join(dir, 'scripts/start.sh'), 0o600);
    fs.rmSync(path.join(dir, 'README.md'));
    const forced = await cli([...flags, '--force']);
    assert.equal(forced.code, 0, forced.stderr);
    assert.deepEqual(readTree(dir), api.data.files);
    assert.equal(fs.statSync(path.join(dir, 'scripts/start.sh')).mode & 0o777, 0o755);
    assert.equal(fs.statSync(path.join(dir, 'README.md')).mode & 0o777, 0o644);
  });

  test('a reader that stops early (| head -1) ends the output, not the command: files written, exit 0, no stack trace', async () => {
    const dir = tmp();
    const out = path.join(dir, 'stack');
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'src/cli/main.ts'), 'generate', '--name', 'piped', '--preset', 'research-assistant', '--out', out], {
      cwd: REPO_ROOT, env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    // the reader is gone before the first line (as in `| true`; `| head -1` is the same from its second line)
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, stderr);
    assert.doesNotMatch(stderr, /EPIPE|Unhandled/);
    assert.ok(fs.existsSync(path.join(out, 'stackwright.json')), 'the files are written');
  });

  test('a request file nested deeper than the API allows is a wrong command line, refused before parsing', async () => {
    const dir = tmp();
    const file = path.join(dir, 'deep.json');
    fs.writeFileSync(file, `{"name":"x","services":${'['.repeat(MAX_JSON_DEPTH)}${']'.repeat(MAX_JSON_DEPTH)}}`);
    const run = await cli(['generate', '--request', file, '--out', path.join(dir, 'out')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, new RegExp(`nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`));
    assert.ok(!fs.existsSync(path.join(dir, 'out')), 'nothing written');
  });

  test('a request on stdin nested past the limit is refused the same way', async () => {
    const dir = tmp();
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'src/cli/main.ts'), 'generate', '--request', '-', '--out', path.join(dir, 'out')], { env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    child.stdin.end(`{"name":"x","skills":${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`);
    assert.equal(await new Promise((resolve) => child.on('close', resolve)), 2);
    assert.match(stderr, new RegExp(`- nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`));
    assert.ok(!fs.existsSync(path.join(dir, 'out')), 'nothing written');
  });

  test('stackwright mcp answers a message nested past the limit with a JSON-RPC error, unparsed, and goes on serving', async () => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), path.join(REPO_ROOT, 'src/cli/main.ts'), 'mcp'], { env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d; });
    const line = (n: number) => new Promise<any>((resolve) => {
      const check = () => {
        const lines = stdout.split('\n').filter(Boolean);
        if (lines.length >= n) resolve(JSON.parse(lines[n - 1]));
        else child.stdout.once('data', check);
      };
      check();
    });
    child.stdout.on('data', (d: Buffer) => { stdout += d; });
    try {
      const deep = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":${'{"a":'.repeat(MAX_JSON_DEPTH)}1${'}'.repeat(MAX_JSON_DEPTH)}}`;
      // sent in two pieces, the second with the next message, as a pipe may deliver them
      child.stdin.write(deep.slice(0, 50));
      child.stdin.write(`${deep.slice(50)}\n{"jsonrpc":"2.0","id":2,"method":"ping"}\n`);
      const refused = await line(1);
      assert.deepEqual(refused, { jsonrpc: '2.0', id: null, error: { code: -32600, message: `the message nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels; it was not read` } });
      assert.deepEqual(await line(2), { jsonrpc: '2.0', id: 2, result: {} }, 'the next message is served');
      assert.match(stderr, /nests arrays and objects deeper/);
    } finally {
      child.kill();
    }
  });

  test('--tar writes the bytes the API sends', async () => {
    const res = await server.post('/api/v1/generate', { ...request, format: 'tar' }, { Authorization: `Bearer ${KEY}` });
    const apiTar = Buffer.from(await res.arrayBuffer());
    const target = path.join(tmp(), 'offline.tar.gz');
    const run = await cli(['generate', '--name', 'offline', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'example.com', '--tar', target]);
    assert.equal(run.code, 0, run.stderr);
    assert.ok(fs.readFileSync(target).equals(apiTar));
  });

  test('a value the request checks refuse is a wrong command line (exit 2), named by its flag', async () => {
    const out = path.join(tmp(), 'x');
    const service = await cli(['generate', '--name', 'x', '--services', 'postgress', '--out', out]);
    assert.equal(service.code, 2);
    assert.match(service.stderr, /^error: --services: unknown service "postgress" \(did you mean "postgresql"\?\)\n\(stackwright help generate lists the options\)/);
    const deployment = await cli(['generate', '--name', 'x', '--deployment', 'nomad', '--out', out]);
    assert.equal(deployment.code, 2);
    assert.match(deployment.stderr, /--deployment must be one of: "docker", "bare-metal", "kubernetes", "swarm" \(got "nomad"\)/);
    const proxy = await cli(['generate', '--name', 'x', '--proxy', 'apache', '--out', out]);
    assert.equal(proxy.code, 2);
    assert.match(proxy.stderr, /--proxy: unknown proxy "apache"/);
    const several = await cli(['generate', '--framework', 'nope', '--companions', 'codex,codex', '--out', out]);
    assert.equal(several.code, 2);
    assert.match(several.stderr, /3 problems:\n {2}- --name is required\n/);
    assert.match(several.stderr, /--framework: unknown framework "nope"/);
    assert.match(several.stderr, /--companions: companion framework "codex" is listed twice/);
    const platform = await cli(['generate', '--name', 'x', '--platform', 'linux/s390x', '--out', out]);
    assert.match(platform.stderr, /--platform must be one of: "linux\/amd64", "linux\/arm64" \(got "linux\/s390x"\)/);
    for (const run of [service, deployment, proxy, several, platform]) assert.doesNotMatch(run.stderr, /the body|deploymentType|primaryFramework|VALIDATION_ERROR/, 'the API\'s words stay out');
    assert.ok(!fs.existsSync(out), 'nothing written');
    // a field from the request file keeps its name, after the file's
    const file = path.join(tmp(), 'request.json');
    fs.writeFileSync(file, JSON.stringify({ name: 'x', deploymentType: 'nomad' }));
    const fromFile = await cli(['generate', '--request', file, '--out', out]);
    assert.equal(fromFile.code, 2);
    assert.match(fromFile.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: deploymentType must be one of`));
    // a selection that is valid but cannot be generated is a failure (exit 1), not a wrong command line
    const conflict = await cli(['generate', '--name', 'x', '--services', 'redis,valkey', '--out', out]);
    assert.equal(conflict.code, 1);
    assert.match(conflict.stderr, /CONFLICT: /);
  });

  test('--tar refuses a name that is not .tar.gz or .tgz', async () => {
    const dir = tmp();
    const run = await cli(['generate', '--name', 'x', '--tar', path.join(dir, 'out.zip')]);
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--tar writes a gzip-compressed tar archive: give a file name ending in \.tar\.gz or \.tgz \(got ".*out\.zip"\)/);
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.equal((await cli(['generate', '--name', 'x', '--tar', path.join(dir, 'x.tgz')])).code, 0);
  });

  test('resolver warnings go to standard error, in flag terms', async () => {
    const gpuService = [...shippedCatalogue().services.values()].find((s) => s.manifest.gpu === 'required')!.id;
    const needs = await cli(['generate', '--name', 'g', '--services', gpuService, '--out', path.join(tmp(), 'g')]);
    assert.equal(needs.code, 0, needs.stderr);
    assert.match(needs.stderr, new RegExp(`^warning: GPU_REQUIRED: service "${gpuService}" needs a GPU: add --gpu`, 'm'));
    assert.doesNotMatch(needs.stdout, /GPU_REQUIRED/);
    const unused = await cli(['generate', '--name', 'g', '--services', 'redis', '--gpu', '--out', path.join(tmp(), 'g')]);
    assert.match(unused.stderr, /^warning: GPU_UNUSED: --gpu is given but no selected service can use a GPU/m);
    assert.match(unused.stdout, /memory: needs about \d+ MB \(the parts' minimums\), at most \d+ MB \(their limits\)/);
  });
});

describe('stackwright list', () => {
  let server: TestServer;
  before(async () => { server = await startServer(); });
  after(async () => { await server.close(); });
  const api = async (p: string) => ((await (await server.get(p)).json()) as { data: unknown }).data;
  const json = async (args: string[]) => {
    const run = await cli(['list', ...args, '--format', 'json']);
    assert.equal(run.code, 0, run.stderr);
    return JSON.parse(run.stdout);
  };

  test('--format json prints what the API lists, with the API\'s filters', async () => {
    assert.deepEqual(await json(['services']), await api('/api/v1/services'));
    assert.deepEqual(await json(['services', '--category', 'vector-db', '--maturity', 'stable']), await api('/api/v1/services?category=vector-db&maturity=stable'));
    assert.deepEqual(await json(['skills']), await api('/api/v1/skills'));
    assert.deepEqual(await json(['presets']), await api('/api/v1/presets'));
    assert.deepEqual(await json(['frameworks']), await api('/api/v1/frameworks'));
    assert.deepEqual(await json(['proxies']), await api('/api/v1/proxies'));
    const forQdrant = await json(['skills', '--service', 'qdrant']);
    assert.ok(forQdrant.total > 0 && forQdrant.skillPacks.every((p: { requiredServices: string[]; optionalServices: string[] }) => [...p.requiredServices, ...p.optionalServices].includes('qdrant')));
  });

  test('text: one line an entry, search ranked', async () => {
    const run = await cli(['list', 'services', '--text', 'postgres']);
    assert.equal(run.code, 0);
    assert.match(run.stdout.split('\n')[0], /^postgresql +PostgreSQL \(database, stable, \d+ MB: /);
    assert.match(run.stdout, /^\d+ services$/m);
    assert.match((await cli(['list', 'proxies'])).stdout, /^caddy +Caddy \(/m);
  });

  test('a wrong kind, filter or value exits 2 and says what to use', async () => {
    const kind = await cli(['list', 'servics']);
    assert.equal(kind.code, 2);
    assert.match(kind.stderr, /cannot list "servics" \(did you mean "services"\?\)/);
    const filter = await cli(['list', 'presets', '--tag', 'x']);
    assert.equal(filter.code, 2);
    assert.match(filter.stderr, /--tag does not filter presets: its filters are --text/);
    const service = await cli(['list', 'skills', '--service', 'qdrnt']);
    assert.equal(service.code, 2);
    assert.match(service.stderr, /--service: unknown service "qdrnt" \(did you mean "qdrant"\?\)/);
    const category = await cli(['list', 'services', '--category', 'vectr-db']);
    assert.equal(category.code, 2);
    assert.match(category.stderr, /--category: unknown category "vectr-db" \(did you mean "vector-db"\?\)/);
    assert.equal((await cli(['list'])).code, 2);
  });

  test('starts from the server\'s catalogue snapshot, and a changed plugin file is never served from it', async () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', 'files:\n  - { template: note.txt.eta, target: /etc/note.txt, description: a note }\n'),
      'plugins/services/alpha/note.txt.eta': 'version one\n',
    });
    const snapshot = path.join(dirs.root, 'snapshot.json');
    const env = { STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: snapshot };
    const generate = async (out: string) => {
      const run = await cli(['generate', '--name', 'snap', '--services', 'alpha', '--out', path.join(dirs.root, out)], env);
      assert.equal(run.code, 0, run.stderr);
      return fs.readFileSync(path.join(dirs.root, out, 'config/alpha/note.txt'), 'utf8');
    };
    assert.equal(await generate('first'), 'version one\n');
    assert.ok(fs.existsSync(snapshot), 'the first run writes the snapshot');
    // a snapshot whose key still matches the files is what the next run reads (here: altered by hand)
    fs.writeFileSync(snapshot, fs.readFileSync(snapshot, 'utf8').replace('version one', 'from the snapshot'));
    assert.equal(await generate('second'), 'from the snapshot\n');
    // a plugin file changed on disk changes the key: loaded in full, the snapshot rewritten
    fs.writeFileSync(path.join(dirs.plugins, 'services/alpha/note.txt.eta'), 'version two\n');
    assert.equal(await generate('third'), 'version two\n');
    assert.doesNotMatch(fs.readFileSync(snapshot, 'utf8'), /from the snapshot/);
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });

  test('a plugin file rewritten with the same size and its old mtime put back is still never served from the snapshot', async () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', 'files:\n  - { template: note.txt.eta, target: /etc/note.txt, description: a note }\n'),
      'plugins/services/alpha/note.txt.eta': 'version one\n',
    });
    const snapshot = path.join(dirs.root, 'snapshot.json');
    const env = { STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_CACHE: snapshot, STACK_CATALOGUE_DIR: dirs.catalogue };
    const generate = async (out: string) => {
      const run = await cli(['generate', '--name', 'snap', '--services', 'alpha', '--out', path.join(dirs.root, out)], env);
      assert.equal(run.code, 0, run.stderr);
      return fs.readFileSync(path.join(dirs.root, out, 'config/alpha/note.txt'), 'utf8');
    };
    // files older than the snapshot's metadata stamp by more than a coarse clock tick: the stamp is trusted
    await new Promise((r) => setTimeout(r, 2_100));
    assert.equal(await generate('first'), 'version one\n');
    assert.equal(await generate('second'), 'version one\n');
    // the same number of bytes, the old modification time put back: only the change time tells
    const note = path.join(dirs.plugins, 'services/alpha/note.txt.eta');
    const { atime, mtime } = fs.statSync(note);
    fs.writeFileSync(note, 'version two\n');
    fs.utimesSync(note, atime, mtime);
    assert.equal(await generate('third'), 'version two\n');
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });
  test('the folders\' last listing is reused only while no folder changed: a plugin added or removed later is seen', async () => {
    const dirs = writeCatalogue({
      'plugins/services/alpha/service.yaml': service('alpha', ''),
    });
    const snapshot = path.join(dirs.root, 'snapshot.json');
    const env = { STACK_PLUGINS_DIR: dirs.plugins, STACK_CATALOGUE_DIR: dirs.catalogue, STACK_CATALOGUE_CACHE: snapshot };
    const generate = (services: string, out: string) => cli(['generate', '--name', 'listed', '--services', services, '--out', path.join(dirs.root, out)], env);
    // folders older than a coarse clock tick: their listing may be reused
    await new Promise((r) => setTimeout(r, 2_100));
    assert.equal((await generate('alpha', 'first')).code, 0);
    assert.ok(fs.existsSync(`${snapshot}.inputs`), 'the listing is kept beside the snapshot');
    assert.equal((await generate('alpha', 'second')).code, 0);
    // a new plugin folder, a new file in an old folder: the listing no longer holds
    fs.mkdirSync(path.join(dirs.plugins, 'services/zulu'));
    fs.writeFileSync(path.join(dirs.plugins, 'services/zulu/service.yaml'), service('zulu', ''));
    const added = await generate('alpha,zulu', 'third');
    assert.equal(added.code, 0, added.stderr);
    assert.match(fs.readFileSync(path.join(dirs.root, 'third', 'docker-compose.yml'), 'utf8'), /^ {2}zulu:$/m);
    fs.rmSync(path.join(dirs.plugins, 'services/zulu'), { recursive: true });
    const removed = await generate('alpha,zulu', 'fourth');
    assert.equal(removed.code, 2, 'zulu is gone');
    assert.match(removed.stderr, /zulu/);
    fs.rmSync(dirs.root, { recursive: true, force: true });
  });
});

describe('stackwright generate: request shapes kept between runs', () => {
  // the shipped catalogue with a snapshot (and so a shape store) of the test's own
  const root = tmp();
  const snapshot = path.join(root, 'snapshot.json');
  const store = `${snapshot}.shapes`;
  const env = { STACK_CATALOGUE_CACHE: snapshot };
  const stackArgs = (name: string, domain: string, out: string) => ['generate', '--name', name, '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', domain, '--services', 'redis', '--out', path.join(root, out)];
  /** The same stack rendered in full, with no snapshot and no store. */
  const fullRender = async (name: string, domain: string, out: string) => {
    const run = await cli(stackArgs(name, domain, out), { STACK_CATALOGUE_CACHE: '' });
    assert.equal(run.code, 0, run.stderr);
    return { files: readTree(path.join(root, out)), stderr: run.stderr };
  };
  const storedShapes = () => (fs.existsSync(store) ? fs.readdirSync(store).filter((f) => f.endsWith('.json')) : []);
  after(() => fs.rmSync(root, { recursive: true, force: true }));

  test('a stack of a shape made before is its name and domain bound into the stored shape: the same files and warnings as a full render', async () => {
    const first = await cli(stackArgs('alpha', 'alpha.example.com', 'a'), env);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(storedShapes().length, 1, 'the first run keeps the shape');
    for (const [name, domain] of [['beta', 'beta.example.org'], ['gamma-2', 'apps.gamma.example.net']]) {
      const run = await cli(stackArgs(name, domain, name), env);
      assert.equal(run.code, 0, run.stderr);
      const full = await fullRender(name, domain, `${name}-full`);
      assert.deepEqual(readTree(path.join(root, name)), full.files, `${name}: byte for byte the full render`);
      assert.equal(run.stderr, full.stderr, 'the same warnings');
      assert.match(run.stderr, /^warning: PRESET_OVERRIDES: /m);
    }
    assert.equal(fs.statSync(path.join(root, 'beta', 'scripts/start.sh')).mode & 0o777, 0o755);
    // the stored shape is what a run reads: altered by hand, the alteration shows (the inputs are unchanged)
    const [shapeFile] = storedShapes();
    const stored = fs.readFileSync(path.join(store, shapeFile), 'utf8');
    fs.writeFileSync(path.join(store, shapeFile), stored.replace('A Docker Compose stack generated by Stackwright', 'A stack from the stored shape'));
    const altered = await cli(stackArgs('delta', 'delta.example.com', 'delta'), env);
    assert.equal(altered.code, 0, altered.stderr);
    assert.ok(Object.values(readTree(path.join(root, 'delta'))).some((text) => text.includes('A stack from the stored shape')), 'read from the store');
    fs.writeFileSync(path.join(store, shapeFile), stored);
  });

  test('a stored shape that is unreadable or made from other bundle templates is never used', async () => {
    assert.ok((await cli(stackArgs('seed', 'seed.example.com', 'seed'), env)).code === 0);
    const [shapeFile] = storedShapes();
    fs.writeFileSync(path.join(store, shapeFile), '{"inputs": "half a file');
    const run = await cli(stackArgs('epsilon', 'epsilon.example.com', 'epsilon'), env);
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(readTree(path.join(root, 'epsilon')), (await fullRender('epsilon', 'epsilon.example.com', 'epsilon-full')).files);
    // the bundle templates are an input of every shape: a changed one is rendered, never bound from the old shape
    const templates = path.join(root, 'templates');
    fs.cpSync(path.join(REPO_ROOT, 'templates'), templates, { recursive: true });
    fs.appendFileSync(path.join(templates, 'README.md.eta'), '\nEdited template.\n');
    const edited = await cli(stackArgs('zeta', 'zeta.example.com', 'zeta'), { ...env, STACK_TEMPLATES_DIR: templates });
    assert.equal(edited.code, 0, edited.stderr);
    assert.match(fs.readFileSync(path.join(root, 'zeta', 'README.md'), 'utf8'), /Edited template\.\n$/);
  });

  test('--tar from a stored shape holds the same files as from a full render', async () => {
    assert.ok((await cli(stackArgs('seed', 'seed.example.com', 'tar-seed'), env)).code === 0);
    const tarOf = async (runEnv: Record<string, string>, target: string) => {
      const run = await cli(['generate', '--name', 'eta', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'eta.example.com', '--services', 'redis', '--tar', path.join(root, target)], runEnv);
      assert.equal(run.code, 0, run.stderr);
      return fs.readFileSync(path.join(root, target));
    };
    assert.deepEqual(await tarOf(env, 'bound.tar.gz'), await tarOf({ STACK_CATALOGUE_CACHE: '' }, 'full.tar.gz'));
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

describe('how the docs and generated stacks say to run the command', () => {
  // the command is not on the npm registry: `npx stackwright` would fetch and run someone else's package
  const NPX = /npx\s+(-\S+\s+)*stackwright/;
  test('no generated file and no doc, template or shipped text says npx stackwright', async () => {
    const dir = tmp();
    const stacks: string[][] = [
      ['--name', 'npx-docker', '--preset', 'research-assistant', '--proxy', 'caddy', '--domain', 'agents.example.com'],
      ['--name', 'npx-bare', '--services', 'postgresql,qdrant', '--proxy', 'nginx', '--deployment', 'bare-metal'],
    ];
    let files = 0;
    for (const args of stacks) {
      const out = path.join(dir, args[1]);
      const run = await cli(['generate', ...args, '--out', out]);
      assert.equal(run.code, 0, run.stderr);
      for (const [file, text] of Object.entries(readTree(out))) {
        files++;
        assert.doesNotMatch(text, NPX, `${args[1]}/${file}`);
      }
      // and the generated README names a command of this project instead
      assert.match(fs.readFileSync(path.join(out, 'README.md'), 'utf8'), /node <checkout>\/dist\/cli\/main\.js upgrade \. --dry-run/);
    }
    assert.ok(files > 20, `${files} generated files read`);
    const shipped = ['README.md', 'docs', 'templates', 'contrib', 'test/images/README.md', 'Dockerfile', 'package.json'];
    let read = 0;
    const scan = (rel: string) => {
      const full = path.join(REPO_ROOT, rel);
      if (fs.statSync(full).isDirectory()) return fs.readdirSync(full).forEach((e) => scan(path.join(rel, e)));
      if (/\.(png|jpg|gz)$/.test(rel)) return;
      read++;
      assert.doesNotMatch(fs.readFileSync(full, 'utf8'), NPX, rel);
    };
    shipped.forEach(scan);
    assert.ok(read >= 30, `${read} files of docs and templates read`);
  });
});

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

  test('a stack record or an upgrade backup record nested past the JSON limit is refused before parsing, and nothing changes', async () => {
    const dir = tmp();
    const deep = `${'['.repeat(MAX_JSON_DEPTH + 1)}${']'.repeat(MAX_JSON_DEPTH + 1)}`;
    fs.writeFileSync(path.join(dir, 'stackwright.json'), `{"request":{"name":"x"},"files":{},"images":${deep}}`);
    const run = await cli(['upgrade', dir]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, new RegExp(`stackwright\\.json cannot be read as a stack record \\(it nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels`));

    const backup = path.join(dir, '.stackwright', 'upgrade-backups', '2026-01-01T00-00-00Z');
    fs.mkdirSync(path.join(backup, 'files'), { recursive: true });
    fs.writeFileSync(path.join(backup, 'upgrade.json'), `{"added":${deep}}`);
    const back = await cli(['upgrade', dir, '--rollback']);
    assert.equal(back.code, 1);
    assert.match(back.stderr, new RegExp(`upgrade\\.json cannot be read as an upgrade backup record \\(it nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.*nothing was changed`));
    assert.ok(fs.existsSync(backup), 'the backup is where it was');
  });

  test('a folder without stackwright.json is refused with what to do', async () => {
    const run = await cli(['upgrade', tmp()]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /has no stackwright\.json: it is not a stack Stackwright generated/);
  });
});
