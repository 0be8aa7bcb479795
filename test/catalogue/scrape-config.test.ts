// The stack's metrics databases scrape what it holds (issue 31): each exporter declares its endpoint in
// its manifest, and Prometheus and VictoriaMetrics render the one shared scrape configuration
// (catalogue/metrics/scrape-config.yml.eta). The rendered files are read by a YAML parser and checked
// by the programs themselves: promtool check config (Debian's prometheus) and victoria-metrics -dryRun
// (Debian's victoria-metrics), which parses -promscrape.config strictly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import * as yaml from 'js-yaml';
import { readConfig } from '../../src/config.js';
import { Generator, type GenerateRequest } from '../../src/pipeline/generate.js';
import { shippedCatalogue } from '../support/server.js';

const catalogue = shippedCatalogue();
const generator = new Generator(catalogue, readConfig({}).templatesDir, 200);
const PROMETHEUS_FILE = 'config/prometheus/prometheus.yml';
const VICTORIA_FILE = 'config/victoria-metrics/scrape.yml';
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'stackwright-scrape-'));
after(() => fs.rmSync(work, { recursive: true, force: true }));

interface Job { job_name: string; metrics_path: string; static_configs: { targets: string[] }[] }
interface ScrapeConfig { global: Record<string, string>; scrape_configs: Job[] }

/** job name -> "target path" of the rendered scrape configuration */
function jobs(config: ScrapeConfig): Map<string, string> {
  return new Map(config.scrape_configs.map((j) => [j.job_name, `${j.static_configs.flatMap((s) => s.targets).join(',')} ${j.metrics_path}`]));
}

function render(request: GenerateRequest, file: string): { text: string; config: ScrapeConfig } {
  const text = generator.generate(request).files[file];
  assert.ok(text, `${request.name} has ${file}`);
  return { text, config: yaml.load(text) as ScrapeConfig };
}

function tool(name: string, where: string): string {
  const found = [where, ...(process.env.PATH ?? '').split(':').map((d) => path.join(d, name))].find((f) => fs.existsSync(f));
  assert.ok(found, `${name} is not installed: run npm run setup:test-tools (Debian package ${name === 'promtool' ? 'prometheus' : 'victoria-metrics'})`);
  return found;
}

/** promtool check config on the rendered file: exit 0, or the test fails with promtool's words. */
function promtoolAccepts(text: string, name: string): void {
  const file = path.join(work, `${name}.yml`);
  fs.writeFileSync(file, text);
  const run = spawnSync(tool('promtool', '/usr/bin/promtool'), ['check', 'config', '--syntax-only', file], { encoding: 'utf8' });
  assert.equal(run.status, 0, `promtool check config ${name}:\n${run.stdout}${run.stderr}`);
  assert.match(run.stdout, /SUCCESS/);
}

/** victoria-metrics -dryRun parses -promscrape.config as the server would (strictly: an unknown key fails) and exits. */
function victoriaAccepts(text: string, name: string): void {
  const file = path.join(work, `${name}.yml`);
  fs.writeFileSync(file, text);
  const run = spawnSync(tool('victoria-metrics', '/usr/bin/victoria-metrics'), ['-dryRun', `-promscrape.config=${file}`, `-storageDataPath=${path.join(work, `${name}-data`)}`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, `victoria-metrics -dryRun ${name}:\n${run.stdout}${run.stderr}`);
}

const EXPORTERS = ['node-exporter', 'cadvisor'];

describe('scrape configuration shared by the metrics databases', () => {
  test('a stack with Prometheus, node exporter and cAdvisor scrapes both, and promtool accepts the file', () => {
    const { text, config } = render({ name: 'prom', services: ['prometheus', ...EXPORTERS] }, PROMETHEUS_FILE);
    assert.deepEqual(Object.fromEntries(jobs(config)), {
      prometheus: 'localhost:9090 /metrics',
      cadvisor: 'cadvisor:8080 /metrics',
      'node-exporter': 'node-exporter:9100 /metrics',
    });
    assert.equal(config.global.evaluation_interval, '15s', 'Prometheus evaluates rules');
    promtoolAccepts(text, 'prom');
  });

  test('a stack with VictoriaMetrics, node exporter and cAdvisor scrapes both, and victoria-metrics accepts the file', () => {
    const { text, config } = render({ name: 'vm', services: ['victoria-metrics', ...EXPORTERS] }, VICTORIA_FILE);
    assert.deepEqual(Object.fromEntries(jobs(config)), {
      'victoria-metrics': 'localhost:8428 /metrics',
      cadvisor: 'cadvisor:8080 /metrics',
      'node-exporter': 'node-exporter:9100 /metrics',
    });
    assert.equal(config.global.evaluation_interval, undefined, 'no rule evaluation in single-node VictoriaMetrics');
    victoriaAccepts(text, 'vm');
  });

  test('for the same stack both render the same jobs, one for every service that declares metrics', () => {
    const exporters = [...catalogue.services.values()].filter((s) => s.manifest.metrics && !s.manifest.scrapeConfig);
    assert.ok(exporters.length >= 7, 'the catalogue has exporters');
    const services = ['prometheus', 'victoria-metrics', ...exporters.map((s) => s.id)];
    const prom = render({ name: 'both', services }, PROMETHEUS_FILE);
    const vm = render({ name: 'both', services }, VICTORIA_FILE);
    const promJobs = jobs(prom.config);
    const vmJobs = jobs(vm.config);
    // each reaches itself on loopback and the other on the stack network; every other job is the same
    assert.equal(promJobs.get('prometheus'), 'localhost:9090 /metrics');
    assert.equal(vmJobs.get('prometheus'), 'prometheus:9090 /metrics');
    assert.equal(vmJobs.get('victoria-metrics'), 'localhost:8428 /metrics');
    assert.equal(promJobs.get('victoria-metrics'), 'victoria-metrics:8428 /metrics');
    const others = (m: Map<string, string>) => [...m].filter(([id]) => id !== 'prometheus' && id !== 'victoria-metrics');
    assert.deepEqual(others(promJobs), others(vmJobs));
    for (const s of exporters) {
      const m = s.manifest.metrics!;
      assert.equal(promJobs.get(s.id), `${s.id}:${m.port} ${m.path}`, `${s.id} is scraped at its declared endpoint`);
    }
    // the same scrape_configs text below the header: one template
    const body = (t: string) => t.slice(t.indexOf('scrape_configs:'));
    assert.equal(body(prom.text).replace(/localhost:9090/, 'prometheus:9090').split('\n').sort().join('\n'),
      body(vm.text).replace(/localhost:8428/, 'victoria-metrics:8428').split('\n').sort().join('\n'));
    promtoolAccepts(prom.text, 'both-prom');
    victoriaAccepts(vm.text, 'both-vm');
  });

  test('a stack without exporters scrapes only the database itself', () => {
    const { config } = render({ name: 'alone', services: ['prometheus'] }, PROMETHEUS_FILE);
    assert.deepEqual([...jobs(config).keys()], ['prometheus']);
  });
});
