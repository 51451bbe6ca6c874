import { AppError } from "@/server/core/errors";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ path?: string[] }> };

/**
 * Any /api/v1 path that no route file answers: the API's JSON 404, not the
 * HTML page (Next tries every route more specific than this catch-all first).
 */
const unknownRoute = apiHandler<Context>(async (request, { params }) => {
  const { path = [] } = await params;
  throw new AppError("not_found", `There is no API endpoint ${request.method} /api/v1/${path.join("/")} (the endpoints: /api/v1/openapi.json)`);
});

export const GET = unknownRoute;
export const POST = unknownRoute;
export const PUT = unknownRoute;
export const PATCH = unknownRoute;
export const DELETE = unknownRoute;
