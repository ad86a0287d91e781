/**
 * Reading deploy/ for the tests: every YAML document there, and the RBAC rules a service account
 * gets from deploy/rbac.yaml, to check that each request the adapter made (as recorded by the
 * fake API server) is one Kubernetes would allow.
 */
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { RecordedRequest } from '../../fixtures/fake-kube-apiserver.js';
import type { Json } from '../../fixtures/json.js';

export const DEPLOY_DIR = new URL('../../../deploy/', import.meta.url).pathname;

export interface Manifest {
  file: string;
  doc: Json;
}

export function loadManifests(dir = DEPLOY_DIR): Manifest[] {
  const out: Manifest[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    // deploy/helm and deploy/kustomize hold the API server's chart and overlay (test/deploy reads them).
    if (dir === DEPLOY_DIR && (entry === 'helm' || entry === 'kustomize')) continue;
    if (statSync(path).isDirectory()) out.push(...loadManifests(path));
    else if (entry.endsWith('.yaml')) {
      for (const d of parseAllDocuments(readFileSync(path, 'utf8'))) {
        assert.deepEqual(d.errors, [], `${path} parses`);
        const doc = d.toJS();
        if (doc !== null) out.push({ file: path.slice(DEPLOY_DIR.length), doc });
      }
    }
  }
  return out;
}

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

/** The rules bound to a service account (Roles in its namespace, ClusterRoles anywhere). */
export function rulesFor(serviceAccount: string, manifests = loadManifests()): { namespaced: Rule[]; cluster: Rule[] } {
  const docs = manifests.map((m) => m.doc);
  const boundRoles = (kind: string) =>
    docs
      .filter(
        (d) =>
          d.kind === kind && d.subjects?.some((s: Json) => s.kind === 'ServiceAccount' && s.name === serviceAccount),
      )
      .map((d) => d.roleRef);
  const rulesOf = (refs: Json[]) =>
    refs.flatMap((ref) => {
      const role = docs.find((d) => d.kind === ref.kind && d.metadata.name === ref.name);
      assert.ok(role, `${ref.kind} ${ref.name} exists`);
      return role.rules as Rule[];
    });
  return {
    namespaced: rulesOf(boundRoles('RoleBinding')),
    cluster: rulesOf(boundRoles('ClusterRoleBinding')),
  };
}

/** The RBAC attributes of a request: API group, resource (with subresource), verb. */
export function requestAttributes(r: RecordedRequest): { group: string; resource: string; verb: string } {
  const parts = r.path.split('/').filter(Boolean);
  const rest = parts[0] === 'api' ? parts.slice(2) : parts.slice(3);
  const group = parts[0] === 'api' ? '' : parts[1]!;
  const inNamespace = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  const [plural, name, sub] = inNamespace;
  const resource = sub ? `${plural}/${sub}` : plural!;
  const verb =
    r.method === 'GET'
      ? name !== undefined
        ? 'get'
        : /[?&]watch=(true|1)/.test(r.query)
          ? 'watch'
          : 'list'
      : ({ POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' } as Record<string, string>)[r.method]!;
  return { group, resource, verb };
}

export function assertAllowed(requests: RecordedRequest[], serviceAccount: string): void {
  const { namespaced, cluster } = rulesFor(serviceAccount);
  assert.ok(requests.length > 0, `requests made as ${serviceAccount}`);
  const denied = new Set<string>();
  for (const r of requests) {
    const a = requestAttributes(r);
    const rules = a.resource === 'nodes' ? cluster : namespaced;
    const ok = rules.some(
      (rule) => rule.apiGroups.includes(a.group) && rule.resources.includes(a.resource) && rule.verbs.includes(a.verb),
    );
    if (!ok) denied.add(`${a.verb} ${a.group || 'core'}/${a.resource}`);
  }
  assert.deepEqual([...denied], [], `deploy/rbac.yaml lets ${serviceAccount} make every request it made`);
}
