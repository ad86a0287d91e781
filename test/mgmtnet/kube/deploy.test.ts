/**
 * deploy/ is consistent: every file parses; the CRDs are exactly what the generator makes from
 * spec.ts's zod schema (so CRD and validator agree) and are structural as Kubernetes requires;
 * the example network passes spec.ts's validation and selects the nodes the DaemonSet runs on;
 * every name a manifest refers to (service account, role, secret, namespace, kustomization
 * entry) exists; the commands the pods run exist in the CLI; no RBAC rule uses a wildcard.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { CRD_FILES, networkSpecSchema, renderCrdYaml } from '../../../src/mgmtnet/kube/crds.js';
import { registerOperatorCommand } from '../../../src/cli/operator.js';
import { specBodySchema, validateSpec } from '../../../src/mgmtnet/spec.js';
import { DEPLOY_DIR, loadManifests } from './manifests.js';
import type { Json } from '../../fixtures/json.js';

const manifests = loadManifests();
const find = (kind: string, name: string) =>
  manifests.find((m) => m.doc.kind === kind && m.doc.metadata?.name === name);
const NAMESPACE = 'octavia';

/** Kubernetes' structural-schema rules that a generator could break; returns the violations. */
function structuralViolations(node: Json, path: string, inJunctor = false): string[] {
  const out: string[] = [];
  if (!node || typeof node !== 'object') return out;
  if (inJunctor) {
    for (const key of ['type', 'default', 'additionalProperties', 'nullable', 'description']) {
      if (key in node) out.push(`${path}: ${key} inside anyOf/oneOf/allOf/not`);
    }
  } else if (!node.type && !node['x-kubernetes-preserve-unknown-fields'] && !node['x-kubernetes-int-or-string']) {
    out.push(`${path}: no type`);
  }
  if (node.additionalProperties === false) out.push(`${path}: additionalProperties: false`);
  if (node.additionalProperties && node.properties) out.push(`${path}: both properties and additionalProperties`);
  for (const key of ['$schema', '$ref', 'propertyNames', 'const']) if (key in node) out.push(`${path}: ${key}`);
  for (const [k, v] of Object.entries(node.properties ?? {})) out.push(...structuralViolations(v, `${path}.${k}`));
  if (node.items) out.push(...structuralViolations(node.items, `${path}[]`));
  if (typeof node.additionalProperties === 'object') {
    out.push(...structuralViolations(node.additionalProperties, `${path}{}`));
  }
  for (const j of ['anyOf', 'oneOf', 'allOf']) {
    for (const [i, v] of (node[j] ?? []).entries()) out.push(...structuralViolations(v, `${path}.${j}${i}`, true));
  }
  return out;
}

