// STACK_HASH_THREAD: the service hashes a bundle's files for stackwright.json on a second thread (a Node worker,
// src/bundle/parallel-hash.ts) unless it is 0. Both ways a large stack's answer is the same, byte for byte, and
// every hash in its record is its file's; the worker is there with 1 and absent with 0 (the thread names Linux
// lists for the process), and only from the first render on.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import { describe, test } from 'node:test';
import { largeRequest } from '../../bench/requests.js';
import { KEY } from '../support/keys.js';
import { spawnServer } from '../support/process.js';
import { shippedCatalogue } from '../support/server.js';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');

/** The names of the process's threads (Node names a worker's thread WorkerThread). */
const threadNames = (pid: number) => fs.readdirSync(`/proc/${pid}/task`).map((t) => {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${t}/comm`, 'utf8').trim();
  } catch {
    return '';
  }
});

describe('STACK_HASH_THREAD', { skip: os.availableParallelism() < 2 ? 'one core: the service never starts the thread' : false }, () => {
  test('a 200-service stack is the same with the thread and without it, and the worker runs only with it', async () => {
    const request = { ...largeRequest(shippedCatalogue()), name: 'hashed', domain: 'hashed.example.org' };
    const answers: string[] = [];
    for (const setting of ['1', '0']) {
      const server = await spawnServer({ STACK_HASH_THREAD: setting, STACK_WATCH_CATALOGUE: '0' });
      try {
        // the thread starts with the first bundle rendered: a service that has rendered none holds no worker
        assert.equal(threadNames(server.child.pid!).filter((name) => name === 'WorkerThread').length, 0, 'a worker before any render');
        const res = await fetch(`${server.url}/api/v1/generate`, {
          method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify(request),
        });
        assert.equal(res.status, 200);
        const text = await res.text();
        const files = (JSON.parse(text) as { data: { files: Record<string, string> } }).data.files;
        const record = JSON.parse(files['stackwright.json']) as { files: Record<string, string> };
        assert.ok(Object.keys(record.files).length > 200);
        for (const [file, hash] of Object.entries(record.files)) assert.equal(hash, sha256(files[file]), `${file} (STACK_HASH_THREAD=${setting})`);
        answers.push(text);
        const workers = threadNames(server.child.pid!).filter((name) => name === 'WorkerThread').length;
        assert.equal(workers, setting === '1' ? 1 : 0, `worker threads with STACK_HASH_THREAD=${setting}`);
      } finally {
        server.child.kill();
      }
    }
    assert.equal(answers[0], answers[1]);
  });
});
