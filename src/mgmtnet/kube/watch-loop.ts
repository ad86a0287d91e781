/**
 * List-then-watch, forever, the way controllers must do it: list (the full state, handed to
 * `onSync`), watch from the list's resourceVersion, resume from the last seen resourceVersion when
 * a stream ends (API servers end them every few minutes), and list again when the server answers
 * 410 Gone (that version is compacted away; events were missed, so only a full list is safe).
 * Connection errors are retried with a capped backoff. Runs until the signal aborts.
 */
import type { Logger } from 'pino';
import { isGone, type KubeClient, type KubeObject, type ResourceType, type WatchEvent } from './client.js';

export interface WatchLoopOptions<T extends KubeObject> {
  client: KubeClient;
  type: ResourceType;
  namespace?: string;
  labelSelector?: string;
  /** After every list: every object that exists now (objects missing from it were deleted). */
  onSync(items: T[]): void;
  /** ADDED, MODIFIED and DELETED events between lists. */
  onEvent(event: WatchEvent<T>): void;
  signal: AbortSignal;
  logger?: Logger;
  /** Server-side stream timeout asked for; default 300 s. */
  timeoutSeconds?: number;
  /** First retry delay after a failed request; doubles up to 30 s. Default 500 ms. */
  retryDelayMs?: number;
}

/** Resolves after `ms`, or at once when the signal aborts. Retry backoff only. */
function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export async function runWatchLoop<T extends KubeObject>(options: WatchLoopOptions<T>): Promise<void> {
  const { client, type, namespace, labelSelector, signal } = options;
  const firstDelay = options.retryDelayMs ?? 500;
  let delay = firstDelay;
  let resourceVersion: string | null = null;
  while (!signal.aborted) {
    try {
      if (resourceVersion === null) {
        const list = await client.list<T>(type, namespace, { labelSelector });
        resourceVersion = list.metadata.resourceVersion;
        options.onSync(list.items);
      }
      await client.watch<T>(
        type,
        namespace,
        { resourceVersion, labelSelector, timeoutSeconds: options.timeoutSeconds ?? 300, signal },
        (event) => {
          const version = event.object.metadata?.resourceVersion;
          if (version) resourceVersion = version;
          if (event.type !== 'BOOKMARK') options.onEvent(event);
        },
      );
      delay = firstDelay;
      // The stream ended normally: loop and watch again from the last version seen.
    } catch (error) {
      if (signal.aborted) return;
      if (isGone(error)) {
        options.logger?.info({ resource: type.plural }, 'watch expired (410 Gone); listing again');
        resourceVersion = null;
        continue;
      }
      options.logger?.warn({ resource: type.plural, err: (error as Error).message }, 'watch failed; retrying');
      await abortableDelay(delay, signal);
      delay = Math.min(delay * 2, 30_000);
    }
  }
}
