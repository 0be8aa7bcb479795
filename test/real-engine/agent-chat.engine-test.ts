// The default framework's first chat on the real engine: the real OpenClaw from npm, started by the stack's own
// start.sh, answers through its gateway. Offline, with no cloud key, it answers from the stack's Ollama (our stub
// model server in Ollama's place, which answers every chat with "STUB-OK <model>: <the user's words>"); with a
// key in .env, the key reaches OpenAI's provider (pointed at the stub as a user points it at a proxy or a
// compatible endpoint). What this proves: the wiring, the gateway, the agent runtime and the model call; not a
// real model's answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded, containerProblems, routeProblems } from './checks.js';
import { requireEngine } from './engine.js';
import { Stack } from './stack.js';
import type { StubRequest } from '../support/agents.js';


describe('OpenClaw answers its first chat on the engine: offline from the stack\'s Ollama, then with a key', { concurrency: false }, () => {
  let stack: Stack;

  /** What the stub model server received, read from the host through Ollama's loopback port. */
  const stubCalls = async (): Promise<StubRequest[]> => {
    const res = await fetch(`http://127.0.0.1:${stack.env('OLLAMA_PORT_11434') ?? '11434'}/_stub/requests`);
    return (await res.json()) as StubRequest[];
  };
  /** One turn through the gateway, as `openclaw agent` in the container sends it (the README's CLI path). */
  const chat = async (message: string): Promise<{ text: string; provider: string; model: string }> => {
    const res = await stack.compose(['exec', '-T', 'openclaw', 'node', '/app/openclaw.mjs', 'agent', '--agent', 'main', '--message', message, '--json']);
    assertSucceeded(res, 'openclaw agent');
    const answer = JSON.parse(res.stdout) as { status: string; result: { payloads: { text: string }[]; meta: { agentMeta: { provider: string; model: string } } } };
    assert.equal(answer.status, 'ok', res.stdout);
    return { text: answer.result.payloads.map((p) => p.text).join('\n'), ...answer.result.meta.agentMeta };
  };

  before(async () => {
    await requireEngine();
    stack = await Stack.generate({ name: 'e2e-chat', services: ['ollama'], proxy: 'caddy' });
    await stack.provideImages();
    stack.writeEnv({});
  });
  after(async () => {
    await stack?.remove();
  });

  test('with no cloud key start.sh starts the stack and says the agent answers from the stack\'s Ollama', async () => {
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh');
    assert.match(start.stderr, /no cloud key for OpenClaw: it answers with the stack's Ollama/);
    assert.deepEqual(containerProblems(await stack.containers()), []);
    assert.deepEqual(await routeProblems(stack), []);
  });

  test('the README\'s pull step, then a chat through the gateway is answered by OLLAMA_MODEL', async () => {
    const model = stack.env('OLLAMA_MODEL')!;
    assert.match(stack.read('README.md'), new RegExp(`docker compose exec ollama ollama pull ${model.replace(/[.]/g, '\\.')}`));
    const pull = await stack.compose(['exec', '-T', 'ollama', 'ollama', 'pull', model]);
    assert.equal(pull.code, 0, pull.stderr);
    const answer = await chat('hello from the offline engine test');
    assert.equal(answer.provider, 'ollama');
    assert.equal(answer.model, model);
    assert.match(answer.text, new RegExp(`^STUB-OK ${model.replace(/[.]/g, '\\.')}: .*hello from the offline engine test`));
    const calls = await stubCalls();
    assert.ok(calls.some((c) => c.path === '/api/chat' && c.model === model && c.userText.includes('hello from the offline engine test')), JSON.stringify(calls));
  });

  test('with OPENAI_API_KEY set and start.sh run again, the chat goes to OpenAI\'s model with that key', async () => {
    const key = 'sk-stackwright-engine-chat-key';
    stack.setEnv('OPENAI_API_KEY', key);
    // OpenAI's provider pointed at the stub (models.providers.openai.baseUrl, docs/providers/openai.md of
    // openclaw), kept in the state volume across the restart as any setting a user makes
    const patch = await stack.compose(['exec', '-T', 'openclaw', 'node', '/app/openclaw.mjs', 'config', 'patch', '--stdin'], {
      input: JSON.stringify({ models: { providers: { openai: { baseUrl: 'http://ollama:11434/v1', models: [] } } } }),
    });
    assert.equal(patch.code, 0, patch.stderr);
    const start = await stack.script('start.sh');
    assertSucceeded(start, 'start.sh');
    assert.doesNotMatch(start.stderr, /no cloud key/);
    assert.deepEqual(containerProblems(await stack.containers()), []);
    const answer = await chat('hello with a key on the engine');
    assert.equal(answer.provider, 'openai');
    assert.match(answer.text, /^STUB-OK gpt-5\.5: .*hello with a key on the engine/);
    const calls = await stubCalls();
    assert.ok(calls.some((c) => c.path.startsWith('/v1/') && c.model === 'gpt-5.5' && c.credential === key && c.userText.includes('hello with a key on the engine')), JSON.stringify(calls));
  });
});
