// The catalogue's database servers, found from their manifests (so a new one is tested without naming it):
// which family each belongs to, a stack that puts every consumer the catalogue has on one of them, and
// the consumers a rendered setup script provisions.
import type { Catalogue, ServicePlugin } from '../../src/catalogue/types.js';
import type { Generator } from '../../src/pipeline/generate.js';
import { setupConsumers } from '../real-engine/checks.js';

/** The families the tests run on a real server: postgresql (Debian's PostgreSQL), mysql (Debian's MariaDB). */
export const FAMILIES_WITH_A_TEST_SERVER = ['postgresql', 'mysql'];

/** Every database server plugin and its family (undefined: a setup script of its own). */
export function databaseServers(catalogue: Catalogue): { id: string; family: string | undefined; extensions: string[] }[] {
  return [...catalogue.services.values()].filter((s) => s.manifest.databaseServer).map((s) => ({
    id: s.id, family: s.manifest.databaseServer!.family, extensions: s.manifest.databaseServer!.extensions ?? [],
  }));
}

export type Request = Parameters<Generator['generate']>[0];

/** How many consumer services a server's stack takes: the setup's every path, at a bounded test time. */
const CONSUMER_SERVICES = 3;

/**
 * A stack with consumers of `server`: up to CONSUMER_SERVICES services that declare a database there (those
 * asking for extensions or additional databases first, so each of the script's paths runs), and, where a
 * skill pack needs the server, a companion framework besides the primary (each gets a database of its own).
 */
export function stackOnServer(catalogue: Catalogue, generator: Generator, server: string, name: string): Request {
  const fits = (request: Request) => {
    try {
      generator.generate(request);
      return true;
    } catch {
      return false;
    }
  };
  let request: Request = { name, services: [server] };
  const packs = [...catalogue.skillPacks.values()].filter((p) => p.manifest.requiredServices.includes(server)).map((p) => p.id);
  if (packs.length) {
    const companion = [...catalogue.frameworks.keys()].find((f) => f !== catalogue.defaultFramework && fits({ ...request, skills: packs, companionFrameworks: [f] }));
    request = { ...request, skills: packs, ...(companion ? { companionFrameworks: [companion] } : {}) };
  }
  const declared = (s: ServicePlugin) => s.manifest.databases?.find((d) => d.server === server);
  const rich = (s: ServicePlugin) => (declared(s)!.extensions?.length || declared(s)!.additional?.length ? 0 : 1);
  const consumers = [...catalogue.services.values()].filter((s) => declared(s))
    .sort((a, b) => rich(a) - rich(b) || a.id.localeCompare(b.id));
  let added = 0;
  for (const s of consumers) {
    if (added === CONSUMER_SERVICES) break;
    const next = { ...request, services: [...request.services!, s.id] };
    if (fits(next)) [request, added] = [next, added + 1];
  }
  return request;
}

export interface Consumer { user: string; passwordVariable: string; databases: string[]; extensions: string[] }

/**
 * The roles and databases a rendered setup script provisions (the engine tier's reading of its ensure_*
 * lines), with the extensions the script creates for each consumer.
 */
export function consumersOf(script: string): Consumer[] {
  return setupConsumers(script).map((c) => ({
    user: c.user, passwordVariable: c.passwordKey, databases: c.databases,
    extensions: [...script.matchAll(new RegExp(`^ensure_database \\S+ ${c.user}((?: \\S+)*)$`, 'gm'))].flatMap((m) => m[1].trim().split(' ').filter(Boolean)),
  }));
}
