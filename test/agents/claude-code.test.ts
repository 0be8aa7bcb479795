// Claude Code's first answer, run for real (issue 20): the CLI from npm at the catalogue's pin, pointed at
// test/stub-model/server.mjs, once with an Anthropic key and once the way the README tells a user to reach the
// stack's Ollama (its Anthropic Messages endpoint) without a key.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentPackage, noteCommand, run, stubForFile } from '../support/agents.js';
import { shippedCatalogue } from '../support/server.js';

agentPackage('@anthropic-ai/claude-code', 'claude-code');
// npm holds back the wrapper's install script, so the platform package's binary is run directly
const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}`;
const claude = path.join(agentPackage(platform, 'claude-code', '@anthropic-ai/claude-code'), 'claude');
const { root, stub: currentStub } = stubForFile('claude');

/** `claude -p <message>` with a home of its own and `env`, as a user would run it in the container. */
async function ask(message: string, env: Record<string, string>) {
  const home = fs.mkdtempSync(path.join(root, 'home-'));
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
  assert.ok(calls.some((c) => c.path === '/v1/messages' && c.key), JSON.stringify(calls));
});

test('without a key, the README\'s command for the stack\'s Ollama answers', async () => {
  const note = shippedCatalogue().frameworks.get('claude-code')!.manifest.firstRun.localModelsNote;
  // the command the note gives, with the stub standing as the stack's Ollama (http://ollama:11434)
  const { env, program, args } = await noteCommand(note);
  assert.equal(program, 'claude');
  assert.deepEqual(args, []);
  assert.deepEqual(Object.keys(env).sort(), ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL']);
  assert.equal(env.ANTHROPIC_BASE_URL, 'http://ollama:11434');
  const before = (await currentStub().requests()).length;
  const res = await ask('hello from the offline claude test', { ...env, ANTHROPIC_BASE_URL: currentStub().url, ANTHROPIC_MODEL: 'qwen3:4b' });
  assert.equal(res.code, 0, res.all);
  assert.match(res.stdout, /STUB-OK qwen3:4b: hello from the offline claude test/, res.all);
  const calls = (await currentStub().requests()).slice(before);
  assert.ok(calls.some((c) => c.path === '/v1/messages' && c.model === 'qwen3:4b'), JSON.stringify(calls));
});
