import { NextResponse } from "next/server";
import { recordIdSchema } from "@/lib/domain/alerts";
import { requireAdmin } from "@/server/auth/guard";
import { updateHostSetting } from "@/server/enforcement/host-settings";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { runningServer } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

/** Sets "terminate intruders after a grace period" for one host: `{ terminateIntruders, graceSeconds, killAfterSeconds }`. */
export const PUT = apiHandler(async (request, { params }: { params: Promise<{ hostId: string }> }) => {
  const { user } = await requireAdmin(request);
  const setting = await updateHostSetting(user, recordIdSchema.parse((await params).hostId), await readJson(request));
  runningServer()?.tick?.enforcementSettingsChanged();
  return NextResponse.json(setting);
});
