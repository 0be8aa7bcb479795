// ZeroClaw's provider choice (issue 20): the generated start commands (the container's, and the launcher the
// native installer leaves) run for real with a stand-in `zeroclaw` that records the configuration overrides it
// is started with. ZeroClaw itself is a Rust binary from GitHub releases, which cannot be fetched here: the
// overrides are checked against its source at v0.8.4 (cited in the manifest). Natively (issue 35) the launcher
// runs with the unit's environment as native/zeroclaw.sh writes it, the model server's address being the stub
// model server's (test/stub-model answering as that server), which is asked for its models with the configured
// key; the Windows launcher is parsed with the PowerShell grammar, not run (no PowerShell here).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { run, startStub } from '../support/agents.js';
import { dotenvKeyOf, exampleValue, heredoc, serves, unitEnvironment, wiredModelServers } from '../support/native-launch.js';
import { VALIDATORS_DIR, assertValidatorsInstalled } from '../support/validators.js';
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

/**
 * The launcher native/zeroclaw.sh leaves (/usr/local/lib/stackwright/zeroclaw-start), run as the unit runs it, in a
 * home of its own holding one skill where the installer copies the stack's skills.
 */
async function launchNative(files: Record<string, string>, env: Record<string, string>) {
  const dir = fs.mkdtempSync(path.join(root, 'native-'));
  const fake = fakeZeroclaw(dir);
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(home, '.zeroclaw', 'stackwright', 'skills', 'pack', 'demo'), { recursive: true });
  fs.writeFileSync(path.join(home, '.zeroclaw', 'stackwright', 'skills', 'pack', 'demo', 'SKILL.md'), '---\nname: demo\n---\n');
  const res = await run('sh', ['-c', heredoc(files['native/zeroclaw.sh'], 'START').replaceAll('/usr/local/bin/zeroclaw', fake.bin)], { env: { PATH: process.env.PATH, ...env, HOME: home } });
  return { res, home, seen: res.code === 0 ? fake.seen() : {}, config: () => fs.readFileSync(path.join(home, '.zeroclaw', 'config.toml'), 'utf8') };
}

async function startNative(request: Parameters<Generator['generate']>[0], env: Record<string, string>) {
  const { files } = generator.generate({ ...request, deploymentType: 'bare-metal' });
  return { installer: files['native/zeroclaw.sh'], ...await launchNative(files, { GATEWAY_TOKEN: 'zc_test', STACK_NATIVE_BIND: '172.17.0.1', ...env }) };
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
    assert.match(bare.res.stderr, /no provider key set .* and no model server in the stack: chats fail/);
    assert.equal(bare.seen.ZEROCLAW_agents__default__model_provider, undefined);
    const wrong = await startContainer({ name: 'zc-none', primaryFramework: 'zeroclaw', services: ['redis'] }, { PROVIDER: 'ollama' });
    assert.equal(wrong.res.code, 1);
    assert.match(wrong.res.stderr, /PROVIDER is ollama but the stack has no Ollama/);
  });
});

