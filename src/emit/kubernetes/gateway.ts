// The model's routes on Kubernetes: one Gateway (Gateway API) served by the proxy's implementation, an
// HTTPRoute per route, basic auth through the implementation's own filter where Compose's proxy asks for
// a login, and with a public domain certificates from cert-manager (ACME, HTTP-01 through the Gateway).
import type { Route, StackModel } from '../../model/model.js';
import type { Obj } from './pods.js';

/**
 * Gateway API implementations a stack's proxy choice maps to. Traefik: the implementation k3s ships; its
 * listener ports must be Traefik's entry point ports (doc.traefik.io/traefik/v3.8/reference/routing-configuration/
 * kubernetes/gateway-api "Listener ports"): 8000 and 8443 in its Helm chart, published as 80 and 443.
 */
export const GATEWAY_IMPLEMENTATIONS: Readonly<Record<string, { className: string; http: number; https: number }>> = {
  traefik: { className: 'traefik', http: 8000, https: 8443 },
};

export const GATEWAY_NAME = 'stack';
export const AUTH_MIDDLEWARE = 'basic-auth';
/** The basic-auth Secret (kubernetes.io/basic-auth: username and password, which Traefik compares). */
export const AUTH_SECRET = 'proxy-auth';
export const ISSUER_NAME = 'acme';

export function routeName(route: Route): string {
  return route.path.replace(/^\//, '');
}

function certificateSecret(route: Route): string {
  return `${routeName(route)}-tls`;
}

export function gatewayObjects(model: StackModel): Obj[] {
  const proxy = model.resolution.proxy;
  if (!proxy || !model.routes.length) return [];
  const impl = GATEWAY_IMPLEMENTATIONS[proxy.id];
  const meta = (name: string) => ({ name, labels: { 'app.kubernetes.io/part-of': model.options.name } });
  const https = model.https;
  const listeners: Obj[] = [{ name: 'http', protocol: 'HTTP', port: impl.http, allowedRoutes: { namespaces: { from: 'Same' } } }];
  if (https) {
    for (const r of model.routes) {
      listeners.push({
        name: `https-${routeName(r)}`, protocol: 'HTTPS', port: impl.https, hostname: r.host,
        tls: { mode: 'Terminate', certificateRefs: [{ kind: 'Secret', name: certificateSecret(r) }] },
        allowedRoutes: { namespaces: { from: 'Same' } },
      });
    }
  }
  const out: Obj[] = [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: meta(GATEWAY_NAME), spec: { gatewayClassName: impl.className, listeners } }];
  if (model.proxyAuth) {
    out.push({ apiVersion: 'traefik.io/v1alpha1', kind: 'Middleware', metadata: meta(AUTH_MIDDLEWARE), spec: { basicAuth: { secret: AUTH_SECRET } } });
  }
  for (const r of model.routes) {
    const filters: Obj[] = [];
    if (r.protected) filters.push({ type: 'ExtensionRef', extensionRef: { group: 'traefik.io', kind: 'Middleware', name: AUTH_MIDDLEWARE } });
    if (r.strip) filters.push({ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/' } } });
    out.push({
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: meta(routeName(r)),
      spec: {
        parentRefs: [{ name: GATEWAY_NAME, sectionName: https ? `https-${routeName(r)}` : 'http' }],
        ...(r.host ? { hostnames: [r.host] } : {}),
        rules: [{
          matches: [{ path: { type: 'PathPrefix', value: r.host ? '/' : r.path } }],
          ...(filters.length ? { filters } : {}),
          backendRefs: [{ name: r.service, port: r.port }],
        }],
      },
    });
  }
  if (https) {
    // plain HTTP only redirects (cert-manager's challenge routes match their exact paths first)
    out.push({
      apiVersion: 'gateway.networking.k8s.io/v1', kind: 'HTTPRoute', metadata: meta('https-redirect'),
      spec: {
        parentRefs: [{ name: GATEWAY_NAME, sectionName: 'http' }],
        hostnames: model.routes.map((r) => r.host!),
        rules: [{ filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } }] }],
      },
    });
    out.push({
      apiVersion: 'cert-manager.io/v1', kind: 'Issuer', metadata: meta(ISSUER_NAME),
      spec: {
        acme: {
          // replaced from STACK_ACME_CA (kustomization.yaml's replacements, scripts/secrets.sh writes it)
          server: 'https://acme-v02.api.letsencrypt.org/directory',
          privateKeySecretRef: { name: 'acme-account-key' },
          solvers: [{ http01: { gatewayHTTPRoute: { parentRefs: [{ name: GATEWAY_NAME, sectionName: 'http', kind: 'Gateway' }] } } }],
        },
      },
    });
    for (const r of model.routes) {
      out.push({
        apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: meta(routeName(r)),
        spec: { secretName: certificateSecret(r), dnsNames: [r.host!], issuerRef: { kind: 'Issuer', name: ISSUER_NAME } },
      });
    }
  }
  return out;
}
