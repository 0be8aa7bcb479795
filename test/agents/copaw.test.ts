// CoPaw's model with the stack's Ollama (issue 20): the generated container start command and the native
// launcher run for real, their paths in folders of their own and CoPaw's own entry point replaced by an exit,
// and the active model they leave is read back. CoPaw itself (PyPI and its image) cannot run here: the file's
// meaning is checked against its source at v0.2.0 (cited in the manifest).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { run } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-copaw-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

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
    const launcher = /<<'LAUNCH'\n([\s\S]*?)\n\s*LAUNCH\n/.exec(installer)![1].replace(/^ {2}/gm, '');
    const home = fs.mkdtempSync(path.join(root, 'home-'));
    fs.mkdirSync(path.join(home, '.copaw'));
    fs.writeFileSync(path.join(home, '.copaw', 'config.json'), '{}');
    const script = launcher.replace(/exec \/opt\/copaw\/bin\/copaw app .*/, 'exit 0');
    const res = await run('bash', ['-c', script], { env: { PATH: process.env.PATH, HOME: home, STACK_NATIVE_BIND: '172.17.0.1', OLLAMA_HOST: 'http://172.17.0.1:11434', OLLAMA_MODEL: 'llama3.2:1b' } });
    assert.equal(res.code, 0, res.stderr);
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.copaw.secret', 'providers', 'active_model.json'), 'utf8')), { provider_id: 'ollama', model: 'llama3.2:1b' });
  });
});

// Issue 35: every other model server of the catalogue as a custom OpenAI-compatible provider of CoPaw's store
describe('CoPaw with the stack\'s other model servers', () => {
  for (const [id, prefix, model, keyed] of [['llama-cpp', 'LLAMA_CPP', 'Qwen/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M', true], ['vllm', 'VLLM', 'Qwen/Qwen2.5-1.5B-Instruct', true],
    ['sglang', 'SGLANG', 'Qwen/Qwen2.5-1.5B-Instruct', true], ['local-ai', 'LOCAL_AI', 'qwen_qwen3.5-2b', true], ['xinference', 'XINFERENCE', 'qwen2.5-instruct', false]] as const) {
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
