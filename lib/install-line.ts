/**
 * The one line that puts gpudesk on a GPU host (server/downloads/install.sh
 * does the rest). The token is not in it: the installer asks for it on the
 * terminal, so that it never shows in `ps` or the shell's history.
 */
export function installLine(serverUrl: string): string {
  return `curl -fsSL ${serverUrl.replace(/\/+$/, "")}/install.sh | sudo sh`;
}

/** The same without a terminal (automation): the token from a root-only file. */
export function installLineWithTokenFile(serverUrl: string, tokenFile = "/root/gpudesk-host-token"): string {
  return `curl -fsSL ${serverUrl.replace(/\/+$/, "")}/install.sh | sudo sh -s -- --token-file ${tokenFile}`;
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
