// What the routes need to answer GPU hosts: no esbuild, no file system (the
// bundle and the installer were read into memory when the server started).

/** What GPU hosts download from this server: the host bundle and the installer that fetches it. */
export interface HostDownloads {
  version: string;
  bundle: Buffer;
  bundleSha256: string;
  /** server/downloads/install.sh with its placeholders; see renderInstallScript. */
  installTemplate: string;
}

/** The installer for hosts of this server: its address, version and the bundle's checksum filled in. */
export function renderInstallScript(downloads: HostDownloads, serverUrl: string): string {
  // The values go between single quotes in the script: an address is a URL (no quote in it), checked again by the script.
  const quoted = (value: string) => value.replaceAll("'", "");
  return downloads.installTemplate
    .replace("__GPUDESK_SERVER_URL__", quoted(serverUrl))
    .replace("__GPUDESK_VERSION__", quoted(downloads.version))
    .replace("__GPUDESK_BUNDLE_SHA256__", downloads.bundleSha256);
}
