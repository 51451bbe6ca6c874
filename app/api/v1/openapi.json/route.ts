import { NextResponse } from "next/server";
import { env } from "@/server/core/env";
import { apiHandler } from "@/server/http/api-handler";
import { openApiDocument } from "@/server/http/openapi";
import { publicServerUrl } from "@/server/http/public-url";

export const dynamic = "force-dynamic";

/** The REST API described as OpenAPI 3.1, from the zod schemas the routes parse (no sign-in: it describes, it holds nothing). */
export const GET = apiHandler(async (request) => NextResponse.json(openApiDocument(publicServerUrl(request.headers, env()))));
