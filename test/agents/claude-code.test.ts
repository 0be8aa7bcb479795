// Claude Code's first answer, run for real (issue 20): the CLI from npm at the catalogue's pin, pointed at
// test/stub-model/server.mjs, once with an Anthropic key and once without, with the settings the generated
// start command leaves for the stack's Ollama (its Anthropic Messages endpoint).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator } from '../../src/pipeline/generate.js';
import { agentPackage, run, stubForFile } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

const generator = new Generator(shippedCatalogue(), readConfig({}).templatesDir, 20);

agentPackage('@anthropic-ai/claude-code', 'claude-code');
// npm holds back the wrapper's install script, so the platform package's binary is run directly
const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}`;
const claude = path.join(agentPackage(platform, 'claude-code', '@anthropic-ai/claude-code'), 'claude');
const { root, stub: currentStub } = stubForFile('claude');

/** `claude -p <message>` with a home of its own and `env`, as a user would run it in the container. */
async function ask(message: string, env: Record<string, string>, home = fs.mkdtempSync(path.join(root, 'home-'))) {
  const res = await run(claude, ['-p', message], {
    cwd: home,
    env: { PATH: process.env.PATH, HOME: home, DISABLE_AUTOUPDATER: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...env },
    timeoutMs: 400_000,
  });
  return { ...res, all: `${res.stdout}\n${res.stderr}` };
}

test('with ANTHROPIC_API_KEY the chat goes to the Messages API with the key', async () => {
  const before = (await currentStub().requests()).length;
  // the stub stands in for api.anthropic.com
  const res = await ask('hello with an anthropic key', { ANTHROPIC_API_KEY: 'sk-ant-stub', ANTHROPIC_BASE_URL: currentStub().url });
  assert.equal(res.code, 0, res.all);
  assert.match(res.stdout, /STUB-OK \S+: hello with an anthropic key/, res.all);
  const calls = (await currentStub().requests()).slice(before);
  assert.ok(calls.some((c) => c.path === '/v1/messages' && c.credential === 'sk-ant-stub'), JSON.stringify(calls));
});

/**
 * Runs the claude-code service's start command of a generated stack with `env` (the container's), its /root
 * in a folder of its own (npm a stand-in reporting the pinned CLI installed); returns that home and the
 * settings.json it left, if any.
 */
async function startContainer(request: Parameters<Generator['generate']>[0], env: Record<string, string>, prepare: (home: string) => void = () => {}) {
  const { files } = generator.generate(request);
  const service = (yaml.load(files['docker-compose.yml']) as { services: Record<string, { command: string[] }> }).services['claude-code'];
  const base = fs.mkdtempSync(path.join(root, 'container-'));
  const home = path.join(base, 'root');
  const bin = path.join(base, 'bin');
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'npm'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  prepare(home);
  const idle = 'sleep infinity &\nwait';
  let script = service.command[2].replaceAll('$$', '$');
  assert.ok(script.includes(idle), 'the start command ends idling');
  script = script.replace(idle, 'exit 0').replaceAll('/usr/local/bin/claude', path.join(bin, 'claude'))
    .replaceAll('/workspace', path.join(base, 'workspace')).replaceAll('/root', home);
  const res = await run('sh', ['-c', script], { env: { PATH: `${bin}:${process.env.PATH}`, HOME: home, ...env }, timeoutMs: 60_000 });
  assert.equal(res.code, 0, `${res.stdout}\n${res.stderr}`);
  const file = path.join(home, '.claude', 'settings.json');
  return { home, res, settings: fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) as { env?: Record<string, string> } : null };
}

describe('Claude Code with the stack\'s Ollama', () => {
  const offline = { name: 'cc-offline', preset: 'offline-assistant', primaryFramework: 'claude-code' } as const;

  test('without a key, the start command points Claude Code at the stack\'s Ollama and it answers through it', async () => {
    const { home, settings, res: started } = await startContainer(offline, { ANTHROPIC_API_KEY: '', OLLAMA_URL: currentStub().url, OLLAMA_MODEL: 'qwen3:4b' });
    assert.match(started.stdout, /answers with the stack's Ollama \(qwen3:4b\)/);
    assert.deepEqual(settings?.env, {
      ANTHROPIC_BASE_URL: currentStub().url, ANTHROPIC_AUTH_TOKEN: 'ollama', ANTHROPIC_MODEL: 'qwen3:4b', ANTHROPIC_DEFAULT_OPUS_MODEL: 'qwen3:4b',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'qwen3:4b', ANTHROPIC_DEFAULT_HAIKU_MODEL: 'qwen3:4b', CLAUDE_CODE_SUBAGENT_MODEL: 'qwen3:4b',
    });
    const before = (await currentStub().requests()).length;
    // the container's environment: compose hands it an empty ANTHROPIC_API_KEY
    const res = await ask('hello from the offline claude test', { ANTHROPIC_API_KEY: '' }, home);
    assert.equal(res.code, 0, res.all);
    assert.match(res.stdout, /STUB-OK qwen3:4b: hello from the offline claude test/, res.all);
    const calls = (await currentStub().requests()).slice(before);
    assert.ok(calls.some((c) => c.path === '/v1/messages' && c.model === 'qwen3:4b' && c.credential === 'ollama'), JSON.stringify(calls));
  });

  test('a key, or an account login, leaves Claude Code on Anthropic; the user\'s own settings stay', async () => {
    const keyed = await startContainer(offline, { ANTHROPIC_API_KEY: 'sk-ant-test', OLLAMA_URL: currentStub().url }, (home) => {
      // what an earlier start without a key left, plus a setting of the user's own
      fs.writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ theme: 'dark', env: { ANTHROPIC_BASE_URL: 'http://ollama:11434', ANTHROPIC_MODEL: 'mine', FOO: '1' } }));
      fs.writeFileSync(path.join(home, '.claude', '.stackwright-env.json'), JSON.stringify({ ANTHROPIC_BASE_URL: 'http://ollama:11434', ANTHROPIC_MODEL: 'qwen3:4b' }));
    });
    assert.deepEqual(keyed.settings, { theme: 'dark', env: { ANTHROPIC_MODEL: 'mine', FOO: '1' } }, 'only what the stack set is taken back');
    const login = await startContainer(offline, { ANTHROPIC_API_KEY: '', OLLAMA_URL: currentStub().url }, (home) => {
      fs.writeFileSync(path.join(home, '.claude', '.credentials.json'), '{}');
    });
    assert.equal(login.settings, null, 'an account login is left to answer');
    const none = await startContainer({ name: 'cc-none', primaryFramework: 'claude-code', services: ['redis'] }, { ANTHROPIC_API_KEY: '' });
    assert.equal(none.settings, null, 'no Ollama in the stack: nothing written');
  });
});
