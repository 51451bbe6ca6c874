import { NextResponse } from "next/server";
import { auditQuerySchema, searchParamsObject } from "@/lib/domain/booking-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { listAudit } from "@/server/access/audit-log";

export const dynamic = "force-dynamic";

/** The audit log: who did what, when, from where, before and after; newest first, `?cursor=` for older, filtered by kind, person and time. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const query = auditQuerySchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json(await listAudit(user, query));
});
