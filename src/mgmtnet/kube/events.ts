/**
 * core/v1 Events on the objects the operator works on (what `kubectl describe` shows under
 * "Events"): the same event repeated is counted on the existing Event (count, lastTimestamp), as
 * client-go's recorder aggregates, rather than written again, so a network failing on every retry
 * makes one Event, not one per attempt. Recording never fails the caller: an Event is a courtesy,
 * and a refusal (RBAC, a quota) is logged and dropped.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { isNotFound, type KubeClient, type KubeObject, type ResourceType } from './client.js';

export const EVENTS: ResourceType = { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true };

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  /** (object uid, type, reason, message) → the Event written for it and its count. */
  private readonly seen = new Map<string, { name: string; count: number }>();

  constructor(
    private readonly kube: KubeClient,
    /** `source.component` and `reportingComponent`: who says it. */
    private readonly component: string,
    /** `reportingInstance`: which replica (the pod name). */
    private readonly instance: string,
    private readonly logger?: Logger,
  ) {}

  /** Records (or counts again) an Event about `object`; resolves when written or given up. */
  async record(object: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = object.metadata.namespace ?? 'default';
    const key = `${object.metadata.uid ?? object.metadata.name}\0${type}\0${reason}\0${message}`;
    const now = new Date().toISOString();
    try {
      const previous = this.seen.get(key);
      if (previous) {
        try {
          const count = previous.count + 1;
          await this.kube.mergePatch(EVENTS, namespace, previous.name, { count, lastTimestamp: now });
          previous.count = count;
          return;
        } catch (error) {
          // Events expire (an hour by default): write a new one.
          if (!isNotFound(error)) throw error;
        }
      }
      const name = `${object.metadata.name}.${Date.now().toString(16)}${randomBytes(2).toString('hex')}`;
      await this.kube.create(EVENTS, namespace, {
        metadata: { name, namespace },
        involvedObject: {
          apiVersion: object.apiVersion,
          kind: object.kind,
          name: object.metadata.name,
          namespace,
          uid: object.metadata.uid,
          resourceVersion: object.metadata.resourceVersion,
        },
        type,
        reason,
        message,
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: this.component },
        reportingComponent: this.component,
        reportingInstance: this.instance,
      });
      // Bounded: messages carry error text, so keys are not a fixed set.
      if (this.seen.size >= 1000) this.seen.clear();
      this.seen.set(key, { name, count: 1 });
    } catch (error) {
      this.logger?.warn({ reason, object: object.metadata.name, err: (error as Error).message }, 'event not recorded');
    }
  }
}
