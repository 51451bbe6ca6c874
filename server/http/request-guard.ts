import type { IncomingMessage, ServerResponse } from "node:http";

/** Headers on every answer. Pages may not be framed (clickjacking), except the wall display, which labs embed in their own dashboards. */
export function securityHeaders(pathname: string): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    // Display links carry a token in the query string: it must not leak to other sites.
    "Referrer-Policy": "same-origin",
  };
  if (!/^\/display(\/|$)/.test(pathname)) {
    headers["X-Frame-Options"] = "DENY";
    headers["Content-Security-Policy"] = "frame-ancestors 'none'";
  }
  return headers;
}

/** Whether a path holds a percent sign that does not start valid UTF-8 percent-encoding (`/gpus/%ff`). */
export function hasBadPercentEncoding(pathname: string): boolean {
  try {
    decodeURIComponent(pathname);
    return false;
  } catch {
    return true;
  }
}

/** A path no page has: Next answers it with the not-found page and 404. */
const NOT_FOUND_PATH = "/_gpudesk-not-found";

/**
 * Runs before Next on every HTTP request: sets the security headers and
 * turns a path Next cannot decode (it would answer a plain-text 500) into
 * the JSON 400 of the API or the not-found page. Answers true when it has
 * already answered the request.
 */
export function guardRequest(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  for (const [name, value] of Object.entries(securityHeaders(pathname))) res.setHeader(name, value);
  if (!hasBadPercentEncoding(pathname)) return false;
  if (pathname.startsWith("/api/")) {
    res.statusCode = 400;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(JSON.stringify({ error: { code: "bad_request", message: "The path holds malformed percent-encoding" } }));
    return true;
  }
  req.url = NOT_FOUND_PATH;
  return false;
}
