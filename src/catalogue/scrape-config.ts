// The one scrape configuration every metrics database of the catalogue renders (catalogue/metrics/): a
// service that scrapes the stack (scrapeConfig) names which of its files is that configuration, and the
// reader joins the shared template under that name, as if the plugin folder held it, so its content is
// part of the plugin's hash (fragment cache, snapshot key). Which services are scraped is data: each
// exporter declares its endpoint (metrics: port, path), checked below.
import type { LoadRule } from './problems.js';
import type { ServicePlugin } from './types.js';

/** The folder of catalogue/ holding the shared scrape configuration, and its template. */
export const METRICS_DIR = 'metrics';
export const SCRAPE_TEMPLATE = 'scrape-config.yml.eta';

type Add = (file: string, pointer: string, rule: LoadRule, message: string) => void;

/** The files[] template a service writes the shared scrape configuration to, if it scrapes the stack. */
export function scrapeTemplateName(manifest: Record<string, unknown>): string | undefined {
  return (manifest as { scrapeConfig?: { template: string } }).scrapeConfig?.template;
}

/** What a schema cannot check: the endpoint is a port the service declares; a scraper writes the config as one of its files and scrapes itself. */
export function checkMetrics(services: readonly ServicePlugin[], add: Add): void {
  for (const s of services) {
    const m = s.manifest;
    if (m.metrics) {
      const ports = (m.ports ?? []).map((p) => p.container);
      if (!ports.includes(m.metrics.port)) {
        add(s.file, '/metrics/port', 'metrics.endpoint', `port ${m.metrics.port} is not a container port of this plugin (ports: ${ports.join(', ') || 'none'}): the scrapers reach the endpoint on a declared port`);
      }
    }
    if (m.scrapeConfig) {
      const names = (m.files ?? []).map((f) => f.template);
      if (!names.includes(m.scrapeConfig.template)) {
        add(s.file, '/scrapeConfig/template', 'metrics.endpoint', `"${m.scrapeConfig.template}" is not a files[].template of this plugin (${names.join(', ') || 'it has no files'}): name the files entry the scrape configuration is written to`);
      }
      if (!m.metrics) {
        add(s.file, '/scrapeConfig', 'metrics.endpoint', 'a scraper declares its own metrics endpoint (metrics: port, path): its first job scrapes itself');
      }
    }
  }
}
