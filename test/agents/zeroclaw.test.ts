// ZeroClaw's provider choice (issue 20): the generated start commands (the container's, and the launcher the
// native installer leaves) run for real with a stand-in `zeroclaw` that records the configuration overrides it
// is started with. ZeroClaw itself is a Rust binary from GitHub releases, which cannot be fetched here: the
// overrides are checked against its source at v0.8.4 (cited in the manifest).
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
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-zeroclaw-'));
after(() => fs.rmSync(root, { recursive: true, force: true }));

/** A stand-in binary: `zeroclaw daemon` writes the ZEROCLAW_ variables it got, one a line, and exits. */
function fakeZeroclaw(dir: string): { bin: string; seen: () => Record<string, string> } {
  const bin = path.join(dir, 'zeroclaw');
  const out = path.join(dir, 'overrides');
  fs.writeFileSync(bin, `#!/bin/sh\n[ "$1" = daemon ] || exit 2\nenv | grep '^ZEROCLAW_' | sort > ${JSON.stringify(out)}\n`, { mode: 0o755 });
  return { bin, seen: () => Object.fromEntries(fs.readFileSync(out, 'utf8').trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) };
}

/** The container's start command of a generated stack, its image paths in a folder of its own. */
async function startContainer(request: Parameters<Generator['generate']>[0], env: Record<string, string>) {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[]; environment: Record<string, string> }> }).services.zeroclaw;
  const dir = fs.mkdtempSync(path.join(root, 'container-'));
  const fake = fakeZeroclaw(dir);
  const script = service.command[0].replaceAll('$$', '$').replaceAll('/usr/local/bin/zeroclaw', fake.bin).replaceAll('/zeroclaw-data', path.join(dir, 'data'));
  const res = await run('sh', ['-c', script], { env: { PATH: process.env.PATH, GATEWAY_TOKEN: 'zc_test', ...env } });
  return { res, environment: service.environment, seen: res.code === 0 ? fake.seen() : {}, config: () => fs.readFileSync(path.join(dir, 'data', '.zeroclaw', 'config.toml'), 'utf8') };
}

/** The launcher native/zeroclaw.sh leaves (/usr/local/lib/stackwright/zeroclaw-start), run as the unit runs it. */
async function startNative(request: Parameters<Generator['generate']>[0], env: Record<string, string>) {
  const { files } = generator.generate({ ...request, deploymentType: 'bare-metal' });
  const installer = files['native/zeroclaw.sh'];
  const launcher = /<<'START'\n([\s\S]*?)\n\s*START\n/.exec(installer)![1].replace(/^ {2}/gm, '');
  const dir = fs.mkdtempSync(path.join(root, 'native-'));
  const fake = fakeZeroclaw(dir);
  const res = await run('sh', ['-c', launcher.replaceAll('/usr/local/bin/zeroclaw', fake.bin)], { env: { PATH: process.env.PATH, HOME: path.join(dir, 'home'), GATEWAY_TOKEN: 'zc_test', STACK_NATIVE_BIND: '172.17.0.1', ...env } });
  return { res, installer, seen: res.code === 0 ? fake.seen() : {} };
}

