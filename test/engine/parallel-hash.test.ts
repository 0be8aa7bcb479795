// The record's hashes made on a second thread (src/bundle/parallel-hash.ts) must be the hashes a render makes
// alone, byte for byte, whatever the thread does: files that do not fit its memory or its slots, a worker that
// is stopped between renders, a batch left before its hashes were read. And the thread must really hash:
// otherwise every check below would pass on the main thread's fallback alone.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { inThreadHasher, ParallelHasher } from '../../src/bundle/parallel-hash.js';
import { largeRequest, newSelections } from '../../bench/requests.js';
import { shippedCatalogue } from '../support/server.js';

const sha256 = (text: string) => crypto.createHash('sha256').update(text).digest('hex');
const catalogue = shippedCatalogue();
const templatesDir = readConfig({}).templatesDir;

/** The requests compared: new selections at ~200 services and at the full stack, every target, a GPU stack. */
function requests(): GenerateRequest[] {
  const full = { name: 'fs', preset: 'full-stack', proxy: 'caddy' as const, domain: 'example.org' };
  return [
    ...newSelections(catalogue, largeRequest(catalogue), 3),
    ...newSelections(catalogue, full, 3),
    { name: 'bm', preset: 'full-stack', deploymentType: 'bare-metal' },
    { name: 'k', preset: 'full-stack', deploymentType: 'kubernetes', proxy: 'traefik', domain: 'k.example.com' },
    { name: 'sw', preset: 'full-stack', deploymentType: 'swarm' },
    { name: 'gpu', preset: 'full-stack', gpu: true, proxy: 'nginx', domain: 'g.example.net' },
  ];
}

/** Every file's record hash is the sha256 of the file, and the bundle is the in-thread render's, byte for byte. */
function assertSameBundles(hasher: ParallelHasher, list: GenerateRequest[] = requests()): void {
  const alone = new Generator(catalogue, templatesDir, 100);
  const paired = new Generator(catalogue, templatesDir, 100, undefined, undefined, hasher);
  for (const request of list) {
    const expected = alone.generate(request);
    const got = paired.generate(request);
    assert.deepEqual(Object.keys(got.files), Object.keys(expected.files), request.name);
    for (const [file, content] of Object.entries(expected.files)) assert.equal(got.files[file], content, `${request.name}: ${file}`);
    const record = JSON.parse(got.files['stackwright.json']) as { files: Record<string, string> };
    for (const [file, hash] of Object.entries(record.files)) assert.equal(hash, sha256(got.files[file]), `${request.name}: the hash of ${file}`);
  }
}

