// Every rule the loader checks, with a stable id operators can search for (docs/errors.md lists them).

export const LOAD_RULES = {
  'file.unreadable': 'a file the catalogue needs cannot be read',
  'yaml.parse': 'the file is not valid YAML',
  schema: 'the manifest does not match its JSON Schema (schemas/)',
  'id.invalid': 'the folder name is not a valid id (lower-case letters, digits, dashes)',
  'id.mismatch': 'the manifest names an id other than its folder (or file) name',
  'id.duplicate': 'two plugins would share one Compose service name',
  'ref.unknown': 'a reference names a plugin that does not exist',
  'ref.self': 'a plugin refers to itself',
  'requires.cycle': 'requires forms a cycle',
  'category.unknown': 'the category is not in catalogue/categories.yaml',
  'env.duplicate': 'a variable is declared twice in one plugin',
  'env.ref': 'a {{service.VAR}}, {{host:id}}, {{port:id:PORT}} or {{url:id}} reference does not point at the plugin, a service it requires or its ifPresent plugin, or at something it declares',
  'env.scope': 'a reference reaches another plugin\'s secret that is not marked client: true (server-internal secrets stay with their service)',
  'env.reserved': 'a variable name the stack uses itself (URL: <PREFIX>_URL is the address frameworks receive)',
  'login.ref': 'login is given for a plugin without a web port, or a {{id.VAR}} in it names another plugin or a variable the plugin does not keep in .env',
  'port.auth': 'a web port declares no auth model (own, none, first-visitor), or a non-web port declares auth or subpath',
  'database.server': 'a databases entry names a server that is not required or is no database server',
  'database.family': 'a database server names no family and no setup (or both), a family that is not in catalogue/database-families/, or lacks a variable its family\'s script reads; or extensions are asked of a family whose script creates none',
  'metrics.endpoint': 'a metrics endpoint names a port the plugin does not declare, or a scrapeConfig names no files[] entry of the plugin or comes without the scraper\'s own metrics',
  'database.backup': 'a backup entry names a variable the plugin does not declare, lacks one its kind needs, or its tools are not in binaries',
  'database.password': 'a databases entry names a passwordEnv that is not a secret variable of the plugin',
  'image.binary': 'a health check, command or seeded volume needs a program (or sh) that binaries does not list for the image, or a health check without binaries',
  'memory.limit': 'memoryLimitMB is below minMemoryMB',
  'stop.stateful': 'a plugin with a volume has no stop.gracePeriod, or one under 30s',
  'docker.socket': 'a plugin mounts the raw Docker socket without declaring why it cannot use dockerApi through the socket proxy',
  'framework.first-run': 'firstRun.keys names a variable the framework does not declare as a shared provider key, or a model variable of firstRun.localModels is not declared shared for that server',
  'framework.config': 'config.comments names no section or key of the reference config, config.gateway.port is not a container port of the framework, or a config.providers key is not a shared variable it declares',
  'volume.duplicate': 'a volume name is used twice in one plugin',
  'volume.image': 'a folder the image declares a VOLUME (imageVolumes) has no volume: Docker would make an anonymous one at every new container',
  'volume.owner': 'a plugin with a volume gives neither a numeric user nor imageUser: on Kubernetes its claims would stay root\'s, unwritable by an image that starts as another user',
  'volume.clash': 'two plugins\' volumes would be one Docker volume (<plugin id>-<volume name> comes out the same)',
  'port.duplicate': 'a container port is listed twice in one plugin',
  'template.missing': 'a template file named in the manifest does not exist',
  'template.compile': 'a template does not compile',
  'template.render': 'a template throws when rendered for a representative stack (each proxy and none, with and without a domain, docker and bare metal)',
  'skill.missing': 'a skill listed in a pack has no skills/<skill>.md',
  'skill.frontmatter': 'a skill file lacks front matter with name and description',
  'preset.inconsistent': 'a preset holds a skill pack without a service the pack requires, or a conflicting pair',
  'framework.default': 'the catalogue needs exactly one framework marked default: true',
  'image.latest': 'the image tag moves (latest, main, nightly, edge)',
} as const;

