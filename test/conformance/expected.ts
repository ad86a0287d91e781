/**
 * The expected-results files of the conformance suites (tempest-expected.txt, plugin-expected.txt)
 * and the comparison of a tempest run with one: `<subunit record id> <fail|skip>` lines, `#` starts
 * a comment (the reason); a record not listed must pass.
 */
import { readFileSync } from 'node:fs';
import type { TempestRun } from '../fixtures/tempest.js';

export function readExpected(file: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const text = line.split('#')[0]!.trim();
    if (!text) continue;
    const at = text.lastIndexOf(' ');
    out.set(text.slice(0, at).trim(), text.slice(at + 1));
  }
  return out;
}

/** tempest's console block of one test: its name line up to the next test's. */
function excerpt(output: string, id: string): string {
  const lines = output.split('\n');
  const start = lines.findIndex((l) => l.includes(id));
  if (start < 0) return '';
  const end = lines.findIndex((l, i) => i > start && /^\{\d+\} /.test(l));
  return lines.slice(start, end < 0 ? start + 40 : Math.min(end, start + 60)).join('\n');
}

/** Whether `regex` (a tempest selection) covers a record, class-level records by their class. */
function selects(regex: RegExp, id: string): boolean {
  return regex.test(/^\w+ \((.+)\)$/.exec(id)?.[1] ?? id);
}

/**
 * Every record whose status is not the expected one, and every expected record that did not run
 * (of those `selection` covers, when the run was a subset).
 */
export function differencesFrom(expected: ReadonlyMap<string, string>, run: TempestRun, selection?: RegExp): string[] {
  const differences: string[] = [];
  for (const [id, result] of run.results) {
    const want = expected.get(id) ?? 'pass';
    if (result.status !== want) {
      differences.push(`${id}: ${result.status}, expected ${want}\n${excerpt(run.output, id)}`);
    }
  }
  for (const [id, want] of expected) {
    if (selection && !selects(selection, id)) continue;
    if (!run.results.has(id)) differences.push(`${id}: did not run, expected ${want}`);
  }
  return differences;
}

/** plugin-extensions.txt: one alias a line, `#` comments. */
export function readAliases(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.split('#')[0]!.trim())
    .filter(Boolean);
}