/** Renders until the worker has hashed something (it starts in the background), failing after a few seconds. */
async function workerStarted(hasher: ParallelHasher): Promise<void> {
  const generator = new Generator(catalogue, templatesDir, 0, undefined, undefined, hasher);
  const request = { ...largeRequest(catalogue), name: 'start' };
  for (let i = 0; i < 100 && hasher.hashedByWorker === 0; i++) {
    generator.generate({ ...request, name: `start-${i}` });
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.ok(hasher.hashedByWorker > 0, 'the second thread hashed no file');
}

describe('the record hashed on a second thread', () => {
  test('bundles and records are those of a render alone, and the worker hashes a share of the files', async () => {
    const hasher = new ParallelHasher();
    await workerStarted(hasher);
    const before = hasher.hashedByWorker;
    assertSameBundles(hasher);
    assert.ok(hasher.hashedByWorker > before, `the worker hashed none of these bundles' files (${hasher.hashedByWorker})`);
    hasher.retire();
  });

  test('files past its memory or its slots are hashed on the main thread', async () => {
    // 64 KB holds a few small files but never the compose file of 200 services; 4 slots hold a few files of a bundle
    for (const hasher of [new ParallelHasher(64 * 1024, 256), new ParallelHasher(4 * 1024 * 1024, 4)]) {
      await workerStarted(hasher);
      assertSameBundles(hasher);
      hasher.retire();
    }
  });

  test('a worker stopped between renders leaves the main thread hashing every file', async () => {
    const hasher = new ParallelHasher();
    await workerStarted(hasher);
    const list = requests();
    assertSameBundles(hasher, list.slice(0, 2));
    hasher.retire();
    const after = hasher.hashedByWorker;
    assertSameBundles(hasher, list);
    assert.equal(hasher.hashedByWorker, after);
  });

  test('a batch left unread (a render that failed after queuing) does not reach the next one', async () => {
    const hasher = new ParallelHasher();
    await workerStarted(hasher);
    // large files, and the second batch opened once the worker is done with the first file: it is hashing
    // the next while the second batch reuses its slot and bytes
    const first = hasher.batch();
    for (let i = 0; i < 10; i++) first.submit(`f${i}`, String(i).repeat(300_000));
    const taken = hasher.hashedByWorker;
    first.start();
    const waitUntil = Date.now() + 5000;
    while (hasher.hashedByWorker === taken && Date.now() < waitUntil) { /* the worker's first file */ }
    assert.ok(hasher.hashedByWorker > taken, 'the worker took none of the first batch');
    const second = hasher.batch();
    const texts = Array.from({ length: 20 }, (_, i) => `second ${i} `.repeat(9_000));
    texts.forEach((text, i) => second.submit(`f${i}`, text));
    // asked for a file the worker holds, the main thread hashes the queue's far end itself before it waits: the
    // hashes it writes to the table for the worker's slots must read back as the files' own
    const before = hasher.hashedByWorker;
    second.start();
    const until = Date.now() + 5000;
    while (hasher.hashedByWorker === before && Date.now() < until) { /* the worker's first file of the batch */ }
    assert.equal(second.get('f1'), sha256(texts[1]), 'f1');
    texts.forEach((text, i) => assert.equal(second.get(`f${i}`), sha256(text), `f${i}`));
    // the first batch is over: it answers nothing, so its record would hash its files itself
    assert.equal(first.get('f0'), undefined);
    // chunks are hashed as the file they make
    const third = hasher.batch();
    const chunks = ['a'.repeat(5000), 'é'.repeat(3000), '\ud83d\ude00'.repeat(2000)];
    third.submit('chunked', chunks);
    third.start();
    assert.equal(third.get('chunked'), sha256(chunks.join('')));
    hasher.retire();
  });

  test('warming a generator renders without its hasher (the service starts its thread with the first request)', () => {
    let batches = 0;
    const counting = { batch: () => (batches++, inThreadHasher.batch()) };
    const generator = new Generator(catalogue, templatesDir, 100, undefined, undefined, counting);
    generator.warm({ name: 'warm', preset: 'full-stack' });
    assert.equal(batches, 0);
    generator.generate({ name: 'asked', preset: 'full-stack' });
    assert.equal(batches, 1);
  });

  test('the last call for a path counts: queued again with another text, or known after it was queued', async () => {
    const hasher = new ParallelHasher();
    await workerStarted(hasher);
    const batch = hasher.batch();
    const [first, second] = ['first '.repeat(2000), 'second '.repeat(2000)];
    batch.submit('config/app.yaml', first);
    batch.submit('config/app.yaml', second);
    batch.submit('config/short.yaml', first);
    // too short to queue: the record hashes it itself
    batch.submit('config/short.yaml', 'short');
    // a hash known for a path, then another text of it queued: the text counts, and the other way round
    batch.known('skills/a/SKILL.md', sha256('kept'));
    batch.submit('skills/a/SKILL.md', second);
    batch.submit('skills/b/SKILL.md', first);
    batch.known('skills/b/SKILL.md', sha256('kept'));
    batch.start();
    assert.equal(batch.get('config/app.yaml'), sha256(second));
    assert.equal(batch.get('config/short.yaml'), undefined);
    assert.equal(batch.get('skills/a/SKILL.md'), sha256(second));
    assert.equal(batch.get('skills/b/SKILL.md'), sha256('kept'));
    // on the main thread alone, a known hash goes the same way once another text of its path comes
    const alone = inThreadHasher.batch();
    alone.known('skills/a/SKILL.md', sha256('kept'));
    alone.submit('skills/a/SKILL.md', second);
    assert.equal(alone.get('skills/a/SKILL.md'), undefined);
    hasher.retire();
  });
});
