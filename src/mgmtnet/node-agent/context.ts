/**
 * What every step of a node-agent pass (observe, plug, address, probe) is given: where the node's
 * commands run, the Neutron client, the spec's name and interface, and the list of what the pass
 * changed (each change logged once, as it happens).
 */
import type { NodeHost } from './host.js';
import type { NodeAgentNeutron } from './neutron.js';

export const DEFAULT_NODE_INTERFACE = 'o-hm0';

/** The part of the OctaviaManagementNetwork the agent reads; the reconciler's full spec fits it. */
export interface NodeAgentSpec {
  metadata: { name: string };
  spec: {
    nodeInterface?: string;
    topology?: string;
    /** A node's `chassis` pins `binding:host_id`: `mgmt-net apply` sets it, the agent only checks it. */
    nodes?: readonly { name: string; chassis?: string }[];
  };
}

/** pino's calling convention, so a pino logger fits; the default says nothing. */
export interface NodeAgentLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface NodeStep {
  readonly host: NodeHost;
  readonly client: NodeAgentNeutron;
  readonly spec: NodeAgentSpec;
  /** The node's name in the spec (`nodes[].name`), as in the port's `octonet-node:` tag. */
  readonly node: string;
  /** The interface's name (`spec.nodeInterface`, default o-hm0). */
  readonly dev: string;
  /** The spec's name: the mark on the interface (`external_ids:octonet-mgmt-net`). */
  readonly owner: string;
  readonly log: NodeAgentLog;
  /** What this pass changed, in words. */
  readonly actions: string[];
  /** Records a change and logs it. */
  done(what: string, fields?: object): void;
}

const quiet: NodeAgentLog = { info: () => undefined, warn: () => undefined };

export function nodeStep(options: {
  host: NodeHost;
  client: NodeAgentNeutron;
  spec: NodeAgentSpec;
  node: string;
  log?: NodeAgentLog;
}): NodeStep {
  const { host, client, spec, node } = options;
  const log = options.log ?? quiet;
  const dev = spec.spec.nodeInterface ?? DEFAULT_NODE_INTERFACE;
  const actions: string[] = [];
  return {
    host,
    client,
    spec,
    node,
    dev,
    owner: spec.metadata.name,
    log,
    actions,
    done(what, fields = {}) {
      actions.push(what);
      log.info({ node, interface: dev, ...fields }, what);
    },
  };
}
