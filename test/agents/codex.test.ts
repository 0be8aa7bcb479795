// Codex's first answer, run for real (issue 20): the CLI from npm at the catalogue's pin, with the config.toml
// and login the generated container start command leaves, against test/stub-model/server.mjs, once offline
// as the stack's Ollama and once as the OpenAI endpoint a key goes to.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, run, stubForFile, codexScratch } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

const codexJs = path.join(agentPackage('@openai/codex', 'codex'), 'bin', 'codex.js');
const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);
const { root, stub: currentStub } = stubForFile('codex');

/**
 * Runs the codex service's start command of a generated stack with `env` (the container's), its /root in a
 * folder of its own: npm is a stand-in that reports the pinned CLI installed, `codex` the real one, and the
 * command ends where the container would idle. Returns that home.
 */
async function startContainer(request: Parameters<Generator['generate']>[0], env: Record<string, string>, base = fs.mkdtempSync(path.join(root, 'container-'))): Promise<{ base: string; home: string; cfg: string }> {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services.codex;
  const { home, bin, codex } = codexScratch(base, codexJs);
  // Compose turns $$ into $
  let script = service.command[2].replaceAll('$$', '$');
  const idle = 'sleep infinity &\nwait';
  assert.ok(script.includes(idle), 'the start command ends idling');
  script = script.replace(idle, 'exit 0')
    .replaceAll('/root/.npm-global/bin/codex', codex)
    .replaceAll('/usr/local/bin/codex', path.join(bin, 'codex'))
    .replaceAll('/workspace', path.join(base, 'workspace'))
    .replaceAll('/root', home);
  const res = await run('sh', ['-c', script], { env: { PATH: `${bin}:${process.env.PATH}`, HOME: home, ...env }, timeoutMs: 120_000 });
  assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  return { base, home, cfg: fs.readFileSync(path.join(home, '.codex', 'config.toml'), 'utf8') };
}

/** `codex exec <message>` as the user would run it in the container (same HOME, the container's variables). */
async function ask(home: string, message: string, args: string[] = [], env: Record<string, string> = {}) {
  const res = await run(process.execPath, [codexJs, 'exec', '--skip-git-repo-check', ...args, message], {
    cwd: home, env: { PATH: process.env.PATH, HOME: home, ...env }, timeoutMs: 400_000,
  });
  return { ...res, all: `${res.stdout}\n${res.stderr}` };
}

describe('Codex with the stack\'s Ollama', () => {
  test('without a key, the start command makes the stack\'s Ollama the default and Codex answers through it', async () => {
    const { home, cfg } = await startContainer({ name: 'cx-offline', preset: 'offline-assistant', primaryFramework: 'codex' },
      { OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b', OPENAI_API_KEY: '' });
    assert.match(cfg, /^model_provider = "stack-ollama" # stackwright-ollama$/m, cfg);
    assert.match(cfg, /^model = "qwen3:4b" # stackwright-ollama$/m, cfg);
    assert.ok(cfg.includes(`[model_providers.stack-ollama]\n# the stack's Ollama: rewritten on every start\nname = "Ollama (this stack)"\nbase_url = "${currentStub().url}/v1"\nwire_api = "responses"\n`), cfg);
    const before = (await currentStub().requests()).length;
    const res = await ask(home, 'hello from the offline codex test');
    assert.equal(res.code, 0, res.all);
    assert.match(res.stdout, /STUB-OK qwen3:4b: hello from the offline codex test/, res.all);
    const calls = (await currentStub().requests()).slice(before);
    assert.ok(calls.some((c) => c.path === '/v1/responses' && c.model === 'qwen3:4b' && !c.key), JSON.stringify(calls));

    // a second start changes nothing
    const again = await startContainer({ name: 'cx-offline', preset: 'offline-assistant', primaryFramework: 'codex' },
      { OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b', OPENAI_API_KEY: '' }, path.dirname(home));
    assert.equal(again.cfg, cfg);
  });

  test('a model the user chose in config.toml stays; the stack\'s Ollama is then only offered', async () => {
    const base = fs.mkdtempSync(path.join(root, 'container-'));
    fs.mkdirSync(path.join(base, 'root', '.codex'), { recursive: true });
    fs.writeFileSync(path.join(base, 'root', '.codex', 'config.toml'), 'model = "gpt-5.5"\n\n[projects."/workspace"]\ntrust_level = "trusted"\n');
    const { cfg } = await startContainer({ name: 'cx-own', preset: 'offline-assistant', primaryFramework: 'codex' },
      { OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b', OPENAI_API_KEY: '' }, base);
    assert.doesNotMatch(cfg, /# stackwright-ollama/, cfg);
    assert.match(cfg, /^model = "gpt-5.5"$/m);
    assert.match(cfg, /^trust_level = "trusted"$/m, 'the user\'s tables stay');
    assert.match(cfg, /\[model_providers\.stack-ollama\]/);
  });

  test('a start with a key logs in with it and leaves OpenAI the provider; the key reaches the endpoint', async () => {
    const key = 'sk-stub-codex-key-0123456789';
    const { home, cfg } = await startContainer({ name: 'cx-key', preset: 'offline-assistant', primaryFramework: 'codex' },
      { OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b', OPENAI_API_KEY: key });
    assert.doesNotMatch(cfg, /stackwright-ollama/, 'no default provider while a key is set');
    assert.match(cfg, /\[model_providers\.stack-ollama\]/, 'the stack\'s Ollama stays available as -c model_provider=stack-ollama');
    // Codex 0.169.0 ignores OPENAI_BASE_URL; openai_base_url is the built-in openai provider's base URL
    // (built_in_model_providers(openai_base_url) in codex-rs/model-provider-info/src/lib.rs): the stub stands in for api.openai.com
    const before = (await currentStub().requests()).length;
    const res = await ask(home, 'hello with an openai key', ['-c', `openai_base_url="${currentStub().url}/v1"`]);
    assert.equal(res.code, 0, res.all);
    assert.match(res.stdout, /STUB-OK \S+: hello with an openai key/, res.all);
    const calls = (await currentStub().requests()).slice(before);
    assert.ok(calls.some((c) => c.method === 'POST' && c.path === '/v1/responses' && c.credential === key), JSON.stringify(calls));
  });

  test('a stack without Ollama gets no local provider, and a start without Ollama removes the one left before', async () => {
    const { files } = generator.generate({ name: 'cx-none', primaryFramework: 'codex', services: ['redis'] });
    const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { environment?: Record<string, string> }> }).services.codex;
    assert.equal(service.environment?.OLLAMA_URL, undefined, 'no OLLAMA_URL without Ollama');
    const offline = await startContainer({ name: 'cx-gone', preset: 'offline-assistant', primaryFramework: 'codex' },
      { OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b', OPENAI_API_KEY: '' });
    assert.match(offline.cfg, /stack-ollama/);
    const after = await startContainer({ name: 'cx-none', primaryFramework: 'codex', services: ['redis'] }, { OPENAI_API_KEY: '' }, offline.base);
    assert.doesNotMatch(after.cfg, /stack-ollama/, after.cfg);
    assert.match(after.cfg, /^sandbox_mode = "danger-full-access"$/m);
  });
});
