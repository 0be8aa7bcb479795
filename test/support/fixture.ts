// Small catalogues written to a temp folder, for loader tests: a valid base plus per-test changes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from '../../src/config.js';

export const BASE_FILES: Record<string, string> = {
  'catalogue/categories.yaml': 'categories:\n  - { id: database, name: Databases }\n  - { id: search, name: Search }\n',
  'plugins/services/alpha/service.yaml': service('alpha'),
  'plugins/services/beta/service.yaml': service('beta', 'requires: [alpha]\n'),
  'plugins/frameworks/fw/framework.yaml': `name: Fw
description: A framework for loader tests.
runtime: node
default: true
links: { docs: "https://example.org/docs" }
image: example/fw
imageTag: "1.0.0"
platforms: [linux/amd64]
minMemoryMB: 64
memoryLimitMB: 128
hardening: { capAdd: [], why: "the fixture image runs as its own user" }
config: { template: config.yaml.eta, target: /etc/fw/config.yaml, nativePath: /etc/fw/config.yaml, reads: "Fw does not read this file; it reads its environment.", home: { container: /var/lib/fw, native: ~/.fw } }
skillsTarget: /etc/fw/skills
native: { description: installs fw, install: "true", run: fw }
environment:
  - { name: FW_API_KEY, shared: true, description: Model provider key }
firstRun: { keys: [FW_API_KEY], steps: ["Open the UI."], localModelsNote: "Fw is not wired to a local model server." }
skills: { loads: true, how: reads the skills folder at start }
`,
  'plugins/frameworks/fw/config.yaml.eta': 'name: <%= it.yaml(it.stack.name) %>\n',
  'plugins/skills/pack/skill-pack.yaml': 'name: Pack\ndescription: A pack for loader tests.\nrequiredServices: [alpha]\nskills: [one]\n',
  'plugins/skills/pack/skills/one.md': '---\nname: One\ndescription: The first skill.\n---\nDo one thing.\n',
  'catalogue/presets/small.yaml': 'name: Small\ndescription: A preset for loader tests.\nservices: [beta]\nskills: [pack]\nmemoryBudgetMB: 4096\n',
};

export function service(id: string, extra = ''): string {
  return `name: ${id}
description: A service for loader tests.
category: database
maturity: stable
links: { docs: "https://example.org/${id}", source: "https://example.org/${id}/src" }
checked: 2026-11-23
image: example/${id}
imageTag: "1.2.3"
platforms: [linux/amd64]
minMemoryMB: 64
memoryLimitMB: 128
hardening: { capAdd: [], why: "the fixture image runs as its own user" }
${extra}`;
}

/** Writes BASE_FILES with `changes` applied (null deletes a file); returns the dirs for loadCatalogue. */
export function writeCatalogue(changes: Record<string, string | null> = {}): { plugins: string; catalogue: string; root: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-fixture-'));
  for (const [file, content] of Object.entries({ ...BASE_FILES, ...changes })) {
    if (content === null) continue;
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), content);
  }
  return { root, plugins: path.join(root, 'plugins'), catalogue: path.join(root, 'catalogue') };
}

/** A copy of the shipped plugins and catalogue folders a test may change (readable by every user). */
export function catalogueCopy(): { plugins: string; catalogue: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-live-'));
  fs.chmodSync(root, 0o755);
  fs.cpSync(path.join(REPO_ROOT, 'plugins'), path.join(root, 'plugins'), { recursive: true });
  fs.cpSync(path.join(REPO_ROOT, 'catalogue'), path.join(root, 'catalogue'), { recursive: true });
  return { plugins: path.join(root, 'plugins'), catalogue: path.join(root, 'catalogue') };
}
