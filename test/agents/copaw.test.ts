// CoPaw's model with the stack's model servers (issues 20 and 35): the generated container start command and the
// native launcher (bare metal, with the unit's environment native/copaw.sh writes) run for real, their paths in
// folders of their own and CoPaw's own entry point replaced by an exit, and the provider files they leave are read
// back. CoPaw itself (PyPI and its image) cannot run here: the files' meaning is checked against its source at
// v0.2.0 (cited in the manifest); a chat with the settings they hold, sent as an OpenAI-compatible client sends it,
// is answered by the stub model server answering as that server. The Windows launcher is parsed, not run (no pwsh).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { MODEL_SERVERS, openAiChat, run, serverStubs, type ServerStub, type StubServer } from '../support/agents.js';
import { assertPowerShellParses, bareMetalStack, heredoc, psWritten } from '../support/native-launch.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-copaw-'));
const stubs: StubServer[] = [];
after(async () => {
  for (const s of stubs) await s.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** Runs the copaw container's start command in `dir` (its /app), up to where the image's entry point would run. */
async function startContainer(request: Parameters<Generator['generate']>[0], env: Record<string, string>, dir = fs.mkdtempSync(path.join(root, 'app-'))) {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services.copaw;
  const script = service.command[2].replaceAll('$$', '$').replace('exec /entrypoint.sh', 'exit 0').replaceAll('/app/', `${dir}/`);
  const res = await run('sh', ['-c', script], { env: { PATH: process.env.PATH, ...env } });
  assert.equal(res.code, 0, res.stderr);
  const file = path.join(dir, 'working.secret', 'providers', 'active_model.json');
  return { dir, environment: service.environment, active: fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : null, mode: fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : null };
}

/**
 * The launcher native/copaw.sh installs, run as its unit runs it with `env` (HOME its state folder, CoPaw already
 * initialised there), up to the exec of `copaw app`; the system's python3 in place of the venv's.
 */
async function runLauncher(native: string, env: Record<string, string>) {
  fs.mkdirSync(path.join(env.HOME, '.copaw'), { recursive: true });
  fs.writeFileSync(path.join(env.HOME, '.copaw', 'config.json'), '{}');
  const launcher = heredoc(native, 'LAUNCH');
  const app = /^exec \/opt\/copaw\/bin\/copaw app .*$/m;
  assert.match(launcher, app);
  assert.ok(launcher.includes(' py=/opt/copaw/bin/python\n'), 'the venv\'s Python writes the files');
  return run('bash', ['-c', launcher.replace(app, 'exit 0').replace(' py=/opt/copaw/bin/python\n', ' py=python3\n')], { env: { PATH: process.env.PATH, ...env } });
}

describe('CoPaw with the stack\'s Ollama', () => {
  const offline = { name: 'cp', preset: 'offline-assistant', primaryFramework: 'copaw' } as const;

  test('the first start makes Ollama and OLLAMA_MODEL the active model, private to its owner', async () => {
    const { environment, active, mode } = await startContainer(offline, { OLLAMA_HOST: 'http://ollama:11434', OLLAMA_MODEL: 'qwen3:4b' });
    assert.equal(environment.OLLAMA_HOST, 'http://ollama:11434', 'compose hands CoPaw the stack\'s Ollama');
    assert.equal(environment.OLLAMA_MODEL, '${OLLAMA_MODEL}');
    assert.deepEqual(active, { provider_id: 'ollama', model: 'qwen3:4b' });
    assert.equal(mode, 0o600);
  });

  test('a model chosen since (in the console) stays', async () => {
    const dir = fs.mkdtempSync(path.join(root, 'app-'));
    fs.mkdirSync(path.join(dir, 'working.secret', 'providers'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'working.secret', 'providers', 'active_model.json'), '{"provider_id": "openai", "model": "gpt-5"}');
    const { active } = await startContainer(offline, { OLLAMA_HOST: 'http://ollama:11434', OLLAMA_MODEL: 'qwen3:4b' }, dir);
    assert.deepEqual(active, { provider_id: 'openai', model: 'gpt-5' });
  });

  test('a stack without Ollama chooses no model', async () => {
    const { environment, active } = await startContainer({ name: 'cp', primaryFramework: 'copaw', services: ['redis'] }, {});
    assert.equal(environment.OLLAMA_HOST, undefined);
    assert.equal(active, null);
  });

  test('on bare metal the launcher does the same in ~/.copaw.secret, with Ollama as the host reaches it', async () => {
    const { files } = generator.generate({ ...offline, deploymentType: 'bare-metal' });
    const installer = files['native/copaw.sh'];
    assert.match(installer, /env_line OLLAMA_HOST http:\/\/"\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)":11434/);
    const home = fs.mkdtempSync(path.join(root, 'home-'));
    const res = await runLauncher(installer, { HOME: home, STACK_NATIVE_BIND: '172.17.0.1', OLLAMA_HOST: 'http://172.17.0.1:11434', OLLAMA_MODEL: 'llama3.2:1b' });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copaw.secret', 'providers', 'active_model.json'), 'utf8')), { provider_id: 'ollama', model: 'llama3.2:1b' });
  });
});

// Issue 35: every other model server of the catalogue as a custom OpenAI-compatible provider of CoPaw's store
describe('CoPaw with the stack\'s other model servers', () => {
  for (const { id, prefix, model, keyed } of MODEL_SERVERS) {
    test(`${id}: the provider stack-local on its /v1 is the active model, with its key`, async () => {
      const { dir, environment, active, mode } = await startContainer({ name: `cp-${id}`, primaryFramework: 'copaw', services: [id] },
        { [`${prefix}_URL`]: `http://${id}:1234`, [`${prefix}_MODEL`]: model, ...(keyed ? { [`${prefix}_API_KEY`]: 'server-key' } : {}) });
      assert.equal(environment[`${prefix}_MODEL`], `\${${prefix}_MODEL}`);
      assert.deepEqual(active, { provider_id: 'stack-local', model });
      assert.equal(mode, 0o600);
      const file = path.join(dir, 'working.secret', 'providers', 'custom', 'stack-local.json');
      const provider = JSON.parse(fs.readFileSync(file, 'utf8'));
      assert.equal(provider.base_url, `http://${id}:1234/v1`);
      assert.equal(provider.api_key, keyed ? 'server-key' : '');
      assert.deepEqual(provider.extra_models, [{ id: model, name: model }]);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    });
  }
});

// Issue 35 on bare metal: the launcher native/copaw.sh installs, run with the unit's environment as native/copaw.sh
// writes it from .env (the server's published port the stub's), up to the exec of `copaw app`.
describe('CoPaw natively (bare metal) with the stack\'s model servers', () => {
  /** A bare-metal stack holding `servers` and no cloud key; its launcher run in a home of its own with the unit's environment. */
  async function launch(name: string, servers: ServerStub[], dotenv: Record<string, string> = {}, again?: string) {
    const { files, native, home, env } = await bareMetalStack(generator, { name, framework: 'copaw', servers, dotenv, root, home: again });
    const res = await runLauncher(native, env);
    assert.equal(res.code, 0, res.stderr);
    const providers = path.join(home, '.copaw.secret', 'providers');
    const read = (file: string) => {
      if (!fs.existsSync(path.join(providers, file))) return null;
      assert.equal(fs.statSync(path.join(providers, file)).mode & 0o777, 0o600, `${file} is private to its owner`);
      return JSON.parse(fs.readFileSync(path.join(providers, file), 'utf8'));
    };
    return { files, env, home, stderr: res.stderr, provider: read('custom/stack-local.json'), active: read('active_model.json') };
  }

  for (const server of MODEL_SERVERS) {
    test(`${server.id}: the provider stack-local on the server's published port is the active model, with its key, and a chat with those settings is answered`, async () => {
      const [served] = await serverStubs([server], stubs);
      const { stub, key } = served;
      const { env, provider, active } = await launch(`cpbm-${server.id}`, [served]);
      assert.equal(env[`${server.prefix}_URL`], stub.url, 'the unit reaches the server on its published port');
      assert.equal(env[`${server.prefix}_MODEL`], server.model, 'the model .env names');
      assert.equal(env[`${server.prefix}_API_KEY`], server.keyed ? key : undefined);
      assert.deepEqual(active, { provider_id: 'stack-local', model: server.model });
      assert.equal(provider.base_url, `${stub.url}/v1`);
      assert.equal(provider.api_key, key);
      assert.deepEqual(provider.extra_models, [{ id: server.model, name: server.model }]);
      assert.equal(await openAiChat(provider.base_url, provider.api_key, active.model, 'hello copaw'), `STUB-OK ${server.model}: hello copaw`);
      const chat = (await stub.requests()).filter((r) => r.path === '/v1/chat/completions');
      assert.deepEqual(chat.map((r) => [r.model, r.credential]), [[server.model, key || null]]);
    });
  }

  test('LOCAL_MODEL_SERVER chooses the second of two servers', async () => {
    const vllm = MODEL_SERVERS[1];
    const servers = await serverStubs([MODEL_SERVERS[0], vllm], stubs);
    const { env, home, provider, active } = await launch('cpbm-two', servers, { LOCAL_MODEL_SERVER: 'vllm' });
    assert.equal(env.LOCAL_MODEL_SERVER, 'vllm');
    assert.equal(provider.base_url, `${servers[1].stub.url}/v1`);
    assert.equal(provider.api_key, servers[1].key);
    assert.deepEqual(active, { provider_id: 'stack-local', model: vllm.model });
    const first = await launch('cpbm-two', servers);
    assert.equal(first.provider.base_url, `${servers[0].stub.url}/v1`, 'without LOCAL_MODEL_SERVER the first of CoPaw\'s order');
    // a later start after LOCAL_MODEL_SERVER was emptied: the server and the active model follow
    const switched = await launch('cpbm-two', servers, {}, home);
    assert.equal(switched.provider.base_url, `${servers[0].stub.url}/v1`);
    assert.deepEqual(switched.active, { provider_id: 'stack-local', model: MODEL_SERVERS[0].model });
    // a model chosen in the console since (CoPaw writes the file itself) stays on the next start
    const chosen = { provider_id: 'stack-local', model: 'another-model' };
    fs.writeFileSync(path.join(home, '.copaw.secret', 'providers', 'active_model.json'), JSON.stringify(chosen, null, 2));
    assert.deepEqual((await launch('cpbm-two', servers, { LOCAL_MODEL_SERVER: 'vllm' }, home)).active, chosen);
    const wrong = await launch('cpbm-two', servers, { LOCAL_MODEL_SERVER: 'sglang' });
    assert.deepEqual([wrong.provider, wrong.active], [null, null], 'a server the stack lacks registers none');
    assert.match(wrong.stderr, /copaw: LOCAL_MODEL_SERVER=sglang is not a model server of this stack/);
  });

  test('the launcher\'s model-server lines are the container start command\'s, and the Windows launcher parses and follows the same order', async () => {
    const { files } = generator.generate({ name: 'cpbm-same', primaryFramework: 'copaw', services: ['llama-cpp'], deploymentType: 'bare-metal' });
    const container = generator.generate({ name: 'cp-same', primaryFramework: 'copaw', services: ['llama-cpp'] }).files;
    const command = (yaml.load(container['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services.copaw.command[2].replaceAll('$$', '$');
    // from the choice of server to the last line before CoPaw starts
    const lines = (script: string) => {
      const from = script.indexOf('# the stack\'s model server:');
      assert.ok(from > 0, script);
      return script.slice(from, script.lastIndexOf('\nfi\n', script.indexOf('\nexec ', from)) + 4);
    };
    assert.equal(lines(heredoc(files['native/copaw.sh'], 'LAUNCH')), lines(command));
    const ps = psWritten(files['install.ps1'], 'copaw-run.ps1');
    await assertPowerShellParses({ 'install.ps1': files['install.ps1'], 'copaw-run.ps1': ps }, fs.mkdtempSync(path.join(root, 'ps-')));
    const order = yaml.load(fs.readFileSync(path.join('plugins', 'frameworks', 'copaw', 'framework.yaml'), 'utf8')) as { firstRun: { localModels: string[] } };
    const expected = order.firstRun.localModels.map((id) => `${id}:${id.toUpperCase().replace('-', '_')}`);
    assert.deepEqual(/for c in ([^;]+); do/.exec(command)![1].split(' '), expected);
    assert.deepEqual([.../foreach \(\$c in ([^)]+)\)/.exec(ps)![1].matchAll(/'([^']+)'/g)].map((m) => m[1]), expected);
    for (const field of ['stack-local', 'base_url', 'api_key', 'require_api_key', 'is_custom', 'extra_models', 'provider_id']) assert.ok(ps.includes(field), field);
  });
});
