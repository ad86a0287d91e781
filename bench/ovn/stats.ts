/**
 * Summaries of samples as the tables print them: n, median, p99, min, max. p99 is the nearest
 * rank, so with fewer than 100 samples it is the maximum.
 */

export interface Summary {
  n: number;
  median: number;
  p99: number;
  min: number;
  max: number;
}

export function summarize(values: readonly number[]): Summary | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const mid = Math.floor(n / 2);
  const median = n % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return { n, median, p99: sorted[Math.ceil(0.99 * n) - 1]!, min: sorted[0]!, max: sorted[n - 1]! };
}

/** Milliseconds since an arbitrary origin, monotonic (every timestamp in this bench). */
export const now = (): number => performance.now();
