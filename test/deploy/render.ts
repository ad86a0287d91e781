/**
 * deploy/'s kustomizations rendered by the real `kubectl kustomize` (Debian's kubernetes-client),
 * for the deploy tests.
 */
import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';
import type { Json } from '../fixtures/json.js';

/** kubectl kustomize's output, parsed as Kubernetes parses YAML (1.1: `0555` is octal). */
export function kustomize(dir: string): Json[] {
  const out = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return parseAllDocuments(out, { version: '1.1' }).map((d) => d.toJS() as Json);
}

/** The object of `kind` named `name`, or `name` plus kustomize's hash suffix (generated ConfigMaps). */
export function findObject(objects: readonly Json[], kind: string, name: string): Json {
  const found = objects.find(
    (o) => o.kind === kind && (o.metadata.name === name || new RegExp(`^${name}-[a-z0-9]{10}$`).test(o.metadata.name)),
  );
  if (!found) throw new Error(`${kind} ${name} is not rendered`);
  return found;
}