describe('ZeroClaw on bare metal', () => {
  test('the unit gets the stack\'s Ollama as the host reaches it, and the launcher wires it without a key', async () => {
    const { res, installer, seen, home } = await startNative({ name: 'zc-bm', preset: 'offline-assistant', primaryFramework: 'zeroclaw' },
      { OLLAMA_URL: 'http://172.17.0.1:11434', OLLAMA_MODEL: 'qwen3:4b' });
    assert.match(installer, /env_line OLLAMA_URL http:\/\/"\$\(env_value STACK_NATIVE_BIND 127\.0\.0\.1\)":11434/, 'the unit\'s environment file holds OLLAMA_URL');
    assert.match(installer, /env_line OLLAMA_MODEL "\$\(env_value OLLAMA_MODEL\)"/);
    assert.equal(res.code, 0, res.stderr);
    assert.equal(seen.ZEROCLAW_providers__models__ollama__default__uri, 'http://172.17.0.1:11434');
    assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'ollama.default');
    assert.equal(seen.ZEROCLAW_gateway__host, '172.17.0.1');
    assert.ok(fs.existsSync(path.join(home, '.zeroclaw', 'agents', 'default', 'workspace', 'skills', 'demo', 'SKILL.md')), 'the stack\'s skills are copied into the agent\'s workspace');
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
  test('with two, the README says which answers and that scripts/start.sh switches', () => {
    const { files } = generator.generate({ name: 'zc-two', primaryFramework: 'zeroclaw', services: ['llama-cpp', 'xinference'] });
    assert.ok(files['README.md'].includes('set `LOCAL_MODEL_SERVER` in `.env` to `llama-cpp` or `xinference` and run `scripts/start.sh` again to switch'));
  });

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

// Issue 35, natively: the same servers through the unit's environment, at the stub model server's address
describe('ZeroClaw on bare metal with the stack\'s other model servers', () => {
  // every server ZeroClaw is wired to but Ollama (whose cases are above), from the catalogue
  const SERVERS = wiredModelServers('zeroclaw');

  /** A bare-metal stack holding `ids`, the unit's environment with each server's published port at a stub answering as it (its model, its key). */
  async function nativeStack(ids: readonly string[], dotenv: Record<string, string> = {}) {
    const { files } = generator.generate({ name: 'zc-bm-ms', primaryFramework: 'zeroclaw', services: [...ids], deploymentType: 'bare-metal' });
    const stubs = [];
    const ports: Record<string, string> = {};
    for (const id of ids) {
      const server = SERVERS.find((s) => s.id === id)!;
      const key = server.keyed ? `key-${id}-0123456789` : '';
      const stub = await startStub({ STUB_SERVER: id, STUB_API_KEY: key, STUB_MODELS: exampleValue(files, `${server.prefix}_MODEL`) });
      stubs.push(stub);
      ports[dotenvKeyOf(files['native/zeroclaw.sh'], `${server.prefix}_URL`)] = new URL(stub.url).port;
      if (key) ports[dotenvKeyOf(files['native/zeroclaw.sh'], `${server.prefix}_API_KEY`)] = key;
    }
    try {
      const env = await unitEnvironment(files, 'zeroclaw', { ZEROCLAW_GATEWAY_TOKEN: 'zc_test', ...ports, ...dotenv });
      return { files, env, stubs, ...await launchNative(files, env) };
    } catch (err) {
      for (const stub of stubs) await stub.stop();
      throw err;
    }
  }

  for (const server of SERVERS) {
    test(`${server.id}: no cloud key: the launcher's custom provider is its /v1 with the model and key of the unit's environment`, async () => {
      const { files, env, stubs, res, seen, config } = await nativeStack([server.id]);
      const model = exampleValue(files, `${server.prefix}_MODEL`);
      try {
        assert.equal(res.code, 0, res.stderr);
        assert.equal(env[`${server.prefix}_URL`], stubs[0].url, 'the unit reaches the server on its published port');
        assert.equal(env[`${server.prefix}_MODEL`], model, 'the model of .env');
        assert.equal(env[`${server.prefix}_API_KEY`], server.keyed ? `key-${server.id}-0123456789` : undefined);
        assert.equal(seen.ZEROCLAW_providers__models__custom__default__uri, `${stubs[0].url}/v1`);
        assert.equal(seen.ZEROCLAW_providers__models__custom__default__model, model);
        assert.equal(seen.ZEROCLAW_providers__models__custom__default__api_key, server.keyed ? `key-${server.id}-0123456789` : 'no-key');
        assert.equal(seen.ZEROCLAW_agents__default__model_provider, 'custom.default');
        assert.equal(seen.ZEROCLAW_gateway__host, '127.0.0.1', 'STACK_NATIVE_BIND from .env (its default)');
        assert.match(config(), /^default_provider = "custom"$/m);
        assert.ok(await serves(seen.ZEROCLAW_providers__models__custom__default__uri, seen.ZEROCLAW_providers__models__custom__default__api_key, model),
          'the server at that uri, asked with that key, serves that model');
      } finally {
        for (const stub of stubs) await stub.stop();
      }
    });
  }

  test('every catalogue server but Ollama is covered', () => {
    assert.deepEqual(SERVERS.map((s) => s.id), ['llama-cpp', 'vllm', 'sglang', 'local-ai', 'xinference']);
  });

  test('two servers: the first of its order answers, LOCAL_MODEL_SERVER picks the second, a cloud key still wins', async () => {
    const first = await nativeStack(['llama-cpp', 'xinference']);
    try {
      assert.equal(first.env.LOCAL_MODEL_SERVER, '', 'the unit gets the choice, empty by default');
      assert.ok(first.files['README.md'].includes('set `LOCAL_MODEL_SERVER` in `.env` to `llama-cpp` or `xinference` and run `sudo native/zeroclaw.sh` (on Windows `install.ps1`) again to switch'),
        'the README says how a native unit switches (its installer rewrites the unit\'s environment)');
      assert.equal(first.seen.ZEROCLAW_providers__models__custom__default__uri, `${first.stubs[0].url}/v1`);
    } finally {
      for (const stub of first.stubs) await stub.stop();
    }
    const second = await nativeStack(['llama-cpp', 'xinference'], { LOCAL_MODEL_SERVER: 'xinference' });
    try {
      assert.equal(second.res.code, 0, second.res.stderr);
      assert.equal(second.env.LOCAL_MODEL_SERVER, 'xinference');
      assert.equal(second.seen.ZEROCLAW_providers__models__custom__default__uri, `${second.stubs[1].url}/v1`);
      assert.equal(second.seen.ZEROCLAW_providers__models__custom__default__model, exampleValue(second.files, 'XINFERENCE_MODEL'));
      assert.equal(second.seen.ZEROCLAW_providers__models__custom__default__api_key, 'no-key', 'Xinference has no key; llama.cpp\'s is not used');
      assert.ok(await serves(`${second.stubs[1].url}/v1`, 'no-key', exampleValue(second.files, 'XINFERENCE_MODEL')));
    } finally {
      for (const stub of second.stubs) await stub.stop();
    }
    const keyed = await nativeStack(['llama-cpp', 'xinference'], { LOCAL_MODEL_SERVER: 'xinference', GEMINI_API_KEY: 'gm-test' });
    try {
      assert.equal(keyed.seen.ZEROCLAW_agents__default__model_provider, 'gemini.default');
      assert.equal(keyed.seen.ZEROCLAW_providers__models__custom__default__uri, undefined);
    } finally {
      for (const stub of keyed.stubs) await stub.stop();
    }
  });

  test('PROVIDER=local without such a server, and a LOCAL_MODEL_SERVER not in the stack, say so', async () => {
    const { files } = generator.generate({ name: 'zc-bm-none', primaryFramework: 'zeroclaw', services: ['redis'], deploymentType: 'bare-metal' });
    const wrong = await launchNative(files, await unitEnvironment(files, 'zeroclaw', { ZEROCLAW_GATEWAY_TOKEN: 'zc_test', ZEROCLAW_PROVIDER: 'local' }));
    assert.equal(wrong.res.code, 1);
    assert.match(wrong.res.stderr, /PROVIDER is local but the stack has no other model server/);
    const named = await launchNative(files, { GATEWAY_TOKEN: 'zc_test', LOCAL_MODEL_SERVER: 'vllm' });
    assert.equal(named.res.code, 0, named.res.stderr);
    assert.match(named.res.stderr, /LOCAL_MODEL_SERVER=vllm is not a model server of this stack/);
    assert.match(named.res.stderr, /no model server in the stack: chats fail/);
  });

  test('the launcher holds the container start command\'s provider choice and overrides verbatim', () => {
    const request = { name: 'zc-same', primaryFramework: 'zeroclaw', services: ['llama-cpp'] };
    const container = (yaml.load(generator.generate(request).files['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services.zeroclaw.command[0].replaceAll('$$', '$');
    const launcher = heredoc(generator.generate({ ...request, deploymentType: 'bare-metal' }).files['native/zeroclaw.sh'], 'START');
    const piece = (text: string, from: string, to: string) => {
      const start = text.indexOf(from);
      assert.ok(start >= 0, from);
      return text.slice(start, text.indexOf(to, start) + to.length);
    };
    for (const [from, to] of [['key_of() {', 'key="$(key_of "${provider:-openrouter}")"'], ['if [ "$provider" = ollama ]; then\n  # ZeroClaw\'s own', '(scripts/start.sh; natively native/zeroclaw.sh)" >&2\nfi\n']]) {
      assert.equal(piece(launcher, from, to), piece(container, from, to));
    }
  });

  test('the Windows launcher (stackwright-start.ps1) parses and makes the same choice', async () => {
    assertValidatorsInstalled();
    const { files } = generator.generate({ name: 'zc-win', primaryFramework: 'zeroclaw', services: ['llama-cpp', 'vllm'], deploymentType: 'bare-metal' });
    const ps1 = files['install.ps1'];
    const start = /\$start = @'\n([\s\S]*?)\n'@\n/.exec(ps1)![1];
    const file = path.join(fs.mkdtempSync(path.join(root, 'ps1-')), 'stackwright-start.ps1');
    fs.writeFileSync(file, start);
    const parsed = await run(process.execPath, [path.join(VALIDATORS_DIR, 'lib', 'ps1-syntax.mjs'), file], { env: { ...process.env } });
    assert.equal(parsed.code, 0, parsed.stdout + parsed.stderr);
    // install.ps1 hands it each server's address, model and key and the choice, under the names the bash launcher reads
    for (const v of ['LLAMA_CPP_URL', 'LLAMA_CPP_MODEL', 'LLAMA_CPP_API_KEY', 'VLLM_URL', 'VLLM_MODEL', 'VLLM_API_KEY', 'LOCAL_MODEL_SERVER']) {
      assert.match(ps1, new RegExp(`SetEnvironmentVariable\\('${v}'`), v);
    }
    assert.match(start, /'ollama:OLLAMA', 'llama-cpp:LLAMA_CPP', 'vllm:VLLM', 'sglang:SGLANG', 'local-ai:LOCAL_AI', 'xinference:XINFERENCE'/, 'the bash launcher\'s order');
    assert.match(start, /ZEROCLAW_providers__models__custom__default__uri = \[Environment\]::GetEnvironmentVariable\("\$\{lp\}_URL"\)\.TrimEnd\('\/'\) \+ '\/v1'/);
    assert.match(start, /\$env:ZEROCLAW_agents__default__model_provider = 'custom\.default'/);
  });
});
