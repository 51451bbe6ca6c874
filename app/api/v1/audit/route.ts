import { NextResponse } from "next/server";
import { auditQuerySchema, searchParamsObject } from "@/lib/reservation-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { listAudit } from "@/server/audit/audit-log";

export const dynamic = "force-dynamic";

/** Who changed which booking or rule, when, before and after; newest first, `?cursor=` for older. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const query = auditQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json(await listAudit(user, query));
});
