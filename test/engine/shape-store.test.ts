// Request shapes kept on disk (src/cache/shape-store.ts) for the CLI: a shape written by one process and
// read by another binds to exactly what a render from scratch gives, for every preset; a store finds a
// shape only under the inputs and the request shape it was kept for, and stays bounded.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { readConfig } from '../../src/config.js';
import { bindShape, BundleShape } from '../../src/cache/bundle-shape.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { lateValues, shapeKey } from '../../src/cache/late-binding.js';
import { ShapeStore } from '../../src/cache/shape-store.js';
import { shippedCatalogue } from '../support/server.js';

const templates = readConfig({}).templatesDir;

describe('request shapes kept on disk', () => {
  const catalogue = shippedCatalogue();
  const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-shapes-'));

  test('a shape stored and read back binds new names and domains to the bytes of a render from scratch, for every preset', () => {
    const store = new ShapeStore(dir(), ShapeStore.inputsKey('catalogue-key', templates, 'test'));
    const generator = new Generator(catalogue, templates, 0, 0);
    for (const preset of catalogue.presets.keys()) {
      for (const shape of [{ preset, proxy: 'caddy', domain: 'example.com' }, { preset, deploymentType: 'bare-metal' as const, proxy: 'nginx' }]) {
        const first: GenerateRequest = { ...shape, name: 'first' };
        const shapeOf = generator.shapeFor(first, generator.generate(first));
        assert.ok(shapeOf, `${preset}: the shipped templates bind`);
        store.put(shapeKey(first), { bundle: shapeOf.bundle, warnings: [] });
        const next: GenerateRequest = { ...shape, name: 'next-one', ...(shape.domain ? { domain: 'apps.example.org' } : {}) };
        const stored = store.get(shapeKey(next));
        assert.ok(stored, `${preset}: found under the shape of a request with another name and domain`);
        const bound = bindShape(new BundleShape(stored.bundle), next.name, lateValues(next)!);
        assert.deepEqual(bound, new Generator(catalogue, templates, 0, 0).generate(next), JSON.stringify(next));
      }
    }
  });

  test('a shape is found only under the inputs and the request shape it was kept for', () => {
    const where = dir();
    const request: GenerateRequest = { preset: 'research-assistant', proxy: 'caddy', domain: 'example.com', name: 'x' };
    const generator = new Generator(catalogue, templates, 0, 0);
    const shape = generator.shapeFor(request, generator.generate(request))!;
    new ShapeStore(where, ShapeStore.inputsKey('catalogue-1', templates, 'test')).put(shapeKey(request), { bundle: shape.bundle, warnings: [] });
    assert.ok(new ShapeStore(where, ShapeStore.inputsKey('catalogue-1', templates, 'test')).get(shapeKey(request)));
    assert.equal(new ShapeStore(where, ShapeStore.inputsKey('catalogue-2', templates, 'test')).get(shapeKey(request)), undefined, 'another catalogue');
    assert.equal(new ShapeStore(where, ShapeStore.inputsKey('catalogue-1', templates, 'other version')).get(shapeKey(request)), undefined, 'another version');
    const store = new ShapeStore(where, ShapeStore.inputsKey('catalogue-1', templates, 'test'));
    assert.equal(store.get(shapeKey({ ...request, proxy: 'nginx' })), undefined, 'another request shape');
    assert.equal(store.get(shapeKey({ ...request, domain: undefined })), undefined, 'the same request without a domain');
  });

  test('keeps at most 64 shapes, dropping the oldest; an unwritable store keeps none and throws nothing', () => {
    const where = dir();
    const store = new ShapeStore(where, 'inputs');
    const bundle = { name: 'n', files: { 'a.txt': 'a' }, summary: { services: 0, skills: 0, proxy: 'none', estimatedMemoryMB: 0, memoryLimitMB: 0 } };
    const seen = new Set<string>();
    for (let i = 0; i < 70; i++) {
      store.put(`shape-${i}`, { bundle, warnings: [] });
      // distinct modification times, oldest first (the new file is the one not seen before)
      for (const file of fs.readdirSync(where).filter((f) => !seen.has(f))) {
        seen.add(file);
        fs.utimesSync(path.join(where, file), new Date(1e12 + i * 1000), new Date(1e12 + i * 1000));
      }
    }
    assert.equal(fs.readdirSync(where).length, 64);
    assert.equal(store.get('shape-0'), undefined, 'the oldest went');
    assert.ok(store.get('shape-69'));
    const blocked = path.join(where, 'a-file');
    fs.writeFileSync(blocked, '');
    new ShapeStore(path.join(blocked, 'shapes'), 'inputs').put('s', { bundle, warnings: [] });
  });
});
