import { NextResponse } from "next/server";
import { ZodError } from "zod";
import { withAuditOrigin } from "@/server/core/audit-context";
import { CLIENT_IP_HEADER } from "@/server/auth/request-origin";
import { DATABASE_BUSY_RETRY_SECONDS, databaseBusyError, isDatabaseTimeout } from "@/server/core/database-busy";
import { AppError } from "@/server/core/errors";
import { refuseUntypeable, refuseUntypeableQuery } from "@/server/core/refuse-untypeable";
import { log } from "@/server/core/log";
import { answerWithDeprecatedNames } from "@/server/http/deprecated-names";

/** Turns zod issues into `{ field: message }` for forms; the first issue per field wins. */
export function fieldErrors(error: ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const key = issue.path.join(".") || "_";
    fields[key] ??= issue.message;
  }
  return fields;
}

/** The one mapping from errors to HTTP: `{ error: { code, message, fields? } }`. */
export function errorResponse(error: unknown): NextResponse {
  if (error instanceof AppError) return NextResponse.json(error.toJSON(), { status: error.status });
  if (error instanceof ZodError) {
    const body = new AppError("bad_request", "Some fields are not valid", fieldErrors(error));
    return NextResponse.json(body.toJSON(), { status: 400 });
  }
  if (isDatabaseTimeout(error)) {
    log.warn(`database busy: ${error instanceof Error ? error.message.split("\n").at(-1) : String(error)}`);
    const busy = databaseBusyError();
    return NextResponse.json(busy.toJSON(), { status: busy.status, headers: { "Retry-After": String(DATABASE_BUSY_RETRY_SECONDS) } });
  }
  log.error(`unexpected error in an API route: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  return NextResponse.json({ error: { code: "internal", message: "Something went wrong on the server" } }, { status: 500 });
}

type Handler<C> = (request: Request, context: C) => Promise<Response>;

/**
 * Wraps a route handler so that every thrown error becomes the JSON error
 * shape, every audit entry written while it runs names the client's
 * address (stamped by the custom server, never taken from the client), and
 * its JSON answer carries the names of before 0.4 too (deprecated-names.ts).
 */
export function apiHandler<C>(handler: Handler<C>): Handler<C> {
  return async (request, context) =>
    withAuditOrigin({ ip: request.headers.get(CLIENT_IP_HEADER), via: "web" }, async () => {
      try {
        await refuseUntypeableAddress(request, context);
        return await answerWithDeprecatedNames(await handler(request, context));
      } catch (error) {
        return answerWithDeprecatedNames(errorResponse(error));
      }
    });
}

/** Reads a JSON body, answering 400 (not 500) for a body that is not JSON or whose text holds a control character. */
export async function readJson(request: Request): Promise<unknown> {
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    throw new AppError("bad_request", "The request body must be JSON");
  }
  refuseUntypeable(body);
  return body;
}

/** The query string's and the path's parameters (`/gpus/%00/history`), by name. */
async function refuseUntypeableAddress(request: Request, context: unknown): Promise<void> {
  refuseUntypeableQuery(new URL(request.url).searchParams);
  const params = (context as { params?: Promise<unknown> } | undefined)?.params;
  if (params) refuseUntypeable(await params);
}
