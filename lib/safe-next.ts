/** Stands in for this site's origin: `next` is resolved against it and must stay on it. */
const SITE = "http://gpudesk.invalid";

/**
 * The page to open after sign-in: `next` when it names a page of this site,
 * else "/". Checked the way a browser reads it (URL parsing turns `\` into
 * `/` and drops tabs and newlines, so `/\evil.example` and `/<tab>/evil.example`
 * are other sites), and returned re-serialized, so that what is checked is
 * what the browser follows.
 */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/")) return "/";
  let url: URL;
  try {
    url = new URL(next, SITE);
  } catch {
    return "/";
  }
  // A path that starts with "//" is read as another host when the browser follows it.
  if (url.origin !== SITE || url.pathname.startsWith("//")) return "/";
  return `${url.pathname}${url.search}${url.hash}`;
}
