// STACK_HASH_THREAD: the service hashes a bundle's files for stackwright.json on a second thread (a Node worker,
// src/bundle/parallel-hash.ts) unless it is 0. Both ways a large stack's answer is the same, byte for byte, and
// every hash in its record is its file's; the worker is there with 1 and absent with 0 (the thread names Linux
// lists for the process), and only once a stack large enough to be worth it was rendered.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { describe, test } from 'node:test';
import { largeRequest } from '../../bench/requests.js';
import { KEY } from '../support/keys.js';
import { spawnServer } from '../support/process.js';
import { shippedCatalogue } from '../support/server.js';
import { HASH_THREAD_NAME } from '../../src/bundle/parallel-hash.js';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** The names of the process's threads (Node gives a worker's system thread the worker's name). */
const threadNames = (pid: number) => fs.readdirSync(`/proc/${pid}/task`).map((t) => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
});

// only the hash thread: a TypeScript loader run with a cold cache holds a worker of its own (esbuild's), named WorkerThread
const workerThreads = (pid: number) => threadNames(pid).filter((name) => name === HASH_THREAD_NAME).length;

/** Waits up to `ms` for the process to hold `count` worker threads; the count it holds then. */
async function workersAfter(pid: number, count: number, ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (workerThreads(pid) !== count && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
  return workerThreads(pid);
}

describe('STACK_HASH_THREAD', { skip: os.availableParallelism() < 2 ? 'one core: the service never starts the thread' : false }, () => {
  test('a 200-service stack is the same with the thread and without it; the worker runs only with it, and only once a large stack was rendered', async () => {
    const catalogue = shippedCatalogue();
    const large = largeRequest(catalogue);
    // a large selection of its own, so the request compared below renders in full (not bound into a shape)
    const trigger = { ...large, services: large.services!.slice(0, -1), name: 'first' };
    const request = { ...large, name: 'hashed', domain: 'hashed.example.org' };
    const answers: string[] = [];
    for (const setting of ['1', '0']) {
      const server = await spawnServer({ STACK_HASH_THREAD: setting, STACK_WATCH_CATALOGUE: '0' });
      const pid = server.child.pid!;
      const generate = async (body: object) => {
        const res = await fetch(`${server.url}/api/v1/generate`, {
          method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(body),
        });
        assert.equal(res.status, 200);
        return res.text();
      };
      try {
        assert.equal(workerThreads(pid), 0, 'a worker before any render');
        // a preset's stack gives too little to hash for the worker's ~13 MB (parallel-hash.ts WORKER_WORTH_CHARS)
        await generate({ name: 'small', preset: 'full-stack', proxy: 'caddy', domain: 'small.example.org' });
        assert.equal(await workersAfter(pid, 1, 500), 0, `a worker after a preset's stack (STACK_HASH_THREAD=${setting})`);
        // a large one starts it after its answer (with 1)
        await generate(trigger);
        assert.equal(await workersAfter(pid, setting === '1' ? 1 : -1, 5000), setting === '1' ? 1 : 0, `worker threads after a large stack with STACK_HASH_THREAD=${setting}`);
        const text = await generate(request);
        const files = (JSON.parse(text) as { data: { files: Record<string, string> } }).data.files;
        const record = JSON.parse(files['stackwright.json']) as { files: Record<string, string> };
        assert.ok(Object.keys(record.files).length > 200);
        for (const [file, hash] of Object.entries(record.files)) assert.equal(hash, sha256(files[file]), `${file} (STACK_HASH_THREAD=${setting})`);
        answers.push(text);
        assert.equal(workerThreads(pid), setting === '1' ? 1 : 0, `worker threads with STACK_HASH_THREAD=${setting}`);
      } finally {
        server.child.kill();
      }
    }
    assert.equal(answers[0], answers[1]);
  });
});
