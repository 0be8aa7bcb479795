// sameData decides whether a kept text is reused for a new input (fragment-cache.ts getByInput, yaml-dump.ts
// list items): a false "same" would put another stack's text into a bundle.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sameData, sameFields } from '../../src/same-data.js';

test('sameData: equal plain data is the same; any difference a dump could show is not', () => {
  assert.ok(sameData({ a: [1, 'x', { b: null }], c: true }, { a: [1, 'x', { b: null }], c: true }));
  assert.ok(sameData([], []));
  // 0 and -0 are dumped differently (js-yaml writes -0.0)
  assert.ok(!sameData({ port: 0 }, { port: -0 }));
  // the same keys in another order make another JSON key, and another mapping
  assert.ok(!sameData({ a: 1, b: 2 }, { b: 2, a: 1 }));
  assert.ok(!sameData({ a: 1 }, { a: 1, b: undefined }));
  assert.ok(!sameData([1, 2], { 0: 1, 1: 2 }));
  assert.ok(!sameData({ 0: 1, 1: 2 }, [1, 2]));
  assert.ok(!sameData([1, 2], [1, 2, 3]));
  assert.ok(!sameData({ a: '1' }, { a: 1 }));
  assert.ok(!sameData({ a: null }, { a: {} }));
  assert.ok(!sameData([[1, 2]], [[1, 3]]));
});

test('sameFields: the listed fields compared as sameData compares them, the others not read', () => {
  const keys = ['a', 'b'] as const;
  assert.ok(sameFields({ a: [1, { x: 'y' }], b: null, c: 1 }, { a: [1, { x: 'y' }], b: null, c: 2 }, keys));
  assert.ok(!sameFields({ a: [1], b: 0 }, { a: [1], b: -0 }, keys));
  assert.ok(!sameFields({ a: { p: 1, q: 2 }, b: 1 }, { a: { q: 2, p: 1 }, b: 1 }, keys));
  assert.ok(!sameFields<{ a?: number; b: number }>({ a: undefined, b: 1 }, { a: 1, b: 1 }, keys));
});
