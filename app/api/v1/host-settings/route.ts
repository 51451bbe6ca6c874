import { NextResponse } from "next/server";
import { alertsRuntime } from "@/server/alerts/alerts-runtime";
import { requireAdmin } from "@/server/auth/guard";
import { listHostEnforcement } from "@/server/enforcement/host-settings";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** Every host's enforcement setting, and whether its agent allows enforcement now (admins). */
export const GET = apiHandler(async (request) => {
  await requireAdmin(request);
  const runtime = alertsRuntime();
  return NextResponse.json({ hosts: await listHostEnforcement((hostId) => runtime?.agentAllowsEnforcement(hostId) ?? false) });
});
