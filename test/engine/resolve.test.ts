// The resolver through the engine API, on a fixture catalogue where edge cases are easy to set up.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadCatalogueOrThrow } from '../../src/catalogue/load.js';
import { resolve } from '../../src/model/resolve.js';
import { service, writeCatalogue } from '../support/fixture.js';

const catalogue = loadCatalogueOrThrow(writeCatalogue({
  'plugins/services/gamma/service.yaml': service('gamma', 'requires: [beta]\nconflictsWith: [alpha]\ngpu: required\n'),
}));

describe('resolve', () => {
  test('follows requires transitively, dependency first', () => {
    const r = resolve(catalogue, { services: ['gamma'], gpu: true });
    assert.deepEqual(r.resolvedServices, ['fw', 'alpha', 'beta', 'gamma']);
  });

  test('reports a conflict found through requires, once', () => {
    const r = resolve(catalogue, { services: ['gamma'], gpu: true });
    assert.deepEqual(r.conflicts, [['alpha', 'gamma']]);
    assert.equal(r.warnings.filter((w) => w.code === 'CONFLICT').length, 1);
  });

  test('warns about a GPU-only service without gpu and an unsupported platform', () => {
    const codes = resolve(catalogue, { services: ['gamma'], platform: 'linux/arm64' }).warnings.map((w) => w.code);
    assert.ok(codes.includes('GPU_REQUIRED'));
    assert.ok(codes.includes('PLATFORM_UNSUPPORTED'));
  });

  test('memory: what the stack needs (the minimums) and its worst case (the limits), framework and every resolved service', () => {
    const r = resolve(catalogue, { services: ['beta'] });
    assert.equal(r.estimatedMemoryMB, 64 * 3);
    assert.equal(r.memoryLimitMB, 128 * 3);
  });

  test('collects every error at once', () => {
    const r = resolve(catalogue, { services: ['nope', 'alpah'], skills: ['pakc'], proxy: 'x', primaryFramework: 'y' });
    assert.equal(r.errors.length, 5, r.errors.join('\n'));
    assert.ok(r.errors.includes('unknown service "alpah" (did you mean "alpha"?)'));
    assert.ok(r.errors.includes('unknown skill pack "pakc" (did you mean "pack"?)'));
  });
});

describe('compose assembly', () => {
  test('the cached per-service blocks form exactly the compose document', async () => {
    const { shippedCatalogue } = await import('../support/server.js');
    const { buildModel } = await import('../../src/model/build-model.js');
    const { buildCompose, composeDocument } = await import('../../src/emit/compose/compose.js');
    const { FragmentCache } = await import('../../src/cache/fragment-cache.js');
    const yaml = await import('js-yaml');
    const shipped = shippedCatalogue();
    for (const [preset, deployment] of [['full-stack', 'docker'], ['automation-hub', 'bare-metal'], ['local-ai', 'docker']] as const) {
      const model = buildModel(resolve(shipped, { preset, proxy: 'traefik' }), { name: 'x', gpu: true, deployment, domain: 'example.com', hardened: true });
      const cache = new FragmentCache(100);
      const first = buildCompose(model, cache);
      assert.deepEqual(yaml.load(first), composeDocument(model), preset);
      assert.equal(buildCompose(model, cache), first, 'from the cache, the same text');
      assert.ok(cache.hits > 0);
      // another domain reuses the blocks that reference public URLs (cached with a placeholder domain)
      // and gives exactly the text dumped from the real inputs
      const other = buildModel(resolve(shipped, { preset, proxy: 'traefik' }), { name: 'x', gpu: true, deployment, domain: 'other-1.example.net', hardened: true });
      const misses = cache.misses;
      assert.equal(buildCompose(other, cache), buildCompose(other, new FragmentCache(0)), preset);
      assert.equal(cache.misses, misses, 'no block is dumped again for a new domain');
    }
  });

  test('a framework\'s and the proxy\'s blocks, kept in parts, give the block dumped whole on a new selection', async () => {
    const { shippedCatalogue } = await import('../support/server.js');
    const { buildModel } = await import('../../src/model/build-model.js');
    const { buildCompose } = await import('../../src/emit/compose/compose.js');
    const { FragmentCache } = await import('../../src/cache/fragment-cache.js');
    const shipped = shippedCatalogue();
    for (const [preset, proxy, domain] of [['full-stack', 'caddy', 'example.com'], ['automation-hub', 'traefik', undefined], ['local-ai', 'nginx', 'ai.example.org']] as const) {
      const services = [...shipped.presets.get(preset)!.manifest.services];
      const skills = [...shipped.presets.get(preset)!.manifest.skills];
      // every block kept from the whole preset first, then the preset less one service at a time: the
      // framework's depends_on, service addresses and credentials and the proxy's depends_on change each time
      const cache = new FragmentCache(1000);
      let compared = 0;
      for (const left of [undefined, ...services]) {
        const r = resolve(shipped, { services: services.filter((s) => s !== left), skills, proxy, domain });
        if (r.errors.length || r.conflicts.length) continue;
        const model = buildModel(r, { name: 'parts', gpu: false, deployment: 'docker', domain, hardened: true });
        assert.equal(buildCompose(model, cache), buildCompose(model, new FragmentCache(0)), `${preset} without ${left ?? 'nothing'}`);
        compared++;
      }
      assert.ok(compared > 1, `${preset}: ${compared} selections compared`);
    }
  });
});
