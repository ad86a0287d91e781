/**
 * The report every bench prints: titled tables, then its goals (met or not), then notes; as text
 * for the terminal and as Markdown for a closing note.
 */
import { renderMarkdown, renderText, type ColumnGroup } from './api/tables.js';

export interface Goal {
  goal: string;
  value: string;
  met: boolean | undefined;
}

export interface Section {
  title: string;
  groups: ColumnGroup[];
  rows: string[][];
}

const GOAL_GROUPS: ColumnGroup[] = [{ label: '', columns: ['goal', 'value', 'met'] }];

function mark(met: boolean | undefined, md: boolean): string {
  if (met === undefined) return md ? '–' : 'n/a';
  if (met) return md ? '✅' : 'met';
  return md ? '❌' : 'NOT MET';
}

export function renderGoalsReport(
  sections: readonly Section[],
  goals: readonly Goal[],
  notes: readonly string[],
): { text: string; markdown: string } {
  const text = [
    ...sections.flatMap((s) => [s.title, renderText(s.groups, s.rows), '']),
    'Goals',
    renderText(
      GOAL_GROUPS,
      goals.map((g) => [g.goal, g.value, mark(g.met, false)]),
    ),
    ...(notes.length ? ['', 'notes:', ...notes.map((n) => `  - ${n}`)] : []),
  ].join('\n');
  const markdown = [
    ...sections.flatMap((s) => [`**${s.title}**`, '', renderMarkdown(s.groups, s.rows), '']),
    '**Goals**',
    '',
    renderMarkdown(
      GOAL_GROUPS,
      goals.map((g) => [g.goal, g.value, mark(g.met, true)]),
    ),
    ...(notes.length ? ['', ...notes.map((n) => `- ${n.replace(/\n/g, ' ')}`)] : []),
  ].join('\n');
  return { text, markdown };
}

/** A whole-number option: its value, or `fallback` when not given; a usage error otherwise. */
export function intOption(name: string, value: string | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${value}`);
  return n;
}
