// The docs' examples are code too: every YAML block in docs/ parses, and the plugin guide's worked
// example passes the same checks as a real plugin folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { lintFolders } from '../../src/cli/lint.js';
import { readConfig, REPO_ROOT } from '../../src/config.js';

const docs = fs.readdirSync(path.join(REPO_ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => path.join('docs', f));
const blocks = (file: string) => [...fs.readFileSync(path.join(REPO_ROOT, file), 'utf8').matchAll(/^```ya?ml\n([\s\S]*?)^```/gm)].map((m) => m[1]);

describe('docs', () => {
  test('every YAML block in docs/ is valid YAML', () => {
    let count = 0;
    for (const file of docs) {
      for (const [i, block] of blocks(file).entries()) {
        count++;
        assert.doesNotThrow(() => yaml.load(block), `${file} YAML block ${i + 1}`);
      }
    }
    assert.ok(count >= 5, `only ${count} YAML blocks found`);
  });

  test('the plugin guide lists exactly the category ids of catalogue/categories.yaml', () => {
    const { categories } = yaml.load(fs.readFileSync(path.join(REPO_ROOT, 'catalogue/categories.yaml'), 'utf8')) as { categories: { id: string }[] };
    const guide = fs.readFileSync(path.join(REPO_ROOT, 'docs/plugins.md'), 'utf8');
    const section = guide.slice(guide.indexOf('### Categories'), guide.indexOf('### Fields'));
    const listed = [...section.matchAll(/^\| `([a-z0-9-]+)` \|/gm)].map((m) => m[1]);
    assert.deepEqual(listed, categories.map((c) => c.id));
  });

  test("the plugin guide's worked example passes stackwright lint", () => {
    const example = blocks('docs/plugins.md')[0];
    assert.match(example, /^name: Qdrant$/m);
    const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-doc-')), 'qdrant');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'service.yaml'), example);
    const config = readConfig({});
    const report = lintFolders([dir], { plugins: config.pluginsDir, catalogue: config.catalogueDir });
    assert.deepEqual([...report.errors, ...report.warnings].map((p) => `${p.pointer} ${p.rule} ${p.message}`), []);
  });
});
