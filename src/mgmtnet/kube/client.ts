/**
 * A small Kubernetes API client: exactly the calls the operator and the node agent make (get, list,
 * watch, create, replace, merge-patch, delete, the status subresource), over node:http(s).
 *
 * Why not @kubernetes/client-node (listed in DESIGN.md): we need seven verbs on five resource
 * types; the library brings its own HTTP stack, generated models for every API group and a watch
 * helper whose reconnect behaviour we would have to wrap anyway (410 → relist). node:https takes
 * the cluster CA directly (`fetch` cannot without undici's Agent), and the same code talks plain
 * HTTP to the in-process fake API server in tests. Connection details: see ./connection.ts.
 *
 * Owns: HTTP, paths, Status errors, the chunked watch stream. Knows nothing of octonet's resources.
 */
import http from 'node:http';
import https from 'node:https';
import type { KubeConnection } from './connection.js';

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

  constructor(
    readonly connection: KubeConnection,
    /** Sent as User-Agent: audit logs (and the tests' RBAC check) tell the operator from the agent. */
    readonly userAgent = 'octonet',
  ) {}

  private open(method: string, path: string, headers: Record<string, string>, signal?: AbortSignal) {
    const url = new URL(this.connection.server.replace(/\/$/, '') + path);
    const allHeaders: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent, ...headers };
    const token = this.connection.token?.();
    if (token) allHeaders.authorization = `Bearer ${token}`;
    const options: https.RequestOptions = { method, headers: allHeaders, signal };
    if (url.protocol === 'https:') {
      options.ca = this.connection.ca;
      options.cert = this.connection.cert;
      options.key = this.connection.key;
      options.rejectUnauthorized = !this.connection.insecureSkipTlsVerify;
      return https.request(url, options);
    }
    return http.request(url, options);
  }

  /** One request with a JSON body and a JSON answer; throws KubeApiError on a non-2xx status. */
  async request<T>(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<T> {
    if (method === 'GET') this.calls.reads++;
    else this.calls.writes++;
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = payload === undefined ? {} : { 'content-type': contentType };
    return new Promise<T>((resolve, reject) => {
      const req = this.open(method, path, headers);
      req.on('error', reject);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const status = res.statusCode ?? 0;
          if (status < 200 || status >= 300) return reject(errorFromBody(status, text));
          try {
            resolve((text ? JSON.parse(text) : undefined) as T);
          } catch (error) {
            reject(error);
          }
        });
      });
      req.end(payload);
    });
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
   * One watch stream from `resourceVersion`: calls `onEvent` per event and resolves when the server
   * ends the stream (timeout, restart) or the signal aborts. A 410 — as the HTTP status or as an
   * ERROR event carrying a Status, both of which API servers send — rejects with KubeApiError 410.
   */
  watch<T extends KubeObject>(
    type: ResourceType,
    namespace: string | undefined,
    options: WatchOptions,
    onEvent: (event: WatchEvent<T>) => void,
  ): Promise<void> {
    this.calls.watches++;
    const path =
      resourcePath(type, namespace) +
      query({
        watch: true,
        resourceVersion: options.resourceVersion,
        labelSelector: options.labelSelector,
        timeoutSeconds: options.timeoutSeconds,
        allowWatchBookmarks: true,
      });
    return new Promise<void>((resolve, reject) => {
      if (options.signal?.aborted) return resolve();
      const req = this.open('GET', path, {}, options.signal);
      let settled = false;
      const finish = (error?: unknown) => {
        if (settled) return;
        settled = true;
        if (error && !options.signal?.aborted) reject(error);
        else resolve();
      };
      req.on('error', finish);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status !== 200) {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => finish(errorFromBody(status, Buffer.concat(chunks).toString('utf8'))));
          return;
        }
        // Events are newline-delimited JSON objects; a chunk may hold several or a part of one.
        let buffered = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffered += chunk;
          let newline: number;
          while ((newline = buffered.indexOf('\n')) >= 0) {
            const line = buffered.slice(0, newline).trim();
            buffered = buffered.slice(newline + 1);
            if (!line) continue;
            let event: WatchEvent<T>;
            try {
              event = JSON.parse(line) as WatchEvent<T>;
            } catch (error) {
              req.destroy();
              return finish(error);
            }
            if (event.type === 'ERROR') {
              const s = event.object as unknown as { code?: number; reason?: string; message?: string };
              req.destroy();
              return finish(new KubeApiError(s.code ?? 500, s.reason ?? 'Unknown', s.message ?? 'watch error'));
            }
            try {
              onEvent(event);
            } catch (error) {
              req.destroy();
              return finish(error);
            }
          }
        });
        res.on('end', () => finish());
        res.on('error', finish);
        res.on('close', () => finish());
      });
      req.end();
    });
  }
}
