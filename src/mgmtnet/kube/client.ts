/**
 * The Kubernetes API client of the operator and the node agent: the verbs they use (get, list,
 * watch, create, replace, merge-patch, delete, the status subresource) on any resource type, as a
 * thin layer over @kubernetes/client-node (DESIGN.md's choice): client-node's `KubeConfig` applies
 * the credentials per request (kubeconfig `exec` plugins, auth-providers, rotated token files, client
 * certificates, the cluster CA), its HTTP stack sends the request, and its `Watch` reads the stream.
 * Typed per-resource calls would add nothing here: the operator's objects are custom resources and
 * every verb takes the same path shape, so one generic path builder serves them all.
 * Connection details: see ./connection.ts.
 *
 * Owns: paths, Status errors, the watch stream's ERROR/410 mapping. Knows nothing of octonet's resources.
 */
import { IsomorphicFetchHttpLibrary, RequestContext, Watch, type HttpMethod } from '@kubernetes/client-node';
import { urlConnection, type KubeConnection } from './connection.js';

/** What identifies a collection: `{group:'', version:'v1', plural:'nodes'}` in Kubernetes' core API group. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  creationTimestamp?: string;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  items: T[];
  metadata: { resourceVersion: string };
}

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchEvent<T extends KubeObject = KubeObject> {
  type: WatchEventType;
  object: T;
}

/** A non-2xx answer, carrying the API server's `Status` (reason: NotFound, Conflict, Expired…). */
export class KubeApiError extends Error {
  constructor(
    readonly status: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = 'KubeApiError';
  }
}

export const isNotFound = (error: unknown): boolean => error instanceof KubeApiError && error.status === 404;
export const isConflict = (error: unknown): boolean => error instanceof KubeApiError && error.status === 409;
/** 410 Gone: the resourceVersion a watch asked for is no longer kept; the caller must list again. */
export const isGone = (error: unknown): boolean => error instanceof KubeApiError && error.status === 410;

export interface ListOptions {
  labelSelector?: string;
}

export interface WatchOptions extends ListOptions {
  resourceVersion: string;
  /** Asks the server to end the stream after this long (it may end it sooner). */
  timeoutSeconds?: number;
  signal?: AbortSignal;
}

/** `/api/v1/namespaces/ns/configmaps/name/status`, `/apis/g/v/plural`, … */
function resourcePath(type: ResourceType, namespace?: string, name?: string, subresource?: string): string {
  let path = type.group ? `/apis/${type.group}/${type.version}` : `/api/${type.version}`;
  if (type.namespaced && namespace) path += `/namespaces/${encodeURIComponent(namespace)}`;
  path += `/${type.plural}`;
  if (name !== undefined) path += `/${encodeURIComponent(name)}`;
  if (subresource) path += `/${subresource}`;
  return path;
}

function apiVersionOf(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

function query(params: Record<string, string | number | boolean | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined) search.set(key, String(value));
  const text = search.toString();
  return text ? `?${text}` : '';
}

function errorFromBody(status: number, text: string): KubeApiError {
  try {
    const body = JSON.parse(text) as { reason?: string; message?: string; code?: number };
    return new KubeApiError(body.code ?? status, body.reason ?? 'Unknown', body.message ?? text);
  } catch {
    return new KubeApiError(status, 'Unknown', text || `HTTP ${status}`);
  }
}

export class KubeClient {
  /** Counts of requests by verb, for tests that assert what was (not) written. */
  readonly calls = { reads: 0, writes: 0, watches: 0 };
  readonly connection: KubeConnection;
  private readonly http = new IsomorphicFetchHttpLibrary();

  constructor(
    /** A connection from ./connection.ts, or just a server URL without credentials. */
    connection: KubeConnection | { server: string },
    /** Sent as User-Agent: audit logs (and the tests' RBAC check) tell the operator from the agent. */
    readonly userAgent = 'octonet',
  ) {
    this.connection = 'config' in connection ? connection : urlConnection(connection.server);
  }

  get server(): string {
    return this.connection.server;
  }

