// Step 3 of loading: every plugin template rendered in representative stacks, so a template that throws
// only in some stacks (with a domain, behind one proxy, on bare metal) is refused at load and by
// `stackwright lint`, with its file and line, instead of failing a generation later.
import path from 'node:path';
import type { Problem } from './problems.js';
import type { Catalogue, ContainerPlugin } from './types.js';
import { buildModel } from '../model/build-model.js';
import type { StackOptions } from '../model/model.js';
import { renderEachTemplate, templateCompiler } from '../bundle/plugin-files.js';
import { resolve, type SelectionRequest } from '../model/resolve.js';

/** The domain the check tries: a public name, so proxies with automatic HTTPS serve it over HTTPS. */
export const CHECK_DOMAIN = 'example.com';

interface Variant { proxy: string; domain?: string; deployment: StackOptions['deployment'] }

/** Each proxy and none, with and without a domain, in containers and on bare metal. */
function variants(catalogue: Catalogue): Variant[] {
  const out: Variant[] = [];
  for (const proxy of ['none', ...catalogue.proxies.keys()]) {
    for (const domain of [undefined, CHECK_DOMAIN]) {
      for (const deployment of ['docker', 'bare-metal'] as const) out.push({ proxy, domain, deployment });
    }
  }
  return out;
}

/**
 * Selections that bring every templated plugin into a stack: the default framework alone, each framework
 * as primary and as companion, each service with templates alone, and a consumer of each database server
 * (its setup script renders only when a database is asked of it). Proxies render in all of them.
 */
function selections(catalogue: Catalogue): SelectionRequest[] {
  const out: SelectionRequest[] = [{}];
  const frameworks = [...catalogue.frameworks.keys()];
  for (const id of frameworks) {
    if (id !== catalogue.defaultFramework) out.push({ primaryFramework: id });
    const primary = frameworks.find((other) => other !== id);
    if (primary) out.push({ primaryFramework: primary, companionFrameworks: [id] });
  }
  for (const service of catalogue.services.values()) {
    if (service.templates.size === 0) continue;
    out.push({ services: [service.id] });
    if (service.manifest.databaseServer) {
      const consumer = [...catalogue.services.values()].find((s) => s.manifest.databases?.some((d) => d.server === service.id));
      if (consumer) out.push({ services: [consumer.id] });
    }
  }
  return out;
}

function describeStack(selection: SelectionRequest, variant: Variant): string {
  const members = [
    ...(selection.services ?? []).map((s) => `service ${s}`),
    selection.primaryFramework ? `framework ${selection.primaryFramework}` : 'the default framework',
    ...(selection.companionFrameworks ?? []).map((f) => `companion ${f}`),
  ];
  return `${members.join(', ')}; proxy ${variant.proxy}; ${variant.domain ? `domain ${variant.domain}` : 'no domain'}; ${variant.deployment}`;
}

/** The template file as the loader names files: relative to the catalogue root, beside the manifest. */
function templateFile(plugin: ContainerPlugin, template: string): string {
  return path.posix.join(path.posix.dirname(plugin.file.split(path.sep).join('/')), template);
}

/** One template.render problem per failing template (the first stack it fails in). */
export function checkTemplateRenders(catalogue: Catalogue): Problem[] {
  const problems: Problem[] = [];
  const reported = new Set<string>();
  const all = variants(catalogue);
  const compiled = templateCompiler();
  for (const selection of selections(catalogue)) {
    for (const variant of all) {
      const resolution = resolve(catalogue, { ...selection, proxy: variant.proxy, domain: variant.domain });
      // a stack no request can have (nginx with a public domain, a conflicting pair) renders nothing
      if (resolution.errors.length || resolution.conflicts.length) continue;
      const model = buildModel(resolution, { name: 'template-check', domain: variant.domain, gpu: false, deployment: variant.deployment, hardened: true });
      renderEachTemplate(model, compiled, (job, error) => {
        const file = templateFile(job.member.plugin, error.template);
        if (reported.has(file)) return;
        reported.add(file);
        problems.push({
          severity: 'error', file, line: error.line, pointer: '', rule: 'template.render',
          message: `${job.member.plugin.kind} "${job.member.plugin.id}": the template fails${error.line ? ` at line ${error.line}` : ''} when rendered for a stack of ${describeStack(selection, variant)}: ${error.reason}`,
        });
      });
    }
  }
  return problems;
}
