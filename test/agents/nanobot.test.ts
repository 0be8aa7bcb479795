// nanobot's model with the stack's model servers (issue 35): the config script of the generated container start
// command, and the one native/nanobot.sh installs (bare metal, with the unit's environment native/nanobot.sh
// writes), run for real with Python (nanobot-ai itself is a PyPI package that cannot be installed here), and the
// ~/.nanobot/config.json it leaves is read back. nanobot's use of it is checked against its source at v0.2.2
// (docs/providers.md "Custom OpenAI-Compatible Endpoint", nanobot/providers/registry.py:123-129; the manifest cites
// them); a chat with the settings it holds, sent as an OpenAI-compatible client sends it, is answered by the stub
// model server answering as that server. On Windows the same script runs (install.ps1 writes it): parsed, not run.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { MODEL_SERVERS, openAiChat, run, serverStubs, type ServerStub, type StubServer } from '../support/agents.js';
import { assertPowerShellParses, bareMetalStack, heredoc, psWritten, unitEnvironment } from '../support/native-launch.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-nanobot-'));
const stubs: StubServer[] = [];
after(async () => {
  for (const s of stubs) await s.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

/** The container's config script run with `env`, HOME in a folder of its own; the config.json it leaves. */
async function configure(request: Parameters<Generator['generate']>[0], env: Record<string, string>) {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services.nanobot;
  const script = /<<'PY'\n([\s\S]*?)\n\s*PY\n/.exec(service.command[2].replaceAll('$$', '$'))![1];
  const home = fs.mkdtempSync(path.join(root, 'home-'));
  const res = await run('python3', ['-c', script], { env: { PATH: process.env.PATH, HOME: home, ...env } });
  assert.equal(res.code, 0, res.stderr);
  return { files, environment: service.environment, config: JSON.parse(fs.readFileSync(path.join(home, '.nanobot', 'config.json'), 'utf8')) };
}

describe('nanobot with the stack\'s model servers', () => {
  test('ollama: its ollama provider on Ollama\'s /v1', async () => {
    const { config } = await configure({ name: 'nb-ollama', preset: 'offline-assistant', primaryFramework: 'nanobot' }, { OLLAMA_URL: 'http://ollama:11434', OLLAMA_MODEL: 'qwen3:4b' });
    assert.equal(config.providers.ollama.apiBase, 'http://ollama:11434/v1');
    assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['ollama', 'qwen3:4b']);
  });
  for (const { id, prefix, model, keyed } of MODEL_SERVERS) {
    test(`${id}: the custom provider on its /v1, its key as a placeholder nanobot resolves, its model the default`, async () => {
      const { config, environment, files } = await configure({ name: `nb-${id}`, primaryFramework: 'nanobot', services: [id] },
        { [`${prefix}_URL`]: `http://${id}:1234`, [`${prefix}_MODEL`]: model, ...(keyed ? { [`${prefix}_API_KEY`]: 'server-key' } : {}) });
      assert.equal(environment[`${prefix}_URL`] !== undefined, true);
      assert.equal(config.providers.custom.apiBase, `http://${id}:1234/v1`);
      assert.equal(config.providers.custom.apiKey, keyed ? `\${${prefix}_API_KEY}` : null);
      assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['custom', model]);
      assert.match(files['README.md'], new RegExp(`\\*\\*nanobot\\*\\*[^\\n]*without a cloud key with the stack's [^\\n]*${prefix}_MODEL`));
    });
  }
  test('LOCAL_MODEL_SERVER picks the server among several', async () => {
    const env = { OLLAMA_URL: 'http://ollama:11434', VLLM_URL: 'http://vllm:8000', VLLM_MODEL: 'm', VLLM_API_KEY: 'k' };
    const { config, files } = await configure({ name: 'nb-two', primaryFramework: 'nanobot', services: ['ollama', 'vllm'] }, { ...env, LOCAL_MODEL_SERVER: 'vllm' });
    assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['custom', 'm']);
    assert.match(files['.env.example'], /^LOCAL_MODEL_SERVER=$/m);
    assert.match(files['README.md'], /with several model servers it uses Ollama first \(its order: Ollama, vLLM\); set `LOCAL_MODEL_SERVER` in `\.env` to `ollama` or `vllm`/);
    const first = await configure({ name: 'nb-two', primaryFramework: 'nanobot', services: ['ollama', 'vllm'] }, env);
    assert.equal(first.config.agents.defaults.provider, 'ollama');
  });
});

