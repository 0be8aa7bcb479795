// The public read endpoints (spec section 4 plus /frameworks and /proxies from DECISIONS).
import { LRUCache } from 'lru-cache';
import type { Catalogue } from '../catalogue/types.js';
import { didYouMean } from '../catalogue/problems.js';
import { ApiError, validationError } from '../errors.js';
import { successEnvelope } from '../http/envelope.js';
import type { Route, RouteDoc } from './types.js';
import { filteredServiceIds, serviceFilterErrors } from '../usecases/list.js';
import { frameworkView, presetDetailView, presetListView, proxyView, serviceView, skillPackView } from '../usecases/views.js';

const SERVICE_FILTERS = ['category', 'tag', 'maturity'];

export function catalogueRoutes(catalogue: Catalogue, health: () => Record<string, unknown>): Route[] {
  const read = (path: string, doc: RouteDoc, handle: Route['handle']): Route => ({ method: 'GET', path, bucket: 'read', auth: false, doc, handle });
  // views never change for a loaded catalogue: build and serialise them once
  const allServices = [...catalogue.services.values()].map((s) => serviceView(catalogue, s));
  const encode = (data: unknown) => successEnvelope(JSON.stringify(data));
  const servicesById = new Map(allServices.map((s) => [s.id, encode(s)]));
  const everyService = encode({ total: allServices.length, services: allServices });
  const skills = encode({ total: catalogue.skillPacks.size, skillPacks: [...catalogue.skillPacks.values()].map(skillPackView) });
  const presets = encode({ presets: [...catalogue.presets.values()].map(presetListView) });
  const presetDetails = new Map([...catalogue.presets.values()].map((p) => [p.id, encode(presetDetailView(catalogue, p))]));
  const frameworks = encode({ total: catalogue.frameworks.size, default: catalogue.defaultFramework, frameworks: [...catalogue.frameworks.values()].map((f) => frameworkView(catalogue, f)) });
  const proxies = encode({ total: catalogue.proxies.size, proxies: [...catalogue.proxies.values()].map(proxyView) });
  // filtered lists by filter values; the valid combinations are few, unknown tags are bounded by the LRU
  const serviceLists = new LRUCache<string, Buffer>({ max: 512 });

  return [
    read('/api/v1/health', { summary: 'Service health and catalogue counts', response: 'health', tag: 'meta', operationId: 'getHealth', volatile: true, description: 'Status, version, uptime in seconds, the catalogue counts, and the catalogue revision in force with the last reload error. A counted read; container health checks should use GET /livez and GET /readyz, which are never rate-limited.' }, () => ({ data: health() })),
    read('/api/v1/services', {
      summary: 'Companion services; filters combine', operationId: 'listServices',
      response: 'serviceList',
      query: [
        { name: 'category', description: 'a category id' },
        { name: 'tag', description: 'a tag' },
        { name: 'maturity', description: 'stable, beta or experimental' },
      ],
    }, ({ query }) => {
      // the whole list, the request almost every client sends
      if (query.size === 0) return { envelope: everyService };
      const errors: string[] = [];
      for (const key of new Set(query.keys())) {
        if (!SERVICE_FILTERS.includes(key)) errors.push(`unknown query parameter "${key}": the filters are ${SERVICE_FILTERS.join(', ')}`);
        else if (query.getAll(key).length > 1) errors.push(`query parameter "${key}" is given more than once`);
      }
      const filters = { category: query.get('category'), tag: query.get('tag'), maturity: query.get('maturity') };
      errors.push(...serviceFilterErrors(catalogue, filters));
      if (errors.length) throw validationError('the query parameters are invalid', errors);
      const key = JSON.stringify([filters.category, filters.tag, filters.maturity]);
      const cached = serviceLists.get(key);
      if (cached) return { envelope: cached };
      const ids = filteredServiceIds(catalogue, filters);
      const services = ids ? allServices.filter((s) => ids!.has(s.id)) : allServices;
      const body = encode({ total: services.length, services });
      serviceLists.set(key, body);
      return { envelope: body };
    }),
    read('/api/v1/services/:id', { summary: 'One companion service', response: 'service', operationId: 'getService' }, ({ params }) => {
      const service = servicesById.get(params.id!);
      if (!service) throw new ApiError('NOT_FOUND', `service "${params.id}" does not exist${didYouMean(params.id!, servicesById.keys())}`);
      return { envelope: service };
    }),
    read('/api/v1/skills', { summary: 'Skill packs', response: 'skillPackList', operationId: 'listSkillPacks' }, () => ({ envelope: skills })),
    read('/api/v1/presets', { summary: 'Presets (list form)', response: 'presetList', operationId: 'listPresets' }, () => ({ envelope: presets })),
    read('/api/v1/presets/:name', { summary: 'One preset (detail form, with what it needs in memory and its worst case)', response: 'presetDetail', operationId: 'getPreset' }, ({ params }) => {
      const detail = presetDetails.get(params.name!);
      if (!detail) throw new ApiError('NOT_FOUND', `preset "${params.name}" does not exist${didYouMean(params.name!, presetDetails.keys())}`);
      return { envelope: detail };
    }),
    read('/api/v1/frameworks', { summary: 'Agent frameworks: the values of primaryFramework and companionFrameworks', response: 'frameworkList', operationId: 'listFrameworks' }, () => ({ envelope: frameworks })),
    read('/api/v1/proxies', { summary: 'Reverse proxies: the values of proxy (besides none)', response: 'proxyList', operationId: 'listProxies' }, () => ({ envelope: proxies })),
  ];
}
