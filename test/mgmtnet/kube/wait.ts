/**
 * Waiting for a condition in the Kubernetes adapter tests: the operator works asynchronously from
 * watch events, so tests poll what they expect (never sleep a fixed time) and fail with `what`.
 */
export async function waitFor<T>(
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  deadlineMs = 20_000,
): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      last = error;
    }
    if (Date.now() > giveUpAt)
      throw new Error(`gave up waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
