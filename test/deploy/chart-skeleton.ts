/**
 * What can be read from the Helm chart's templates without Helm (Debian has no helm package, and
 * no binary is downloaded): each template's documents with every `{{ ... }}` value replaced by a
 * placeholder and every line that is only a template action (if, range, include | nindent, toYaml)
 * left out. `coveredBy` then checks that everything literal in such a skeleton is in the object
 * kustomize renders, at the same place: the chart's static parts against deploy/kustomize.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { Json } from '../fixtures/json.js';

const PLACEHOLDER = '__TEMPLATE__';

interface SkeletonDoc {
  template: string;
  doc: Json;
}

/** Lines that are only a template action: they produce structure the skeleton cannot follow. */
const ACTION_LINE = /^\s*\{\{-?\s*(if|else|end|range|with|define|include|toYaml|\$|\/\*)[\s\S]*\}\}\s*$/;

function skeleton(templateText: string): Json[] {
  const withoutComments = templateText.replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
  const lines = withoutComments
    .split('\n')
    .filter((line) => !ACTION_LINE.test(line))
    .map((line) => line.replace(/\{\{-?[\s\S]*?-?\}\}/g, PLACEHOLDER));
  return parseAllDocuments(lines.join('\n'), { version: '1.1' })
    .map((d) => d.toJS() as Json)
    .filter((doc) => doc !== null && typeof doc === 'object');
}

export function chartSkeletons(chartDir: string): SkeletonDoc[] {
  const dir = join(chartDir, 'templates');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((template) => skeleton(readFileSync(join(dir, template), 'utf8')).map((doc) => ({ template, doc })));
}

/**
 * Where `chart` (a skeleton) says something literal that `rendered` does not say the same at the
 * same path; empty when the skeleton is covered. A placeholder only needs a value there; a list in
 * the skeleton (one item per `range` body) is compared item by item from the start.
 */
export function coveredBy(chart: unknown, rendered: unknown, path = ''): string[] {
  if (typeof chart === 'string' && chart.includes(PLACEHOLDER)) {
    const pattern = new RegExp(`^${chart.split(PLACEHOLDER).map(escapeRegExp).join('.+')}$`);
    return rendered !== undefined && pattern.test(String(rendered)) ? [] : [`${path}: ${chart} vs ${String(rendered)}`];
  }
  // A key whose value lines were all template output (`include ... | nindent`): anything will do.
  if (chart === null) return rendered !== undefined ? [] : [`${path}: missing`];
  // An empty block scalar is one whose lines were all template output (`include ... | indent`).
  if (chart === '' && typeof rendered === 'string') return [];
  if (Array.isArray(chart)) {
    if (!Array.isArray(rendered)) return [`${path}: a list in the chart, ${JSON.stringify(rendered)} rendered`];
    return chart.flatMap((item, i) => coveredBy(item, rendered[i], `${path}[${i}]`));
  }
  if (chart !== null && typeof chart === 'object') {
    if (rendered === null || typeof rendered !== 'object') return [`${path}: an object in the chart, not rendered`];
    // A templated key (`{{ $name }}: |` in a range) names what the range makes: not compared here.
    return Object.entries(chart)
      .filter(([key]) => !key.includes(PLACEHOLDER))
      .flatMap(([key, value]) =>
        coveredBy(value, (rendered as Record<string, unknown>)[key], path ? `${path}.${key}` : key),
      );
  }
  return chart === rendered
    ? []
    : [`${path}: ${JSON.stringify(chart)} in the chart, ${JSON.stringify(rendered)} rendered`];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
