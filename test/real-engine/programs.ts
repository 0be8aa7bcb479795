// Which kit images run the upstream program itself (from Debian or npm) rather than a stand-in, at which version,
// and what version the catalogue pins: the one table the kit (images.ts), the engine tests' version check and the
// docs' table of every catalogue service (kit-table.ts) read.

export interface RealProgram {
  /** image names (no tag) as the catalogue pins them */
  images: string[];
  /** the kit folder under test/images */
  dir: string;
  /** the program and where the kit gets it */
  program: string;
  from: 'Debian trixie' | 'Debian trixie-backports' | 'npm';
  /** the version the kit installs; 'the pin' where it installs the pinned version itself */
  version: string;
  /** a command run in the built image whose output carries `version` (the engine tests check it) */
  versionCommand?: string[];
  /** the pin's version from its tag, where it is not the tag's leading numbers */
  pinVersion?: (tag: string) => string;
  /** the kit builds one image per pinned tag (the version comes from the tag) */
  perTag?: true;
  /** the npm package the kit installs (at `version`, or at the tag with perTag) */
  npm?: string;
  /** npm `overrides` for that install (a dependency the package names by a URL the kit cannot reach) */
  npmOverrides?: Record<string, string>;
  /** what differs from the upstream image beyond the version */
  note?: string;
  /**
   * false while the kit has not yet passed programs.engine-test.ts on an engine, or while turning it on would put it
   * into CI's other stacks beyond CI's time budget (n8n): the tier then keeps the generic
   * stand-in (or the close stand-in it had) for these images unless STACKWRIGHT_UNPROVEN_KITS=1, so an unproven
   * kit never decides a CI run. Proven kits leave it out.
   */
  proven?: false;
  /**
   * With `proven: false`: the kit passed its own program stack, and it stays off elsewhere for this reason (what it
   * would cost CI's other stacks). The kit table counts it apart from the unproven ones.
   */
  offBecause?: string;
}

