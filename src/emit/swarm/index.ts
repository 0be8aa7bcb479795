// The Docker Swarm target: stack.yml (stack-file.ts) beside the plugin files the Compose bundle has, its
// .env.example and scripts/lib.sh, and the scripts and README of a Swarm stack (templates/swarm/).
import type { ProxyPlugin, ServicePlugin } from '../../catalogue/types.js';
import { imageVariable } from '../../model/env-names.js';
import { proxyFilePath, setupServiceName, volumeNames } from '../../model/layout.js';
import { PROXY_PASSWORD_VARIABLE, PROXY_USER_VARIABLE, type StackModel } from '../../model/model.js';
import { SOCKET_PROXY_SERVICE } from '../../model/socket-proxy.js';
import { BACKUP_KEEP_DEFAULT, BACKUP_KEEP_VARIABLE, HELPER_IMAGE } from '../../model/helper-image.js';
import { shellQuote } from '../escape.js';
import { TargetTemplates } from '../target-templates.js';
import { buildStackFile, dataLabel, STACK_FILE } from './stack-file.js';

export { STACK_FILE } from './stack-file.js';

/** The Compose bundle's files this target ships as they are. */
export const SHARED_FILES = ['.env.example', 'scripts/lib.sh'] as const;

const SCRIPTS = ['deploy.sh', 'status.sh', 'remove.sh', 'backup.sh', 'update.sh', 'rollback.sh'] as const;
type Name = 'README.md' | (typeof SCRIPTS)[number];

/** README.md and the scripts of a Swarm bundle. */
export class SwarmTemplates extends TargetTemplates<Name> {
  constructor(dir: string) {
    super(dir, 'swarm', ['README.md', ...SCRIPTS]);
  }
}

/** The bundle's files for Swarm: the plugin files (the proxy's config included) and `shared` from the Compose bundle. */
export function swarmFiles(model: StackModel, pluginFiles: ReadonlyMap<string, string>, shared: ReadonlyMap<string, string>, templates: SwarmTemplates): Map<string, string> {
  const files = new Map<string, string>(pluginFiles);
  const stackFile = buildStackFile(model);
  files.set(STACK_FILE, stackFile.text);
  for (const file of SHARED_FILES) files.set(file, shared.get(file)!);
  const containers = model.members.filter((m) => m.placement === 'container');
  const servers = [...new Set(model.databases.map((d) => d.server))];
  const proxy = model.resolution.proxy as ProxyPlugin | undefined;
  const context = {
    stack: { name: model.options.name, domain: model.options.domain ?? null },
    stackFile: STACK_FILE,
    label: dataLabel(model.options.name),
    services: [
      ...containers.map((m) => ({ id: m.plugin.id, name: m.plugin.manifest.name, variable: imageVariable(m.plugin.id), volumes: volumeNames(m.plugin) })),
      ...(model.dockerApiUsers.length ? [{ id: SOCKET_PROXY_SERVICE, name: 'Docker socket proxy', variable: imageVariable(SOCKET_PROXY_SERVICE), volumes: [] as string[] }] : []),
    ],
    jobs: servers.map(setupServiceName),
    volumes: containers.flatMap((m) => volumeNames(m.plugin)),
    required: model.env.filter((v) => v.required && !v.secret && v.example === '').map((v) => v.key),
    proxy: proxy ? { id: proxy.id, name: proxy.manifest.name } : null,
    proxyAuth: proxy && model.proxyAuth ? { file: proxyFilePath(proxy, proxy.manifest.basicAuth.file), userVariable: PROXY_USER_VARIABLE, passwordVariable: PROXY_PASSWORD_VARIABLE } : null,
    published: model.ports.filter((p) => p.public).map((p) => ({ id: p.plugin, port: p.host, variable: p.variable })),
    unpublished: model.ports.filter((p) => !p.public).map((p) => ({ id: p.plugin, port: p.container, web: p.web })),
    routes: model.routes.map((r) => ({ url: r.url, service: r.service, protected: r.protected })),
    databases: servers.map((s) => ({ server: s, name: (model.plugins.get(s) as ServicePlugin).manifest.name, consumers: model.databases.filter((d) => d.server === s).map((d) => d.consumer) })),
    hardened: model.options.hardened,
    // secrets that stay values in a service definition (docs/decisions.md "Swarm secrets")
    secretValues: [...stackFile.plans].flatMap(([id, plan]) => plan.values.map((v) => ({ id, ...v }))),
    secretFiles: [...stackFile.plans].reduce((n, [, plan]) => n + plan.mounts.length, 0),
    helperImage: HELPER_IMAGE,
    backupKeep: { variable: BACKUP_KEEP_VARIABLE, default: BACKUP_KEEP_DEFAULT },
    sh: shellQuote,
  };
  files.set('README.md', templates.render('README.md', context));
  for (const script of SCRIPTS) files.set(`scripts/${script}`, templates.render(script, context));
  return files;
}
