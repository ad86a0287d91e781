/**
 * The two CustomResourceDefinitions. The network's `spec` schema is GENERATED from the spec's zod
 * schema (`specBodySchema` in ../spec.ts), so the CRD and the validator cannot drift apart; the
 * files under deploy/crds/ are this module's output (`octonet operator crds --write deploy/crds`),
 * and a test fails when they differ.
 *
 * Kubernetes wants a *structural* schema: a type on every node, no `type`/`default` inside
 * `anyOf`, no `additionalProperties: false`. So the conversion: unions of one JSON type collapse
 * to that type (literal unions become an enum), a union of different types (`network.cidr`: a
 * string or a list) keeps its values unchecked here (`x-kubernetes-preserve-unknown-fields`) and
 * spec.ts checks them; defaults are left out, so the stored object stays as the user wrote it and
 * the validator fills the defaults (one place documents them: spec.ts). Unknown fields are pruned by
 * the API server (and `kubectl apply` warns about them).
 */
import { z } from 'zod';
import { stringify } from 'yaml';
import { specBodySchema } from '../spec.js';
import { GROUP, NETWORKS, PORTS, VERSION } from './resources.js';

type Json = Record<string, unknown>;

/** A zod-produced JSON Schema node → a Kubernetes structural schema node. */
function toStructural(node: Json): Json {
  const out: Json = {};
  const union = (node.anyOf ?? node.oneOf) as Json[] | undefined;
  if (union) {
    const members = union.map(toStructural);
    const types = new Set(members.map((m) => m.type));
    if (types.size === 1 && !types.has(undefined)) {
      const [type] = types;
      const consts = members.map((m) => m.enum as unknown[] | undefined);
      if (consts.every((c) => c !== undefined)) return { type, enum: consts.flat() };
      return members[0]!;
    }
    return { 'x-kubernetes-preserve-unknown-fields': true };
  }
  let type = node.type as string | undefined;
  if (node.const !== undefined) {
    return { type: type === 'number' && Number.isInteger(node.const) ? 'integer' : type, enum: [node.const] };
  }
  if (type) out.type = type;
  for (const key of ['description', 'enum', 'pattern', 'minLength', 'maxLength', 'minItems', 'maxItems', 'minimum']) {
    if (node[key] !== undefined) out[key] = node[key];
  }
  // zod's integer maximum is Number.MAX_SAFE_INTEGER: no limit worth stating.
  if (typeof node.maximum === 'number' && node.maximum < Number.MAX_SAFE_INTEGER) out.maximum = node.maximum;
  if (type === 'object') {
    if (node.properties) {
      out.properties = Object.fromEntries(
        Object.entries(node.properties as Record<string, Json>).map(([k, v]) => [k, toStructural(v)]),
      );
      if (Array.isArray(node.required) && node.required.length) out.required = node.required;
    } else if (node.additionalProperties && typeof node.additionalProperties === 'object') {
      out.additionalProperties = toStructural(node.additionalProperties as Json);
    }
  }
  if (type === 'array' && node.items) out.items = toStructural(node.items as Json);
  return out;
}

export function networkSpecSchema(): Json {
  // io 'input': what a user may write (defaults optional), not what validation outputs.
  return toStructural(z.toJSONSchema(specBodySchema, { io: 'input', unrepresentable: 'any' }) as Json);
}

const conditionsSchema = {
  type: 'array',
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      type: { type: 'string' },
      status: { type: 'string', enum: ['True', 'False', 'Unknown'] },
      reason: { type: 'string' },
      message: { type: 'string' },
      observedGeneration: { type: 'integer' },
      lastTransitionTime: { type: 'string', format: 'date-time' },
    },
  },
  'x-kubernetes-list-type': 'map',
  'x-kubernetes-list-map-keys': ['type'],
};

function crd(input: {
  plural: string;
  kind: string;
  singular: string;
  shortNames: string[];
  spec: Json;
  status: Json;
  columns: { name: string; type: string; jsonPath: string; description?: string }[];
  description: string;
}) {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${input.plural}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        plural: input.plural,
        singular: input.singular,
        kind: input.kind,
        listKind: `${input.kind}List`,
        shortNames: input.shortNames,
        categories: ['octonet'],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...input.columns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: {
            openAPIV3Schema: {
              type: 'object',
              description: input.description,
              required: ['spec'],
              properties: {
                apiVersion: { type: 'string' },
                kind: { type: 'string' },
                metadata: { type: 'object' },
                spec: input.spec,
                status: input.status,
              },
            },
          },
        },
      ],
    },
  };
}

function networkCrd() {
  return crd({
    plural: NETWORKS.plural,
    kind: NETWORKS.kind,
    singular: 'octaviamanagementnetwork',
    shortNames: ['omn'],
    description:
      "Octavia's management network (lb-mgmt-net): Neutron network, subnets, security groups, router and one port per controller node, reconciled by octonet operator. The spec is documented in src/mgmtnet/spec.ts and docs/mgmt-net.md.",
    spec: networkSpecSchema(),
    // Written only by the operator (the reconciler's status: conditions, Neutron IDs, nodes, Octavia options).
    status: {
      type: 'object',
      'x-kubernetes-preserve-unknown-fields': true,
      properties: {
        observedGeneration: { type: 'integer' },
        conditions: conditionsSchema,
        topology: { type: 'string' },
        nodesReady: { type: 'string' },
        configMap: { type: 'string' },
      },
    },
    columns: [
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Topology', type: 'string', jsonPath: '.status.topology' },
      { name: 'Nodes', type: 'string', jsonPath: '.status.nodesReady', description: 'node ports ACTIVE / total' },
      { name: 'Reason', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].reason' },
    ],
  });
}

function portCrd() {
  return crd({
    plural: PORTS.plural,
    kind: PORTS.kind,
    singular: 'octaviamanagementport',
    shortNames: ['omp'],
    description:
      "One controller node's port on Octavia's management network. Created and deleted by octonet operator (one per node of an OctaviaManagementNetwork); its node's agent plugs the port and reports conditions here.",
    spec: {
      type: 'object',
      required: ['network', 'node'],
      properties: {
        network: { type: 'string', description: 'metadata.name of the OctaviaManagementNetwork (same namespace)' },
        node: { type: 'string', description: 'Kubernetes node name' },
      },
    },
    status: {
      type: 'object',
      properties: {
        portId: { type: 'string', description: 'Neutron port ID (OVS external_ids:iface-id)' },
        mac: { type: 'string' },
        fixedIps: { type: 'array', items: { type: 'string' } },
        chassis: { type: 'string', description: 'binding:host_id: the OVN chassis read from the node’s OVS' },
        observedGeneration: { type: 'integer' },
        conditions: conditionsSchema,
      },
    },
    columns: [
      { name: 'Node', type: 'string', jsonPath: '.spec.node' },
      { name: 'Ready', type: 'string', jsonPath: '.status.conditions[?(@.type=="Ready")].status' },
      { name: 'Address', type: 'string', jsonPath: '.status.fixedIps[0]' },
      { name: 'Chassis', type: 'string', jsonPath: '.status.chassis' },
      { name: 'Port', type: 'string', jsonPath: '.status.portId' },
    ],
  });
}

export const CRD_FILES = {
  'octaviamanagementnetworks.yaml': networkCrd,
  'octaviamanagementports.yaml': portCrd,
} as const;

export function renderCrdYaml(file: keyof typeof CRD_FILES): string {
  return (
    '# Generated by `octonet operator crds --write deploy/crds` from src/mgmtnet/kube/crds.ts; do not edit.\n' +
    stringify(CRD_FILES[file](), { lineWidth: 0 })
  );
}