export const REAL_PROGRAMS: RealProgram[] = [
  { images: ['postgres', 'pgvector/pgvector'], dir: 'postgres', program: 'PostgreSQL with pgvector', from: 'Debian trixie', version: '17', versionCommand: ['postgres', '--version'], pinVersion: (tag) => /pg(\d+)/.exec(tag)?.[1] ?? tag },
  { images: ['mariadb'], dir: 'mariadb', program: 'MariaDB', from: 'Debian trixie', version: '11.8', versionCommand: ['mariadbd', '--version'] },
  { images: ['redis'], dir: 'redis', program: 'Redis', from: 'Debian trixie', version: '8.0', versionCommand: ['redis-server', '--version'] },
  { images: ['nginx'], dir: 'nginx', program: 'nginx', from: 'Debian trixie', version: '1.26', versionCommand: ['nginx', '-v'], note: 'no ACME module (Debian does not package it)' },
  { images: ['caddy'], dir: 'caddy', program: 'Caddy', from: 'Debian trixie-backports', version: '2.11.2', versionCommand: ['caddy', 'version'] },
  { images: ['ghcr.io/openclaw/openclaw'], dir: 'openclaw', program: 'OpenClaw', from: 'npm', npm: 'openclaw', version: 'the pin', perTag: true },
  { images: ['valkey/valkey'], dir: 'valkey', program: 'Valkey', from: 'Debian trixie', version: '8.1.1', versionCommand: ['valkey-server', '--version'] },
  { images: ['eclipse-mosquitto'], dir: 'mosquitto', program: 'Mosquitto', from: 'Debian trixie', version: '2.0.21', versionCommand: ['mosquitto', '-h'] },
  { images: ['miniflux/miniflux'], dir: 'miniflux', program: 'Miniflux', from: 'Debian trixie', version: '2.2.6', versionCommand: ['miniflux', '-version'] },
  { images: ['binwiederhier/ntfy'], dir: 'ntfy', program: 'ntfy', from: 'Debian trixie', version: '2.11.0', versionCommand: ['ntfy', '--version'] },
  { images: ['nats'], dir: 'nats', program: 'NATS server', from: 'Debian trixie', version: '2.10.27', versionCommand: ['nats-server', '--version'] },
  { images: ['quay.io/coreos/etcd'], dir: 'etcd', program: 'etcd', from: 'Debian trixie', version: '3.5.16', versionCommand: ['etcd', '--version'] },
  { images: ['victoriametrics/victoria-metrics'], dir: 'victoria-metrics', program: 'VictoriaMetrics', from: 'Debian trixie', version: '1.112.0', versionCommand: ['dpkg-query', '-W', '-f=${Version}', 'victoria-metrics'], note: 'Debian builds it without its version stamp (-version prints nothing)' },
  { images: ['prom/alertmanager'], dir: 'alertmanager', program: 'Alertmanager', from: 'Debian trixie', version: '0.28.1', versionCommand: ['/bin/alertmanager', '--version'] },
  { images: ['prom/prometheus'], dir: 'prometheus', program: 'Prometheus', from: 'Debian trixie', version: '2.53.3', versionCommand: ['/bin/prometheus', '--version'], note: 'one major behind the pin (3.x): 3.x-only settings are not exercised' },
  { images: ['quay.io/prometheus/node-exporter'], dir: 'node-exporter', program: 'node_exporter', from: 'Debian trixie', version: '1.9.0', versionCommand: ['/bin/node_exporter', '--version'] },
  { images: ['restic/rest-server'], dir: 'rest-server', program: 'rest-server', from: 'Debian trixie', version: '0.13.0', versionCommand: ['rest-server', '--version'] },
  { images: ['rabbitmq'], dir: 'rabbitmq', program: 'RabbitMQ', from: 'Debian trixie', version: '4.0.5', versionCommand: ['rabbitmq-diagnostics', '--version'] },
  { images: ['nodered/node-red'], dir: 'node-red', program: 'Node-RED', from: 'npm', npm: 'node-red', version: '5.0.4', versionCommand: ['node', '-p', "require('/usr/src/node-red/node_modules/node-red/package.json').version"] },
  // n8n-nodes-base names xlsx by a cdn.sheetjs.com tarball (0.20.x) that npm cannot fetch here: npm's 0.18.5 instead.
  // Its program stack passes; it stays off because CI's boot, fault, HTTPS and Swarm stacks run n8n, and the real one
  // would add its install and build (about 25 minutes here) to CI
  { images: ['n8nio/n8n'], dir: 'n8n', program: 'n8n', from: 'npm', npm: 'n8n', npmOverrides: { xlsx: '0.18.5' }, version: '1.123.81', versionCommand: ['node', '-p', "require('/usr/local/lib/n8n/node_modules/n8n/package.json').version"], note: 'xlsx 0.18.5 from npm in place of the 0.20 tarball from cdn.sheetjs.com', proven: false, offBecause: 'passed 5/5 there on 2026-11-29 (--all); off in the other stacks because its npm install and image build take about 24 minutes' },
  // verdaccio-audit names node-fetch by the dist-tag `cjs`, which the registry here lacks: 2.7.0, the newest 2.x (CommonJS)
  { images: ['verdaccio/verdaccio'], dir: 'verdaccio', program: 'Verdaccio', from: 'npm', npm: 'verdaccio', npmOverrides: { 'node-fetch': '2.7.0' }, version: '6.10.4', versionCommand: ['node', '-p', "require('/usr/local/lib/verdaccio/node_modules/verdaccio/package.json').version"] },
  { images: ['phpmyadmin'], dir: 'phpmyadmin', program: 'phpMyAdmin', from: 'Debian trixie', version: '5.2.2', versionCommand: ['dpkg-query', '-W', '-f=${Version}', 'phpmyadmin'], note: 'PHP 8.4 and Debian\'s Apache in place of php:8.3-apache' },
  { images: ['adminer'], dir: 'adminer', program: 'Adminer', from: 'Debian trixie', version: '5.2.1', versionCommand: ['sh', '-c', "grep -o 'VERSION=\"[0-9.]*' /var/www/html/adminer.php"], note: 'Debian\'s PHP 8.4 CLI in place of php:8.4-alpine; index.php and entrypoint.sh ours, from upstream\'s' },
  { images: ['actualbudget/actual-server'], dir: 'actual', program: 'Actual sync server', from: 'npm', npm: '@actual-app/sync-server', version: '26.9.0', versionCommand: ['node', '-p', "require('/app/node_modules/@actual-app/sync-server/package.json').version"] },
  { images: ['wiremock/wiremock'], dir: 'wiremock', program: 'WireMock (standalone jar from npm `wiremock`)', from: 'npm', npm: 'wiremock', version: '3.13.2', versionCommand: ['java', '-cp', '/var/wiremock/lib/wiremock-standalone.jar', 'wiremock.Run', '--version'], note: 'Debian\'s OpenJDK 21 in place of eclipse-temurin 17' },
  { images: ['unleashorg/unleash-server'], dir: 'unleash', program: 'Unleash', from: 'npm', npm: 'unleash-server', version: '8.2.0', versionCommand: ['node', '-p', "require('/unleash/node_modules/unleash-server/package.json').version"], note: '8.1.0 is not on npm' },
];

/** Whether the tier runs unproven kits too (STACKWRIGHT_UNPROVEN_KITS=1, as programs.engine-test.ts sets for a stack of unproven kits). */
export function unprovenKitsOn(): boolean {
  return process.env.STACKWRIGHT_UNPROVEN_KITS === '1';
}

/** The real program the kit runs for an image name, if any (an unproven one only when they are on). */
export function realProgramFor(imageName: string, { includeUnproven = unprovenKitsOn() } = {}): RealProgram | undefined {
  return REAL_PROGRAMS.find((p) => p.images.includes(imageName) && (p.proven !== false || includeUnproven));
}

/** The leading version numbers of a tag (v3.13.2 -> 3.13.2, 2.1.2-alpine -> 2.1.2), or the tag itself. */
export function tagVersion(tag: string): string {
  return /^v?(\d+(?:\.\d+)*)/.exec(tag)?.[1] ?? tag;
}

/** How far the kit's version is from the pin: same version, same major.minor, same major, or another major. */
export function versionGap(kit: string, pin: string): string {
  if (kit === 'the pin') return 'none (the pinned version)';
  const a = kit.split('.');
  const b = pin.split('.');
  if (!/^\d+$/.test(a[0] ?? '') || !/^\d+$/.test(b[0] ?? '')) return `pin ${pin}`;
  if (a[0] !== b[0]) return `other major (pin ${pin})`;
  if (a.length < 2 || b.length < 2) return `same major (pin ${pin})`;
  if (a[1] !== b[1]) return `same major (pin ${pin})`;
  return a.length > 2 && b.length > 2 && a[2] === b[2] ? 'none' : `same major.minor (pin ${pin})`;
}
