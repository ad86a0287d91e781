/**
 * Where the Kubernetes API server is and how to authenticate to it, as a @kubernetes/client-node
 * `KubeConfig` (first match wins): an explicit URL (`--kube-url`, no credentials: a `kubectl proxy`
 * or the test fake), a kubeconfig file (`--kubeconfig` / `$KUBECONFIG`, read by client-node, so its
 * `exec` credential plugins, auth-providers (OIDC…), token files and client certificates all work
 * as with kubectl), or the in-cluster service account (token and CA under
 * /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/PORT).
 * client-node re-reads the service-account token file every 60 s, as client-go does: kubelet
 * rotates projected tokens well before they expire.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isIPv6 } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';

export interface KubeConnection {
  /** client-node's configuration: server, TLS and the user's credentials (it applies them per request). */
  readonly config: KubeConfig;
  readonly server: string;
  /** The namespace of the service account or the kubeconfig context, when known. */
  readonly namespace?: string;
}

export class KubeConnectionError extends Error {
  override name = 'KubeConnectionError';
}

const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface ConnectionOptions {
  url?: string;
  kubeconfig?: string;
  env?: NodeJS.ProcessEnv;
  serviceAccountDir?: string;
}

function connectionOf(config: KubeConfig, namespace?: string): KubeConnection {
  const server = config.getCurrentCluster()?.server;
  if (!server) throw new KubeConnectionError(`context ${config.getCurrentContext() || '(unset)'} has no cluster`);
  return { config, server, ...(namespace ? { namespace } : {}) };
}

/**
 * A server without credentials. client-node refuses plain `http:` unless TLS verification is
 * switched off; there is no TLS to verify on such a URL, so that switch changes nothing else.
 */
export function urlConnection(url: string): KubeConnection {
  const config = new KubeConfig();
  config.loadFromClusterAndUser({ name: 'url', server: url, skipTLSVerify: url.startsWith('http:') }, { name: 'none' });
  return connectionOf(config);
}

export function resolveConnection(options: ConnectionOptions = {}): KubeConnection {
  const env = options.env ?? process.env;
  if (options.url) return urlConnection(options.url);
  const kubeconfig = options.kubeconfig ?? env.KUBECONFIG?.split(':')[0];
  if (kubeconfig) return fromKubeconfig(kubeconfig);
  return inCluster(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
}

/** client-node's in-cluster configuration, with the directory and environment given (tests). */
function inCluster(env: NodeJS.ProcessEnv, dir: string): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host || !existsSync(`${dir}/token`)) {
    throw new KubeConnectionError(
      'no Kubernetes API server: give --kube-url or --kubeconfig, or run in a pod (KUBERNETES_SERVICE_HOST and a service-account token)',
    );
  }
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [
      {
        name: 'inCluster',
        server: `https://${isIPv6(host) ? `[${host}]` : host}:${port}`,
        ...(existsSync(`${dir}/ca.crt`) ? { caFile: `${dir}/ca.crt` } : {}),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'inClusterUser', authProvider: { name: 'tokenFile', config: { tokenFile: `${dir}/token` } } }],
    contexts: [{ name: 'inClusterContext', cluster: 'inCluster', user: 'inClusterUser' }],
    currentContext: 'inClusterContext',
  });
  const namespace = existsSync(`${dir}/namespace`) ? readFileSync(`${dir}/namespace`, 'utf8').trim() : undefined;
  return connectionOf(config, namespace);
}

export function fromKubeconfig(path: string): KubeConnection {
  if (!existsSync(path)) throw new KubeConnectionError(`${path}: no such kubeconfig`);
  const config = new KubeConfig();
  try {
    config.loadFromFile(path);
  } catch (error) {
    throw new KubeConnectionError(`${path}: ${(error as Error).message}`);
  }
  const context = config.getContextObject(config.getCurrentContext());
  if (!context)
    throw new KubeConnectionError(`${path}: current-context ${config.getCurrentContext() || '(unset)'} not found`);
  return connectionOf(config, context.namespace);
}