export type LoadRule = keyof typeof LOAD_RULES;

/**
 * The manifest fields (top-level keys) each rule reads to judge a plugin, where that is more than the
 * field its problem points at. `stackwright lint` sets aside the fields that break the schema and
 * checks the rest in the same round; a rule that reads a field set aside cannot be judged then.
 */
export const RULE_READS: Partial<Record<LoadRule, readonly string[]>> = {
  'env.ref': ['environment', 'ports', 'requires'],
  'env.scope': ['environment', 'requires'],
  'database.server': ['databases', 'requires'],
  'database.password': ['databases', 'environment'],
  'database.family': ['databaseServer', 'environment', 'databases', 'requires'],
  'image.binary': ['healthcheck', 'command', 'binaries', 'image', 'imageTag', 'volumes'],
  'memory.limit': ['memoryLimitMB', 'minMemoryMB'],
  'stop.stateful': ['volumes', 'stop'],
  'volume.clash': ['volumes'],
  'volume.image': ['imageVolumes', 'volumes'],
  'volume.owner': ['volumes', 'user', 'imageUser'],
  'docker.socket': ['hostMounts', 'hardening', 'dockerApi'],
  'framework.first-run': ['firstRun', 'environment'],
  'framework.default': ['default'],
  'framework.config': ['config', 'ports', 'environment', 'interactive'],
  'skill.missing': ['skills'],
  'metrics.endpoint': ['metrics', 'ports', 'scrapeConfig', 'files'],
  'template.missing': ['files', 'config', 'configFiles', 'databaseServer', 'scrapeConfig'],
  'template.compile': ['files', 'config', 'configFiles', 'databaseServer', 'scrapeConfig'],
};

export interface Problem {
  severity: 'error' | 'warning';
  /** path relative to the catalogue root, e.g. plugins/services/qdrant/service.yaml */
  file: string;
  /** JSON pointer into the manifest ('' for the whole file) */
  pointer: string;
  /** the line in the file, where the rule knows it (a template that fails when rendered) */
  line?: number;
  rule: LoadRule;
  message: string;
}

export function formatProblem(p: Problem): string {
  return `${p.severity === 'warning' ? 'warning ' : ''}${p.file}${p.line ? `:${p.line}` : ''}  ${p.pointer || '/'}  ${p.rule}  ${p.message}`;
}

/**
 * The closest id for "did you mean" hints; undefined when nothing is close. Close is a few edits away
 * from the whole id (`qdrnt`, `postgress`), or the start of an id, nearly as typed (`postgre`, `opensearc`,
 * `postgrs`): someone who types part of an id is usually half-way through it. Of several, the fewest
 * edits wins, then the shortest id (the start `red` means redis before redis-stack), then the first.
 */
export function nearest(id: string, candidates: Iterable<string>): string | undefined {
  const wholeAllowed = Math.max(2, Math.floor(id.length / 3));
  // a start of 3 to 5 characters must be exact, of 6 to 9 one edit away, and so on: short starts with an
  // edit match too much (`nope` would be `node-red`)
  const startAllowed = id.length >= 3 ? Math.floor((id.length - 2) / 4) : -1;
  let best: string | undefined;
  let bestScore = Infinity;
  let bestWhole = Infinity;
  for (const c of candidates) {
    const whole = editDistance(id, c);
    // a start scores half an edit worse than the same edits on the whole id
    const start = c.length > id.length ? editDistance(id, c.slice(0, id.length)) : Infinity;
    const score = Math.min(whole <= wholeAllowed ? whole : Infinity, start <= startAllowed ? start + 0.5 : Infinity);
    if (score < bestScore || (score === bestScore && score !== Infinity && whole < bestWhole)) {
      best = c;
      bestScore = score;
      bestWhole = whole;
    }
  }
  return bestScore === Infinity ? undefined : best;
}

export function didYouMean(id: string, candidates: Iterable<string>): string {
  const n = nearest(id, candidates);
  return n ? ` (did you mean "${n}"?)` : '';
}

function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}
