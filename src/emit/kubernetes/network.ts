// NetworkPolicies: everything denied, then exactly the edges the model knows: a member to what it requires
// and the hosts its values name, a consumer (and its setup Job) to its database server, a framework to the
// services its skill packs call, the gateway to routed services; DNS for all, the internet for frameworks
// (model providers) and for members that fetch from it at run time.
import { setupServiceName } from '../../model/layout.js';
import type { StackModel } from '../../model/model.js';
import { referencedHosts } from '../container-env.js';
import { selector, type Obj } from './pods.js';

/** Who may reach whom: [from, to] pairs of pod names (members and setup Jobs), each once, sorted. */
export function stackEdges(model: StackModel): [string, string][] {
  const containers = new Map(model.members.filter((m) => m.placement === 'container').map((m) => [m.plugin.id, m]));
  const edges = new Set<string>();
  const add = (from: string, to: string) => {
    if (from !== to && containers.has(to)) edges.add(`${from}\u0000${to}`);
  };
  for (const m of containers.values()) {
    for (const dep of m.plugin.manifest.requires ?? []) add(m.plugin.id, dep);
    for (const host of referencedHosts(m.plugin, model)) add(m.plugin.id, host);
    if (m.plugin.kind === 'framework') for (const s of model.skillServices) add(m.plugin.id, s);
  }
  for (const db of model.databases) {
    add(db.consumer, db.server);
    add(setupServiceName(db.server), db.server);
  }
  return [...edges].sort().map((e) => e.split('\u0000') as [string, string]);
}

/** Addresses outside the cluster: everything but the private ranges (and with them, the cluster's own). */
const INTERNET = { ipBlock: { cidr: '0.0.0.0/0', except: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16', '100.64.0.0/10'] } };

/** Where the gateway's pods run: k3s's bundled Traefik (kube-system, its chart's name label). */
export const GATEWAY_PEER = {
  namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
  podSelector: { matchLabels: { 'app.kubernetes.io/name': 'traefik' } },
};

export function networkPolicies(model: StackModel, podNames: readonly string[]): Obj[] {
  const stack = model.options.name;
  const policy = (name: string, spec: Obj): Obj => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, labels: { 'app.kubernetes.io/part-of': stack } }, spec });
  const out: Obj[] = [
    policy('default-deny', { podSelector: {}, policyTypes: ['Ingress', 'Egress'] }),
    policy('dns', {
      podSelector: {}, policyTypes: ['Egress'],
      egress: [{ to: [{ namespaceSelector: {}, podSelector: { matchLabels: { 'k8s-app': 'kube-dns' } } }], ports: [{ protocol: 'UDP', port: 53 }, { protocol: 'TCP', port: 53 }] }],
    }),
  ];
  const edges = stackEdges(model);
  const ports = (id: string) => (model.plugins.get(id)?.manifest.ports ?? []).map((p) => ({ protocol: (p.protocol ?? 'tcp').toUpperCase(), port: p.container }));
  const routed = new Map<string, Set<number>>();
  for (const r of model.routes) routed.set(r.service, (routed.get(r.service) ?? new Set()).add(r.port));
  for (const id of podNames) {
    const plugin = model.plugins.get(id);
    const ingress: Obj[] = [];
    const egress: Obj[] = [];
    const from = edges.filter(([, to]) => to === id).map(([f]) => f);
    if (from.length && ports(id).length) ingress.push({ from: from.map((f) => ({ podSelector: { matchLabels: selector(f) } })), ports: ports(id) });
    const gatewayPorts = [...(routed.get(id) ?? [])].sort((a, b) => a - b);
    if (gatewayPorts.length) ingress.push({ from: [GATEWAY_PEER], ports: gatewayPorts.map((port) => ({ protocol: 'TCP', port })) });
    for (const [, to] of edges.filter(([f]) => f === id)) if (ports(to).length) egress.push({ to: [{ podSelector: { matchLabels: selector(to) } }], ports: ports(to) });
    if (plugin && (plugin.kind === 'framework' || plugin.manifest.internet)) egress.push({ to: [INTERNET] });
    if (!ingress.length && !egress.length) continue;
    out.push(policy(id, {
      podSelector: { matchLabels: selector(id) },
      policyTypes: [...(ingress.length ? ['Ingress'] : []), ...(egress.length ? ['Egress'] : [])],
      ...(ingress.length ? { ingress } : {}),
      ...(egress.length ? { egress } : {}),
    }));
  }
  if (model.https) {
    // cert-manager's HTTP-01 solver pods answer the ACME server's challenge through the gateway
    out.push(policy('acme-solver', {
      podSelector: { matchLabels: { 'acme.cert-manager.io/http01-solver': 'true' } }, policyTypes: ['Ingress'],
      ingress: [{ from: [GATEWAY_PEER], ports: [{ protocol: 'TCP', port: 8089 }] }],
    }));
  }
  return out;
}
