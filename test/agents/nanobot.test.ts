// nanobot's model with the stack's model servers (issue 35): the config script of the generated container start
// command runs for real with Python (nanobot-ai itself is a PyPI package that cannot be installed here), and the
// ~/.nanobot/config.json it leaves is read back. nanobot's use of it is checked against its source at v0.2.2
// (docs/providers.md "Custom OpenAI-Compatible Endpoint", nanobot/providers/registry.py:123-129; the manifest cites them).
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
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-nanobot-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

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
  for (const [id, prefix, model, keyed] of [['llama-cpp', 'LLAMA_CPP', 'Qwen/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M', true], ['vllm', 'VLLM', 'Qwen/Qwen2.5-1.5B-Instruct', true],
    ['sglang', 'SGLANG', 'Qwen/Qwen2.5-1.5B-Instruct', true], ['local-ai', 'LOCAL_AI', 'qwen_qwen3.5-2b', true], ['xinference', 'XINFERENCE', 'qwen2.5-instruct', false]] as const) {
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