// Issue 35 on bare metal: the config script native/nanobot.sh installs, run as the unit's launcher runs it before
// `nanobot gateway`, with the unit's environment as native/nanobot.sh writes it from .env (the server's published
// port the stub's).
describe('nanobot natively (bare metal) with the stack\'s model servers', () => {
  /** A bare-metal stack holding `servers` and no cloud key; its config script run with the unit's environment in a home of its own (or `again`'s). */
  async function launch(name: string, servers: ServerStub[], dotenv: Record<string, string> = {}, again?: string) {
    const { files, native, home, env } = await bareMetalStack(generator, { name, framework: 'nanobot', servers, dotenv, root, home: again });
    // the unit's launcher runs this script, then the gateway
    assert.ok(heredoc(native, 'RUN').includes("'/opt/nanobot/bin/python /opt/nanobot/stackwright-config.py && exec /opt/nanobot/bin/nanobot gateway'"));
    const res = await run('python3', ['-c', heredoc(native, 'PY')], { env: { PATH: process.env.PATH, ...env } });
    assert.equal(res.code, 0, res.stderr);
    return { files, env, home, stderr: res.stderr, config: JSON.parse(fs.readFileSync(path.join(home, '.nanobot', 'config.json'), 'utf8')) };
  }

  /** The key nanobot resolves for a ${VAR} placeholder from its environment (nanobot/config/loader.py:87-150). */
  const resolved = (value: string | null, env: Record<string, string>) => (value ?? '').replace(/^\$\{(\w+)\}$/, (_m, v: string) => env[v] ?? '');

  for (const server of MODEL_SERVERS) {
    test(`${server.id}: the custom provider on the server's published port, its key from the unit's environment, its model the default, and a chat with those settings is answered`, async () => {
      const [served] = await serverStubs([server], stubs);
      const { stub, key } = served;
      const { env, config } = await launch(`nbbm-${server.id}`, [served]);
      assert.equal(env[`${server.prefix}_URL`], stub.url, 'the unit reaches the server on its published port');
      assert.equal(env[`${server.prefix}_API_KEY`], server.keyed ? key : undefined);
      assert.equal(config.providers.custom.apiBase, `${stub.url}/v1`);
      assert.equal(config.providers.custom.apiKey, server.keyed ? `\${${server.prefix}_API_KEY}` : null);
      assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['custom', server.model]);
      const apiKey = resolved(config.providers.custom.apiKey, env);
      assert.equal(await openAiChat(config.providers.custom.apiBase, apiKey, config.agents.defaults.model, 'hello nanobot'), `STUB-OK ${server.model}: hello nanobot`);
      const chat = (await stub.requests()).filter((r) => r.path === '/v1/chat/completions');
      assert.deepEqual(chat.map((r) => [r.model, r.credential]), [[server.model, key || null]]);
    });
  }

  test('ollama: its ollama provider on /v1 of Ollama where the unit reaches it, OLLAMA_MODEL the default', async () => {
    const { files } = generator.generate({ name: 'nbbm-ollama', primaryFramework: 'nanobot', services: ['ollama'], deploymentType: 'bare-metal' });
    const home = fs.mkdtempSync(path.join(root, 'home-'));
    const env = await unitEnvironment(files, 'nanobot', { STACK_NATIVE_BIND: '172.17.0.1', OLLAMA_MODEL: 'llama3.2:1b' }, home);
    const res = await run('python3', ['-c', heredoc(files['native/nanobot.sh'], 'PY')], { env: { PATH: process.env.PATH, ...env } });
    assert.equal(res.code, 0, res.stderr);
    const config = JSON.parse(fs.readFileSync(path.join(home, '.nanobot', 'config.json'), 'utf8'));
    assert.match(env.OLLAMA_URL, /^http:\/\/(172\.17\.0\.1:11434|127\.0\.0\.1:\d+)$/);
    assert.equal(config.providers.ollama.apiBase, `${env.OLLAMA_URL}/v1`);
    assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['ollama', 'llama3.2:1b']);
  });

  test('LOCAL_MODEL_SERVER chooses the second of two servers', async () => {
    const vllm = MODEL_SERVERS[1];
    const servers = await serverStubs([MODEL_SERVERS[0], vllm], stubs);
    const { env, home, config } = await launch('nbbm-two', servers, { LOCAL_MODEL_SERVER: 'vllm' });
    assert.equal(env.LOCAL_MODEL_SERVER, 'vllm');
    assert.equal(config.providers.custom.apiBase, `${servers[1].stub.url}/v1`);
    assert.equal(resolved(config.providers.custom.apiKey, env), servers[1].key);
    assert.deepEqual([config.agents.defaults.provider, config.agents.defaults.model], ['custom', vllm.model]);
    const first = await launch('nbbm-two', servers);
    assert.equal(first.config.providers.custom.apiBase, `${servers[0].stub.url}/v1`, 'without LOCAL_MODEL_SERVER the first of nanobot\'s order');
    // a later start after LOCAL_MODEL_SERVER was emptied: the custom provider and the default model follow
    const switched = await launch('nbbm-two', servers, {}, home);
    assert.equal(switched.config.providers.custom.apiBase, `${servers[0].stub.url}/v1`);
    assert.equal(resolved(switched.config.providers.custom.apiKey, switched.env), servers[0].key);
    assert.deepEqual([switched.config.agents.defaults.provider, switched.config.agents.defaults.model], ['custom', MODEL_SERVERS[0].model]);
    const wrong = await launch('nbbm-two', servers, { LOCAL_MODEL_SERVER: 'sglang' });
    assert.equal(wrong.config.providers.custom, undefined, 'a server the stack lacks is not configured');
    assert.match(wrong.stderr, /LOCAL_MODEL_SERVER=sglang is not a model server of this stack/);
  });

  test('the script native/nanobot.sh and install.ps1 install is the container\'s, and the Windows launcher parses', async () => {
    const { files } = generator.generate({ name: 'nbbm-same', primaryFramework: 'nanobot', services: ['llama-cpp'], deploymentType: 'bare-metal' });
    const container = generator.generate({ name: 'nb-same', primaryFramework: 'nanobot', services: ['llama-cpp'] }).files;
    const command = (yaml.load(container['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services.nanobot.command[2].replaceAll('$$', '$');
    const script = heredoc(command, 'PY');
    assert.equal(heredoc(files['native/nanobot.sh'], 'PY'), script);
    assert.equal(`${psWritten(files['install.ps1'], 'nanobot-config.py')}\n`, script);
    await assertPowerShellParses({ 'install.ps1': files['install.ps1'], 'nanobot-run.ps1': psWritten(files['install.ps1'], 'nanobot-run.ps1') }, fs.mkdtempSync(path.join(root, 'ps-')));
  });
});
