// recordOf (src/record-of.ts) builds what Object.fromEntries builds, key by key (issue 36): the same keys in
// the same order, a later duplicate winning, a plain prototype, and __proto__ an own key, never the prototype.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordOf } from '../../src/record-of.js';

test('recordOf gives what Object.fromEntries gives, __proto__ included', () => {
  const entries: [string, unknown][] = [['a', 1], ['__proto__', { polluted: true }], ['2', 'index-like'], ['b', [3]], ['a', 4]];
  const record = recordOf(entries);
  assert.deepEqual(record, Object.fromEntries(entries));
  assert.deepEqual(Object.keys(record), Object.keys(Object.fromEntries(entries)));
  assert.equal(Object.getPrototypeOf(record), Object.prototype);
  assert.equal((record as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(recordOf([]), {});
  // many keys (a dictionary inside V8) read back in order
  const many = Array.from({ length: 300 }, (_, i) => [`k-${i}`, i] as const);
  assert.deepEqual(Object.entries(recordOf(many)), many.map(([k, v]) => [k, v]));
});