describe('deploy/ manifests', () => {
  it('every document has apiVersion, kind and a name, and namespaced ones are in the namespace', () => {
    assert.ok(manifests.length >= 12, `${manifests.length} documents`);
    const clusterScoped = new Set(['Namespace', 'CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding']);
    for (const { file, doc } of manifests) {
      if (doc.kind === 'Kustomization') continue;
      assert.ok(doc.apiVersion && doc.kind && doc.metadata?.name, `${file}: ${JSON.stringify(doc).slice(0, 80)}`);
      if (!clusterScoped.has(doc.kind)) assert.equal(doc.metadata.namespace, NAMESPACE, `${file} ${doc.kind}`);
    }
    assert.ok(find('Namespace', NAMESPACE));
  });

  it('the CRD files are what the generator makes from the spec schema, and structural', () => {
    for (const file of Object.keys(CRD_FILES) as (keyof typeof CRD_FILES)[]) {
      const committed = readFileSync(join(DEPLOY_DIR, 'crds', file), 'utf8');
      assert.equal(
        committed,
        renderCrdYaml(file),
        `deploy/crds/${file} is stale: run octonet operator crds --write deploy/crds`,
      );
      const crd = parseYaml(committed);
      const version = crd.spec.versions[0];
      assert.deepEqual(version.subresources, { status: {} });
      assert.deepEqual(structuralViolations(version.schema.openAPIV3Schema, 'openAPIV3Schema'), []);
    }
    const network = parseYaml(readFileSync(join(DEPLOY_DIR, 'crds', 'octaviamanagementnetworks.yaml'), 'utf8'));
    const columns = network.spec.versions[0].additionalPrinterColumns.map((c: Json) => c.name);
    assert.deepEqual(columns.slice(0, 3), ['Ready', 'Topology', 'Nodes']);
  });

  it('the CRD names every field of the zod spec, with the same required fields and enums', () => {
    const spec = networkSpecSchema() as Json;
    assert.deepEqual(spec.required, ['network']);
    assert.deepEqual(Object.keys(spec.properties).sort(), Object.keys(specBodySchema.shape).sort());
    assert.deepEqual(spec.properties.topology.enum, ['per-node-ports', 'link-router', 'provider']);
    assert.deepEqual(spec.properties.network.properties.underlayIpVersion, { type: 'integer', enum: [4, 6] });
    assert.deepEqual(spec.properties.network.required, ['cidr']);
    assert.equal(spec.properties.nodeInterface.maxLength, 15);
    // A string or a list: Kubernetes cannot type it; spec.ts validates it.
    assert.equal(spec.properties.network.properties.cidr['x-kubernetes-preserve-unknown-fields'], true);
  });

  it('the example network is valid for spec.ts and selects the nodes the DaemonSet runs on', () => {
    const network = find('OctaviaManagementNetwork', 'lb-mgmt')!.doc;
    const spec = validateSpec(network);
    assert.equal(spec.spec.topology, 'per-node-ports');
    const daemonSet = find('DaemonSet', 'octonet-node-agent')!.doc;
    assert.deepEqual(daemonSet.spec.template.spec.nodeSelector, network.spec.nodeSelector);
  });

  it('the pods: service accounts, secrets and commands exist; the agent has host network, OVS and only the capabilities it needs', () => {
    const program = new Command('octonet');
    registerOperatorCommand(program);
    const operatorCommand = program.commands.find((c) => c.name() === 'operator')!;
    const pods = [find('Deployment', 'octonet-operator')!.doc, find('DaemonSet', 'octonet-node-agent')!.doc];
    for (const workload of pods) {
      const pod = workload.spec.template.spec;
      assert.ok(find('ServiceAccount', pod.serviceAccountName), `service account ${pod.serviceAccountName}`);
      assert.deepEqual(workload.spec.selector.matchLabels, {
        'app.kubernetes.io/name': workload.spec.template.metadata.labels['app.kubernetes.io/name'],
      });
      for (const volume of pod.volumes ?? []) {
        if (volume.secret) assert.ok(find('Secret', volume.secret.secretName), `secret ${volume.secret.secretName}`);
      }
      const [container] = pod.containers;
      const [binary, sub, subsub] = container.command;
      assert.equal(binary, 'octonet');
      assert.equal(sub, 'operator');
      if (subsub)
        assert.ok(
          operatorCommand.commands.some((c) => c.name() === subsub),
          `octonet operator ${subsub}`,
        );
      assert.equal(container.securityContext.allowPrivilegeEscalation, false);
      assert.notEqual(container.securityContext.privileged, true);
      const env = Object.fromEntries(container.env.map((e: Json) => [e.name, e]));
      assert.equal(env.OS_CLOUD.value, 'octonet');
      assert.ok(parseYaml(find('Secret', 'octonet-neutron-credentials')!.doc.stringData['clouds.yaml']).clouds.octonet);
    }
    const agent = pods[1]!.spec.template.spec;
    assert.equal(agent.hostNetwork, true);
    assert.equal(agent.dnsPolicy, 'ClusterFirstWithHostNet');
    const [container] = agent.containers;
    assert.equal(container.env.find((e: Json) => e.name === 'NODE_NAME').valueFrom.fieldRef.fieldPath, 'spec.nodeName');
    assert.deepEqual(container.securityContext.capabilities, { drop: ['ALL'], add: ['NET_ADMIN', 'NET_RAW'] });
    const ovs = agent.volumes.find((v: Json) => v.hostPath?.path === '/run/openvswitch');
    assert.ok(ovs);
    assert.ok(container.volumeMounts.some((m: Json) => m.name === ovs.name && m.mountPath === '/run/openvswitch'));
    assert.ok(agent.tolerations.some((t: Json) => t.key === 'node-role.kubernetes.io/control-plane'));
    const operatorPod = pods[0]!.spec.template.spec;
    assert.equal(operatorPod.hostNetwork, undefined, 'the operator needs no host access');
    // Two replicas: leader election (a Lease, named by POD_NAME) lets only one reconcile.
    assert.equal(pods[0]!.spec.replicas, 2);
    const operatorEnv = operatorPod.containers[0].env.find((e: Json) => e.name === 'POD_NAME');
    assert.equal(operatorEnv.valueFrom.fieldRef.fieldPath, 'metadata.name');
  });

  it('RBAC: bindings point at existing roles and accounts; no wildcard anywhere', () => {
    for (const { doc } of manifests.filter((m) => m.doc.kind.endsWith('Binding'))) {
      assert.ok(find(doc.roleRef.kind, doc.roleRef.name), `${doc.roleRef.kind} ${doc.roleRef.name}`);
      for (const s of doc.subjects) assert.ok(find('ServiceAccount', s.name), `ServiceAccount ${s.name}`);
    }
    for (const { doc } of manifests.filter((m) => m.doc.kind === 'Role' || m.doc.kind === 'ClusterRole')) {
      for (const rule of doc.rules) {
        for (const value of [...rule.apiGroups, ...rule.resources, ...rule.verbs]) {
          assert.notEqual(value, '*', `${doc.metadata.name}: wildcard`);
        }
      }
    }
    // The node agent may not create or delete anything, nor read Secrets or Nodes.
    const agent = find('Role', 'octonet-node-agent')!.doc;
    const verbs = agent.rules.flatMap((r: Json) => r.verbs);
    assert.ok(!verbs.includes('create') && !verbs.includes('delete'));
    assert.ok(!agent.rules.some((r: Json) => r.resources.includes('secrets')));
  });

  it('the kustomization lists every manifest file except the example, CRDs first', () => {
    const kustomization = manifests.find((m) => m.doc.kind === 'Kustomization');
    const listed: string[] = kustomization!.doc.resources;
    assert.deepEqual(listed.slice(0, 2), ['crds/octaviamanagementnetworks.yaml', 'crds/octaviamanagementports.yaml']);
    const files = [...new Set(manifests.map((m) => m.file))].filter(
      (f) => f !== 'kustomization.yaml' && f !== 'octaviamanagementnetwork.yaml',
    );
    assert.deepEqual([...listed].sort(), files.sort());
    assert.equal(kustomization!.doc.namespace, NAMESPACE);
  });
});
