// Database engine families (catalogue/database-families/<family>/): one setup script per engine, shared by
// every database server plugin that names the family (databaseServer.family), so a fix to it reaches them
// all. A server's own additions are data (databaseServer.extensions). The reader joins the family's script
// to each of its servers as if the plugin held it (databaseServer.setup, and hostEnv, set from the family),
// so the engine renders and mounts it like any plugin template; the rules below check what a schema cannot.
import { didYouMean, type LoadRule } from './problems.js';
import type { ContainerPlugin, DatabaseFamily, ServiceManifest, ServicePlugin } from './types.js';

/** The folder of catalogue/ holding one folder per family. */
export const FAMILIES_DIR = 'database-families';

type Report = (pointer: string, rule: LoadRule, message: string) => void;

/**
 * A service manifest with its family's setup joined in: the manifest as the engine reads it (setup and
 * hostEnv from the family) and the family's template under that name; the manifest unchanged when it
 * names no family, undefined after reporting why the family cannot be used.
 */
export function joinFamily(
  manifest: Record<string, unknown>, families: ReadonlyMap<string, DatabaseFamily>, unloaded: ReadonlySet<string>, report: Report,
): { manifest: Record<string, unknown>; template?: [string, string] } | undefined {
  const server = (manifest as Partial<ServiceManifest>).databaseServer;
  if (!server) return { manifest };
  const { family: id, setup, hostEnv } = server;
  if (id === undefined) {
    if (setup !== undefined) return { manifest };
    report('/databaseServer', 'database.family', `a database server needs family (its engine's shared setup script: ${known(families)}) or, for an engine with no family, setup (a script template of its own)`);
    return undefined;
  }
  // the two below are reported, and the family's own values used, so the other rules still judge the plugin
  if (setup !== undefined) {
    report('/databaseServer/setup', 'database.family', `family "${id}" brings the setup script (catalogue/${FAMILIES_DIR}/${id}/): remove setup, or remove family to use a script of this plugin's own`);
  }
  const family = families.get(id);
  if (!family) {
    report('/databaseServer/family', 'database.family', unloaded.has(id)
      ? `family "${id}", whose catalogue/${FAMILIES_DIR}/${id}/family.yaml did not load (fix its errors first)`
      : `"${id}" is no database family (a folder of catalogue/${FAMILIES_DIR}/ with family.yaml): use one of ${known(families)}${didYouMean(id, families.keys())}`);
    return undefined;
  }
  if (hostEnv !== undefined) {
    report('/databaseServer/hostEnv', 'database.family', `the ${id} family's setup reads the server's host from ${family.manifest.hostEnv ?? 'PGHOST'}: remove hostEnv (the family sets it)`);
  }
  const { hostEnv: _own, ...rest } = server;
  const joined = { ...rest, setup: family.manifest.setup, ...(family.manifest.hostEnv ? { hostEnv: family.manifest.hostEnv } : {}) };
  return { manifest: { ...manifest, databaseServer: joined }, template: [family.manifest.setup, family.template] };
}

function known(families: ReadonlyMap<string, DatabaseFamily>): string {
  return [...families.keys()].sort().join(', ') || 'none is defined';
}

/**
 * What the family's script needs of its servers and their consumers: the variables it reads, declared by
 * the server; extensions only where the script creates them.
 */
export function checkFamilies(services: readonly ServicePlugin[], consumers: readonly ContainerPlugin[], families: ReadonlyMap<string, DatabaseFamily>, add: (file: string, pointer: string, rule: LoadRule, message: string) => void): void {
  const familyOf = new Map<string, DatabaseFamily>();
  for (const s of services) {
    const id = s.manifest.databaseServer?.family;
    const family = id === undefined ? undefined : families.get(id);
    if (!family) continue;
    familyOf.set(s.id, family);
    const declared = new Set((s.manifest.environment ?? []).map((e) => e.name));
    for (const name of family.manifest.environment.filter((n) => !declared.has(n))) {
      add(s.file, '/databaseServer/family', 'database.family', `the ${family.id} family's setup script reads ${name}, which this plugin does not declare in environment`);
    }
    if (s.manifest.databaseServer!.extensions?.length && !family.manifest.extensions) {
      add(s.file, '/databaseServer/extensions', 'database.family', `the ${family.id} family's setup creates no extensions: remove extensions`);
    }
  }
  for (const s of consumers) {
    (s.manifest.databases ?? []).forEach((db, i) => {
      const family = familyOf.get(db.server);
      if (db.extensions?.length && family && !family.manifest.extensions) {
        add(s.file, `/databases/${i}/extensions`, 'database.family', `"${db.server}" is a ${family.id} server, whose setup creates no extensions: remove extensions`);
      }
    });
  }
}
