import { NextResponse } from "next/server";
import { summarizeAlerts } from "@/server/alerts/alert-queries";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** The header badge's numbers: open alerts that concern me, and how many nobody acknowledged. */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await summarizeAlerts(user));
});
