import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { listHostEnforcement } from "@/server/enforcement/host-settings";
import { apiHandler } from "@/server/http/api-handler";
import { runningServer } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

/** Every host's enforcement setting, and whether its agent allows enforcement now (admins). */
export const GET = apiHandler(async (request) => {
  await requireAdmin(request);
  const tick = runningServer()?.tick;
  return NextResponse.json({ hosts: await listHostEnforcement((hostId) => tick?.agentAllowsEnforcement(hostId) ?? false) });
});
