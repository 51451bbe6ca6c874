/**
 * Waits until this server answers its own health check over HTTP, the way
 * a load balancer or a person's browser would reach it. "Ready" in the log
 * means that: listening alone is not enough, since Next loads a route on its
 * first request and work started at boot may still hold the event loop.
 */
export async function untilAnswering(port: number, host: string, options: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<boolean> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  const url = `http://${probeHost(host)}:${port}/api/health`;
  while (Date.now() < deadline && !options.signal?.aborted) {
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      await response.body?.cancel();
      if (response.ok) return true;
    } catch {
      // Not answering yet (or slower than the attempt's own limit): try again.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

/** The address to reach a server that listens on `host`: a wildcard is reached on the loopback. */
export function probeHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}
