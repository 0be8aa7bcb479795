// Shapes of the plugin manifests (as the JSON Schemas in schemas/ define them) and of the loaded catalogue.

import type { DatabaseBackup } from './backup-kinds.js';

export type Maturity = 'stable' | 'beta' | 'experimental';
export type Platform = 'linux/amd64' | 'linux/arm64';
export type PluginKind = 'service' | 'framework' | 'proxy' | 'skill-pack' | 'preset';

export interface PortSpec {
  container: number;
  host?: number;
  protocol?: 'tcp' | 'udp';
  web?: boolean;
  /** who may use a web port (required with web: true): see docs/plugins.md "Exposure" */
  auth?: PortAuth;
  /** how the app lives under /<id>/ without a domain; absent: it does not, and gets no path route */
  subpath?: 'strip' | 'native';
  description: string;
}

export type PortAuth = 'own' | 'none' | 'first-visitor';

export interface EnvSpec {
  name: string;
  description: string;
  value?: string;
  default?: string;
  secret?: true | { length?: number; charset?: 'hex' | 'alnum'; prefix?: string };
  required?: boolean;
  shared?: boolean;
  /** a client credential other plugins (and frameworks using this service) may receive */
  client?: boolean;
  /** emitted only when this plugin is in the stack */
  ifPresent?: string;
  /** the variable naming a file the program reads this secret from instead (Swarm hands secrets as files) */
  fileVariable?: string;
}

/** A database of its own on a shared server (schemas/common.schema.json#/$defs/database). */
export interface DatabaseSpec {
  server: string;
  name?: string;
  user?: string;
  passwordEnv: string;
  additional?: string[];
  extensions?: string[];
}

export interface VolumeSpec {
  name: string;
  target: string;
  description: string;
  /** the image ships files here the program needs: on Kubernetes an init container copies them into the empty claim once */
  seed?: boolean;
  /** the image's variable naming its data folder, for a program that must create and own it (on Kubernetes: a subfolder of the claim) */
  subfolderVariable?: string;
}
export interface HostMountSpec { source: string; target: string; readOnly?: boolean; description: string }
export interface FileSpec { template: string; target: string; description?: string }

export interface HealthcheckSpec {
  test: string | string[];
  interval?: string;
  timeout?: string;
  retries?: number;
  startPeriod?: string;
}

export interface NativeRecipe { description: string; install: string; run?: string; windows?: string; windowsRun?: string }

/** What services, frameworks and proxies share: everything needed to run one container. */
export interface ContainerManifest {
  name: string;
  description: string;
  links: { website?: string; source?: string; docs: string };
  image: string;
  imageTag: string;
  platforms: Platform[];
  minMemoryMB: number;
  ports?: PortSpec[];
  environment?: EnvSpec[];
  volumes?: VolumeSpec[];
  /** the folders the image declares VOLUMEs: each must be a volume's target (rule volume.image) */
  imageVolumes?: string[];
  /** uid:gid the image's process starts as: on Kubernetes a pod that starts as a user other than root gets its claims' group (fsGroup) */
  imageUser?: string;
  hostMounts?: HostMountSpec[];
  healthcheck?: HealthcheckSpec;
  command?: string | string[];
  entrypoint?: string | string[];
  /** under cap_drop ALL + no-new-privileges: capabilities added back and why, or why it cannot run so */
  hardening: { capAdd?: string[]; why?: string; unsupported?: string };
  memoryLimitMB: number;
  pidsLimit?: number;
  stop?: { gracePeriod: string; signal?: string };
  /** Docker API sections used through the stack's socket proxy */
  dockerApi?: { sections: string[]; write: boolean; why: string };
  /** what it fetches from the internet at run time (README) */
  internet?: string;
  /** how a person logs in to its web port (README); {{<own id>.VAR}} names a variable's .env key */
  login?: string;
  /** programs the image holds that the manifest relies on (checked upstream) */
  binaries?: string[];
  init?: boolean;
  shmSize?: string;
  user?: string;
  requires?: string[];
  databases?: DatabaseSpec[];
}

export interface ServiceManifest extends ContainerManifest {
  category: string;
  tags?: string[];
  maturity: Maturity;
  files?: FileSpec[];
  conflictsWith?: string[];
  gpu?: 'none' | 'optional' | 'required';
  gpuImageTag?: string;
  native?: NativeRecipe;
  /**
   * setup is always set once loaded: the plugin's own template, or its family's (catalogue/database-families,
   * joined by the reader with the family's hostEnv)
   */
  databaseServer?: {
    setup: string; family?: string; extensions?: string[]; superuserPasswordEnv: string; port: number; clientUrl: string; hostEnv?: string;
  };
  /** a database scripts/backup.sh --live dumps with its own tools (catalogue/backup-kinds.ts) */
  backup?: DatabaseBackup;
  /** a local model server frameworks are wired to: its shared model variable, API key variable and first-run load step */
  modelServer?: { model: string; embedModel?: string; apiKey?: string; load: string };
  /** its Prometheus metrics endpoint (container port, path), served without login: metrics databases scrape it */
  metrics?: { port: number; path: string };
  /**
   * a metrics database scraping the stack: its files[] entry `template` is the shared scrape configuration
   * (catalogue/metrics/, joined by the reader: catalogue/scrape-config.ts)
   */
  scrapeConfig?: { template: string; evaluationInterval?: string };
}

