/**
 * Where the Kubernetes API server is and how to authenticate to it, from (first match wins):
 * an explicit URL (`--kube-url`, no credentials: a `kubectl proxy` or the test fake), a kubeconfig
 * file (`--kubeconfig` / `$KUBECONFIG`: its current context's server, CA, token or client
 * certificate), or the in-cluster service account (token and CA under
 * /var/run/secrets/kubernetes.io/serviceaccount, KUBERNETES_SERVICE_HOST/PORT).
 * The token is re-read on every request: kubelet rotates projected service-account tokens.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface KubeConnection {
  server: string;
  token?: () => string | undefined;
  ca?: Buffer;
  cert?: Buffer;
  key?: Buffer;
  insecureSkipTlsVerify?: boolean;
  /** The namespace of the service account or the kubeconfig context, when known. */
  namespace?: string;
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

export function resolveConnection(options: ConnectionOptions = {}): KubeConnection {
  const env = options.env ?? process.env;
  if (options.url) return { server: options.url };
  const kubeconfig = options.kubeconfig ?? env.KUBECONFIG?.split(':')[0];
  if (kubeconfig) return fromKubeconfig(kubeconfig);
  return inCluster(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
}

function inCluster(env: NodeJS.ProcessEnv, dir: string): KubeConnection {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT ?? '443';
  if (!host || !existsSync(`${dir}/token`)) {
    throw new KubeConnectionError(
      'no Kubernetes API server: give --kube-url or --kubeconfig, or run in a pod (KUBERNETES_SERVICE_HOST and a service-account token)',
    );
  }
  const bracketed = host.includes(':') ? `[${host}]` : host;
  return {
    server: `https://${bracketed}:${port}`,
    token: () => readFileSync(`${dir}/token`, 'utf8').trim(),
    ca: existsSync(`${dir}/ca.crt`) ? readFileSync(`${dir}/ca.crt`) : undefined,
    namespace: existsSync(`${dir}/namespace`) ? readFileSync(`${dir}/namespace`, 'utf8').trim() : undefined,
  };
}

interface KubeconfigFile {
  'current-context'?: string;
  contexts?: { name: string; context: { cluster: string; user?: string; namespace?: string } }[];
  clusters?: {
    name: string;
    cluster: {
      server: string;
      'certificate-authority'?: string;
      'certificate-authority-data'?: string;
      'insecure-skip-tls-verify'?: boolean;
    };
  }[];
  users?: {
    name: string;
    user: {
      token?: string;
      tokenFile?: string;
      'client-certificate'?: string;
      'client-certificate-data'?: string;
      'client-key'?: string;
      'client-key-data'?: string;
    };
  }[];
}

function fileOrData(path: string | undefined, data: string | undefined): Buffer | undefined {
  if (data) return Buffer.from(data, 'base64');
  if (path) return readFileSync(path);
  return undefined;
}

export function fromKubeconfig(path: string): KubeConnection {
  const config = parseYaml(readFileSync(path, 'utf8')) as KubeconfigFile;
  const contextName = config['current-context'];
  const context = config.contexts?.find((c) => c.name === contextName)?.context;
  if (!context) throw new KubeConnectionError(`${path}: current-context ${contextName ?? '(unset)'} not found`);
  const cluster = config.clusters?.find((c) => c.name === context.cluster)?.cluster;
  if (!cluster) throw new KubeConnectionError(`${path}: cluster ${context.cluster} not found`);
  const user = config.users?.find((u) => u.name === context.user)?.user ?? {};
  const token = user.token;
  const tokenFile = user.tokenFile;
  return {
    server: cluster.server,
    token: token ? () => token : tokenFile ? () => readFileSync(tokenFile, 'utf8').trim() : undefined,
    ca: fileOrData(cluster['certificate-authority'], cluster['certificate-authority-data']),
    cert: fileOrData(user['client-certificate'], user['client-certificate-data']),
    key: fileOrData(user['client-key'], user['client-key-data']),
    insecureSkipTlsVerify: cluster['insecure-skip-tls-verify'] ?? false,
    namespace: context.namespace,
  };
}