  /** One request with a JSON body and a JSON answer; throws KubeApiError on a non-2xx status. */
  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    if (method === 'GET') this.calls.reads++;
    else this.calls.writes++;
    const context = new RequestContext(this.server.replace(/\/$/, '') + path, method as HttpMethod);
    context.setHeaderParam('accept', 'application/json');
    context.setHeaderParam('user-agent', this.userAgent);
    if (body !== undefined) {
      context.setHeaderParam('content-type', contentType);
      context.setBody(JSON.stringify(body));
    }
    // Credentials (an exec plugin's token, a client certificate), CA and agent, per request.
    await this.connection.config.applySecurityAuthentication(context);
    const response = await this.http.send(context).toPromise();
    const text = await response.body.text();
    const status = response.httpStatusCode;
    if (status < 200 || status >= 300) throw errorFromBody(status, text);
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** The object, or null when it does not exist. */
  async get<T extends KubeObject>(type: ResourceType, namespace: string | undefined, name: string): Promise<T | null> {
    try {
      return await this.request<T>('GET', resourcePath(type, namespace, name));
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  list<T extends KubeObject>(
    type: ResourceType,
    namespace?: string,
    options: ListOptions = {},
  ): Promise<ObjectList<T>> {
    return this.request('GET', resourcePath(type, namespace) + query({ labelSelector: options.labelSelector }));
  }

  create<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    object: KubeObject,
  ): Promise<T> {
    const body = { apiVersion: apiVersionOf(type), kind: type.kind, ...object };
    return this.request('POST', resourcePath(type, namespace), body);
  }

  /** PUT: fails with 409 Conflict when metadata.resourceVersion is stale (optimistic concurrency). */
  replace<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    object: KubeObject,
  ): Promise<T> {
    const body = { apiVersion: apiVersionOf(type), kind: type.kind, ...object };
    return this.request('PUT', resourcePath(type, namespace, object.metadata.name), body);
  }

  /** PUT of the status subresource: replaces the whole status (409 Conflict when stale). */
  replaceStatus<T extends KubeObject = KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    object: KubeObject,
  ): Promise<T> {
    const body = { apiVersion: apiVersionOf(type), kind: type.kind, ...object };
    return this.request('PUT', resourcePath(type, namespace, object.metadata.name, 'status'), body);
  }

  /** JSON merge patch (RFC 7386) of the object, or of its status subresource. */
  mergePatch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    patch: unknown,
    subresource?: 'status',
  ): Promise<T> {
    return this.request(
      'PATCH',
      resourcePath(type, namespace, name, subresource),
      patch,
      'application/merge-patch+json',
    );
  }

  /** Deletes; true when it was there. With finalizers the object stays until they are removed. */
  async delete(type: ResourceType, namespace: string | undefined, name: string): Promise<boolean> {
    try {
      await this.request('DELETE', resourcePath(type, namespace, name));
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }

  /**
   * One watch stream from `resourceVersion` (client-node's `Watch`): calls `onEvent` per event and
   * resolves when the server ends the stream (timeout, restart) or the signal aborts. A 410 — as
   * the HTTP status or as an ERROR event carrying a Status, both of which API servers send —
   * rejects with KubeApiError 410, and so does any other failure, with its status.
   */
  watch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<void> {
    this.calls.watches++;
    const params = {
      resourceVersion: options.resourceVersion,
      labelSelector: options.labelSelector,
      timeoutSeconds: options.timeoutSeconds,
      allowWatchBookmarks: true,
    };
    const { signal } = options;
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return resolve();
      let controller: AbortController | undefined;
      let settled = false;
      const abort = () => controller?.abort();
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        signal?.removeEventListener('abort', abort);
        controller?.abort();
        if (error && !signal?.aborted) reject(error);
        else resolve();
      };
      signal?.addEventListener('abort', abort, { once: true });
      const onWatchEvent = (eventType: string, object: unknown) => {
        if (settled) return;
        if (eventType === 'ERROR') {
          const s = object as { code?: number; reason?: string; message?: string };
          return finish(new KubeApiError(s.code ?? 500, s.reason ?? 'Unknown', s.message ?? 'watch error'));
        }
        try {
          onEvent({ type: eventType as WatchEventType, object: object as T });
        } catch (error) {
          finish(error);
        }
      };
      const onDone = (error: unknown) => {
        const code = (error as { statusCode?: number } | null)?.statusCode;
        if (code) finish(new KubeApiError(code, code === 410 ? 'Expired' : 'Unknown', (error as Error).message));
        else finish(error ?? undefined);
      };
      new Watch(this.connection.config)
        .watch(resourcePath(type, namespace), params, onWatchEvent, onDone)
        .then((c) => {
          controller = c;
          if (settled || signal?.aborted) c.abort();
        })
        .catch(finish);
    });
  }
}
