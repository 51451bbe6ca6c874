/** The one line that puts gpudesk on a GPU host (server/downloads/install.sh does the rest). */
export function installLine(serverUrl: string, token: string): string {
  return `curl -fsSL ${serverUrl.replace(/\/+$/, "")}/install.sh | sudo sh -s -- --token ${token}`;
}

/** True for an address that only this machine can reach: GPU hosts could not use it. */
export function isLoopbackUrl(serverUrl: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(serverUrl).hostname;
  } catch {
    return false;
  }
  return hostname === "localhost" || hostname.endsWith(".localhost") || hostname === "[::1]" || /^127\./.test(hostname) || hostname === "0.0.0.0";
}
