/**
 * What can be read from the Helm chart's templates without Helm (Debian has no helm package, and
 * no binary is downloaded): each template's documents with every `{{ ... }}` value replaced by a
 * placeholder and every line that is only a template action (if, range, include | nindent, toYaml)
 * left out. `coveredBy` then checks that everything literal in such a skeleton is in the object
 * kustomize renders, at the same place: the chart's static parts against deploy/kustomize.
 * `chartObjects` follows the templates' `manifests.*` conditions to say which objects the chart
 * makes with a given set of toggles.
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

/** `{{ include "octonet.from_deploy" (tuple "FILE" ...) }}`: one of deploy/'s files, through files/. */
const FROM_DEPLOY = /^\{\{-?\s*include\s+"octonet\.from_deploy"\s+\(tuple\s+"([^"]+)"[\s\S]*\}\}\s*$/;
/** `{{- range $path, $_ := .Files.Glob "files/DIR/*.yaml" }}` and the `{{ $.Files.Get $path }}` in it. */
const FILES_GLOB = /^\s*\{\{-?\s*range\s+\$path,\s*\$_\s*:=\s*\.Files\.Glob\s+"([^"*]+)\*(\.[a-z]+)"\s*\}\}\s*$/;
const FILES_GET_PATH = /^\s*\{\{-?\s*\$\.Files\.Get\s+\$path\s*\}\}\s*$/;
const BLOCK_START = /^\s*\{\{-?\s*(if|range|with|define)\b\s*([\s\S]*?)\s*-?\}\}\s*$/;
const BLOCK_ELSE = /^\s*\{\{-?\s*else\s*-?\}\}\s*$/;
const BLOCK_END = /^\s*\{\{-?\s*end\s*-?\}\}\s*$/;

/**
 * An `if` condition over manifests toggles, as Go templates evaluate it: `.Values.manifests.X`,
 * `or A B ...`, `and A B ...`, `not A`. Anything else is refused: a template conditioned on
 * something this emulation cannot judge must be looked at (and taught here), not guessed.
 */
function toggleCondition(condition: string, manifests: Record<string, boolean>): boolean {
  const words = condition.trim().split(/\s+/);
  const value = (word: string): boolean => {
    const toggle = /^\.Values\.manifests\.(\w+)$/.exec(word)?.[1];
    if (toggle === undefined) throw new Error(`a condition this emulation cannot judge: ${condition}`);
    if (!(toggle in manifests)) throw new Error(`an unknown toggle: ${toggle}`);
    return manifests[toggle]!;
  };
  const [head, ...rest] = words;
  if (head === 'or') return rest.some(value);
  if (head === 'and') return rest.every(value);
  if (head === 'not' && rest.length === 1) return !value(rest[0]!);
  if (words.length === 1) return value(head!);
  throw new Error(`a condition this emulation cannot judge: ${condition}`);
}

/**
 * The objects (`Kind/name`) Helm makes from the chart with these `manifests.*` values, found
 * without Helm: each template's lines are kept or dropped by its `if`s over the toggles (a `range`
 * body once), its includes of deploy/'s files are replaced by those files, and the documents left
 * are read as in `chartSkeletons`. It answers which objects a toggle switches on and off, and
 * whether any object is made twice; what the objects say is `chartSkeletons`' business.
 */
export function chartObjects(chartDir: string, manifests: Record<string, boolean>): string[] {
  const dir = join(chartDir, 'templates');
  const files = (relative: string) => readFileSync(join(chartDir, relative), 'utf8');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((template) => {
      const text = files(join('templates', template)).replace(/\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}/g, '');
      const blocks: { active: boolean; glob?: { dir: string; suffix: string } }[] = [];
      const kept: string[] = [];
      for (const line of text.split('\n')) {
        const start = BLOCK_START.exec(line);
        if (start) {
          const glob = FILES_GLOB.exec(line);
          const active = start[1] === 'if' ? toggleCondition(start[2]!, manifests) : true;
          blocks.push({ active, ...(glob && { glob: { dir: glob[1]!, suffix: glob[2]! } }) });
          continue;
        }
        if (BLOCK_ELSE.test(line)) {
          blocks.at(-1)!.active = !blocks.at(-1)!.active;
          continue;
        }
        if (BLOCK_END.test(line)) {
          blocks.pop();
          continue;
        }
        if (!blocks.every((b) => b.active)) continue;
        const fromDeploy = FROM_DEPLOY.exec(line);
        const glob = [...blocks].reverse().find((b) => b.glob)?.glob;
        if (fromDeploy) kept.push(files(join('files', fromDeploy[1]!)));
        else if (glob && FILES_GET_PATH.test(line)) {
          const names = readdirSync(join(chartDir, glob.dir)).filter((f) => f.endsWith(glob.suffix));
          kept.push(names.map((name) => files(join(glob.dir, name))).join('\n---\n'));
        } else if (!ACTION_LINE.test(line)) kept.push(line.replace(/\{\{-?[\s\S]*?-?\}\}/g, PLACEHOLDER));
      }
      if (blocks.length > 0) throw new Error(`${template}: a block without its end`);
      return parseAllDocuments(kept.join('\n'), { version: '1.1' })
        .map((d) => d.toJS() as Json)
        .filter((doc) => doc !== null && typeof doc === 'object')
        .map((doc) => `${doc.kind}/${doc.metadata.name}`);
    });
}
