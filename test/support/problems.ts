// Loading a broken fixture catalogue and finding one problem in what the loader reports.
import assert from 'node:assert/strict';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { formatProblem, type Problem } from '../../src/catalogue/problems.js';
import { writeCatalogue } from './fixture.js';

export function problems(changes: Record<string, string | null>): Problem[] {
  const result = loadCatalogue(writeCatalogue(changes));
  assert.equal(result.catalogue, undefined, 'a broken catalogue must not load');
  return result.errors;
}

export function expectProblem(list: Problem[], file: string, pointer: string, rule: string, message: RegExp): void {
  const hit = list.find((p) => p.file === file && p.pointer === pointer && p.rule === rule && message.test(p.message));
  assert.ok(hit, `expected ${file} ${pointer} ${rule} ${message}; got:\n${list.map(formatProblem).join('\n')}`);
}