describe('ZeroClaw in a container', () => {
  test('without a cloud key and with Ollama in the stack, the agent uses ZeroClaw\'s ollama provider at the stack\'s Ollama', async () => {
    const { res, environment, seen, config } = await startContainer({ name: 'zc-offline', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://ollama:11434', OLLAMA_MODEL: 'qwen3:4b' });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(environment.OLLAMA_URL, 'http://ollama:11434', 'compose hands the container the stack\'s Ollama');
    assert.equal(seen.ZEROCLAW_providers__models__ollama__default__uri, 'http://ollama:11434');
    assert.equal(seen.ZEROCLAW_providers__models__ollama__default__model, 'qwen3:4b');
    assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'ollama.default');
    assert.ok(!Object.keys(seen).some((k) => k.endsWith('__api_key')), 'no key for a local Ollama');
    assert.match(config(), /^default_provider = "ollama"$/m, 'the first config names the provider in use');
    assert.doesNotMatch(res.stderr, /no provider key/);
  });

  test('a cloud key wins over the stack\'s Ollama, and ZEROCLAW_PROVIDER=ollama picks it back', async () => {
    const keyed = await startContainer({ name: 'zc-key', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://ollama:11434', OPENAI_API_KEY: 'sk-test' });
    assert.equal(keyed.res.code, 0, keyed.res.stderr);
    assert.equal(keyed.seen.ZEROCLAW_agents__default__model_provider, 'openai.default');
    assert.equal(keyed.seen.ZEROCLAW_providers__models__openai__default__api_key, 'sk-test');
    assert.equal(keyed.seen.ZEROCLAW_providers__models__ollama__default__uri, undefined);
    const chosen = await startContainer({ name: 'zc-pick', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://ollama:11434', OPENAI_API_KEY: 'sk-test', PROVIDER: 'ollama', MODEL: 'llama3.2:1b' });
    assert.equal(chosen.seen.ZEROCLAW_agents__default__model_provider, 'ollama.default');
    assert.equal(chosen.seen.ZEROCLAW_providers__models__ollama__default__model, 'llama3.2:1b');
  });

  test('without a key and without Ollama it starts and says chats fail; PROVIDER=ollama without Ollama stops with why', async () => {
    const bare = await startContainer({ name: 'zc-none', primaryFramework: 'zeroclaw', services: ['redis'] }, {});
    assert.equal(bare.res.code, 0, bare.res.stderr);
    assert.match(bare.res.stderr, /no provider key set .* and no Ollama in the stack: chats fail/);
    assert.equal(bare.seen.ZEROCLAW_agents__default__model_provider, undefined);
    const wrong = await startContainer({ name: 'zc-none', primaryFramework: 'zeroclaw', services: ['redis'] }, { PROVIDER: 'ollama' });
    assert.equal(wrong.res.code, 1);
    assert.match(wrong.res.stderr, /PROVIDER is ollama but the stack has no Ollama/);
  });
});

describe('ZeroClaw on bare metal', () => {
  test('the unit gets the stack\'s Ollama as the host reaches it, and the launcher wires it without a key', async () => {
    const { res, installer, seen } = await startNative({ name: 'zc-bm', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://172.17.0.1:11434', OLLAMA_MODEL: 'qwen3:4b' });
    assert.match(installer, /env_line OLLAMA_URL http:\/\/"\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)":11434/, 'the unit\'s environment file holds OLLAMA_URL');
    assert.match(installer, /env_line OLLAMA_MODEL "\$\(env_value OLLAMA_MODEL\)"/);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(seen.ZEROCLAW_providers__models__ollama__default__uri, 'http://172.17.0.1:11434');
    assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'ollama.default');
    assert.equal(seen.ZEROCLAW_gateway__host, '172.17.0.1');
  });

  test('with a key the launcher uses it', async () => {
    const { res, seen } = await startNative({ name: 'zc-bm', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://172.17.0.1:11434', ANTHROPIC_API_KEY: 'sk-ant-test' });
    assert.equal(res.code, 0, res.stderr);
    assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'anthropic.default');
  });
});

// Issue 35: every other model server of the catalogue as ZeroClaw's custom OpenAI-compatible family
describe('ZeroClaw with the stack\'s other model servers', () => {
  for (const [id, prefix, model, keyed] of [['llama-cpp', 'LLAMA_CPP', 'Qwen/Qwen2.5-1.5B-Instruct-GGUF:Q4_K_M', true], ['vllm', 'VLLM', 'Qwen/Qwen2.5-1.5B-Instruct', true],
    ['sglang', 'SGLANG', 'Qwen/Qwen2.5-1.5B-Instruct', true], ['local-ai', 'LOCAL_AI', 'qwen_qwen3.5-2b', true], ['xinference', 'XINFERENCE', 'qwen2.5-instruct', false]] as const) {
    test(`${id}: without a cloud key the custom provider points at its /v1 with its model and key`, async () => {
      const { res, environment, seen, config } = await startContainer({ name: `zc-${id}`, primaryFramework: 'zeroclaw', services: [id] },
        { [`${prefix}_URL`]: `http://${id}:1234`, [`${prefix}_MODEL`]: model, ...(keyed ? { [`${prefix}_API_KEY`]: 'server-key' } : {}) });
      assert.equal(res.code, 0, res.stderr);
      assert.equal(environment[`${prefix}_MODEL`], `\${${prefix}_MODEL}`);
      assert.equal(seen.ZEROCLAW_providers__models__custom__default__uri, `http://${id}:1234/v1`);
      assert.equal(seen.ZEROCLAW_providers__models__custom__default__model, model);
      assert.equal(seen.ZEROCLAW_providers__models__custom__default__api_key, keyed ? 'server-key' : 'no-key');
      assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'custom.default');
      assert.match(config(), /^default_provider = "custom"$/m);
    });
  }
});
