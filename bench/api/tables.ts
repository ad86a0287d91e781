/**
 * Plain table rendering: aligned text for the terminal (with a row of group labels above the
 * column headers) and GitHub Markdown for a closing note. Knows nothing about benchmarks.
 */

export interface ColumnGroup {
  /** Spans the group's columns in the text rendering; prefixes its headers in Markdown. */
  label: string;
  columns: string[];
}

/** Numbers (and ratios, dashes) right-aligned, words left-aligned. */
const isNumeric = (cell: string) => /^[-—×~+\d.]/.test(cell);

export function renderText(groups: ColumnGroup[], rows: string[][]): string {
  const headers = groups.flatMap((g) => g.columns);
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const labels: string[] = [];
  let start = 0;
  for (const g of groups) {
    const end = start + g.columns.length;
    const spanWidth = () => widths.slice(start, end).reduce((a, b) => a + b, 0) + 2 * (g.columns.length - 1);
    if (g.label.length > spanWidth()) widths[end - 1]! += g.label.length - spanWidth();
    labels.push(g.label.padEnd(spanWidth()));
    start = end;
  }
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i > 0 && isNumeric(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    labels.join('  ').trimEnd(),
    line(headers),
    widths.map((w) => '─'.repeat(w)).join('  '),
    ...rows.map(line),
  ].join('\n');
}

export function renderMarkdown(groups: ColumnGroup[], rows: string[][]): string {
  const headers = groups.flatMap((g) => g.columns.map((c) => (g.label ? `${g.label} ${c}` : c)));
  const align = headers.map((_, i) => (i === 0 ? ':--' : '--:'));
  const escape = (c: string) => c.replace(/\|/g, '\\|');
  return [headers, align, ...rows].map((r) => `| ${r.map(escape).join(' | ')} |`).join('\n');
}