export interface FrameworkManifest extends ContainerManifest {
  runtime: 'node' | 'python' | 'rust' | 'go';
  default?: boolean;
  /** a CLI that idles in its container; users attach with `docker compose exec` */
  interactive?: { command: string; workdir?: string };
  /**
   * configs/<id>/config.yaml, the reference file (bundle/framework-config.ts builds its shared part from these):
   * `reads`, `about`: its header (what the framework really reads instead); `home`: where it keeps its state;
   * `providers`: the provider keys it reads; `gateway`: its HTTP gateway; `comments`: comment lines before a
   * section or key of the file; `template`: its own section, appended
   */
  config: {
    template?: string;
    target: string;
    nativePath: string;
    reads: string;
    about?: string[];
    home: { container: string; native: string };
    providers?: { id: string; apiKeyEnv: string }[];
    gateway?: { port: number; bind: { container: string; native: string }; healthPath?: string; authTokenEnv?: string };
    comments?: Record<string, string>;
  };
  skillsTarget: string;
  native: NativeRecipe;
  /**
   * localModels: model servers its start wires it to (no cloud key needed then), with the models named by
   * localModelVariables (default [OLLAMA_MODEL]); localModelsNote: what holds for the others; withoutKey: how
   * it answers with no key (a login)
   */
  firstRun: { keys: string[]; steps: string[]; native?: string[]; localModels?: string[]; localModelVariables?: string[]; localModelsNote: string; withoutKey?: string };
  skills: { loads: boolean; how: string };
}

export interface ProxyManifest extends ContainerManifest {
  automaticHttps?: boolean;
  configDir: { path: string; target: string };
  /** `mount`: the file is also mounted alone at that path; `https`: written only when the proxy serves HTTPS */
  configFiles: { template: string; file: string; mount?: string; https?: true }[];
  basicAuth: { file: string; format: 'caddy' | 'htpasswd'; hasher: { image: string; command: string[] } };
}

export interface SkillPackManifest {
  name: string;
  description: string;
  requiredServices: string[];
  optionalServices?: string[];
  /** skills that work only with some optional services: skill id -> those services (shipped only when the stack holds them) */
  skillServices?: Record<string, string[]>;
  skills: string[];
  tags?: string[];
  /** tokens the user creates in a service for the agents; frameworks receive them */
  tokens?: { name: string; service: string; description: string }[];
}

export interface PresetManifest { name: string; description: string; services: string[]; skills: string[]; memoryBudgetMB: number }
export interface Category { id: string; name: string; description?: string }

export interface Skill { id: string; name: string; description: string; body: string; file: string }

interface PluginBase<K extends PluginKind, M> {
  readonly kind: K;
  readonly id: string;
  /** manifest path relative to the catalogue root, for messages */
  readonly file: string;
  /** absolute folder of the plugin */
  readonly dir: string;
  readonly manifest: M;
  /** sha256 of the manifest and every template: keys the render cache */
  readonly hash: string;
  /** template file name → source text */
  readonly templates: ReadonlyMap<string, string>;
}

export type ServicePlugin = PluginBase<'service', ServiceManifest>;
export type FrameworkPlugin = PluginBase<'framework', FrameworkManifest>;
export type ProxyPlugin = PluginBase<'proxy', ProxyManifest>;
export type SkillPackPlugin = PluginBase<'skill-pack', SkillPackManifest> & { readonly skills: readonly Skill[] };
export type PresetPlugin = PluginBase<'preset', PresetManifest>;
export type ContainerPlugin = ServicePlugin | FrameworkPlugin | ProxyPlugin;

/** The immutable result of a successful load; everything downstream reads only this. */
export interface Catalogue {
  /** content hash of every loaded plugin, preset and category */
  readonly revision: string;
  readonly categories: ReadonlyMap<string, Category>;
  readonly services: ReadonlyMap<string, ServicePlugin>;
  readonly frameworks: ReadonlyMap<string, FrameworkPlugin>;
  readonly proxies: ReadonlyMap<string, ProxyPlugin>;
  readonly skillPacks: ReadonlyMap<string, SkillPackPlugin>;
  readonly presets: ReadonlyMap<string, PresetPlugin>;
  readonly defaultFramework: string;
  readonly servicesByCategory: ReadonlyMap<string, readonly ServicePlugin[]>;
  readonly servicesByTag: ReadonlyMap<string, readonly ServicePlugin[]>;
  readonly servicesByMaturity: ReadonlyMap<string, readonly ServicePlugin[]>;
}

/** A database engine family (catalogue/database-families/<id>/family.yaml and its setup template). */
export interface DatabaseFamily {
  id: string;
  /** path of family.yaml relative to the catalogue root */
  file: string;
  manifest: { name: string; description: string; setup: string; environment: string[]; hostEnv?: string; extensions: boolean };
  template: string;
}
