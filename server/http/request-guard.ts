import type { IncomingMessage, ServerResponse } from "node:http";
import { hasUntypeable } from "@/lib/domain/plain-text";

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

/**
 * The largest request body read, in bytes: the API and sign-in take small
 * JSON documents (the largest, a booking or a webhook, is a few KiB); pages
 * take form posts. Anything longer is answered 413 before it is read whole.
 */
export const MAX_API_BODY_BYTES = 256 * 1024;
export const MAX_PAGE_BODY_BYTES = 1024 * 1024;

export function bodyLimitFor(pathname: string): number {
  return pathname === "/api" || pathname.startsWith("/api/") ? MAX_API_BODY_BYTES : MAX_PAGE_BODY_BYTES;
}

function answerTooLarge(req: IncomingMessage, res: ServerResponse, limit: number): void {
  // Whatever the handler behind still writes goes nowhere: the answer is this one.
  res.on("error", () => {});
  if (!res.headersSent) {
    res.statusCode = 413;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    // The rest of the body is not read: the connection ends with this answer.
    res.setHeader("Connection", "close");
    res.end(JSON.stringify({ error: { code: "payload_too_large", message: `The request body is larger than ${limit} bytes` } }));
  }
  res.once("finish", () => req.socket.destroy());
  // An answer that cannot be written (the client stopped reading) must not keep the socket open either.
  setTimeout(() => req.socket.destroy(), 5_000).unref();
}

/**
 * Bounds the body before anyone reads it. A declared Content-Length over the
 * limit is answered at once, unread. A body without one (chunked) is counted
 * as the HTTP parser hands it over: past the limit, no more of it is kept,
 * the answer is 413 and the connection closes, so that at most the limit
 * (plus one network read) is ever held in memory.
 */
function limitBody(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  const limit = bodyLimitFor(pathname);
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limit) {
    req.pause();
    answerTooLarge(req, res, limit);
    return true;
  }
  if (declared !== undefined && req.headers["transfer-encoding"] === undefined) return false;
  let received = 0;
  let over = false;
  const push = req.push.bind(req);
  req.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (over) return false;
    if (chunk !== null && chunk !== undefined) {
      received += (chunk as Buffer).length;
      if (received > limit) {
        over = true;
        req.socket.pause();
        answerTooLarge(req, res, limit);
        return false;
      }
    }
    return push(chunk, encoding);
  };
  return false;
}

/** A path no page has: Next answers it with the not-found page and 404. */
const NOT_FOUND_PATH = "/_gpudesk-not-found";

/**
 * Runs before Next on every HTTP request: sets the security headers and
 * turns a path Next cannot decode (it would answer a plain-text 500) into
 * the JSON 400 of the API or the not-found page, and bounds the request
 * body (413 past `bodyLimitFor`). Answers true when it has
 * already answered the request.
 */
export function guardRequest(req: IncomingMessage, res: ServerResponse): boolean {
  const url = req.url ?? "/";
  const queryAt = url.indexOf("?");
  const pathname = queryAt === -1 ? url : url.slice(0, queryAt);
  for (const [name, value] of Object.entries(securityHeaders(pathname))) res.setHeader(name, value);
  if (limitBody(req, res, pathname)) return true;
  if (!hasBadPercentEncoding(pathname)) return refusePageWithUntypeable(res, pathname, queryAt === -1 ? "" : url.slice(queryAt + 1));
  if (pathname.startsWith("/api/")) {
    res.statusCode = 400;
    res.setHeader("Content-Type", "application/json; charset=utf-8");
    res.end(JSON.stringify({ error: { code: "bad_request", message: "The path holds malformed percent-encoding" } }));
    return true;
  }
  req.url = NOT_FOUND_PATH;
  return false;
}

/**
 * A page's address (`/reservations?q=%00`) holding a character no one types
 * (lib/domain/plain-text.ts) is answered 400 before any page reads it: a
 * page passes its query to the database as the API would (PostgreSQL cannot
 * hold NUL). The API's routes answer the same with the field named
 * (server/http/api-handler.ts), so they go on.
 */
function refusePageWithUntypeable(res: ServerResponse, pathname: string, query: string): boolean {
  if (pathname === "/api" || pathname.startsWith("/api/")) return false;
  const texts = [decodeURIComponent(pathname), ...[...new URLSearchParams(query)].flat()];
  if (!texts.some(hasUntypeable)) return false;
  res.statusCode = 400;
  res.setHeader("Content-Type", "text/plain; charset=utf-8");
  res.end(`This address holds a control character (such as %00) that no page reads.\n`);
  return true;
}
