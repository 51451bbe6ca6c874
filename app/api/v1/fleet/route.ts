import { NextResponse } from "next/server";
import { requireViewer } from "@/server/auth/guard";
import { readDisplayFleetAnswer, readFleetAnswer } from "@/server/fleet/fleet-answer";
import { apiHandler } from "@/server/http/api-handler";
import { runtime } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

/** The live fleet with each GPU's state, its booking now and who runs on it (docs/api.md); a display token gets the display scope. */
export const GET = apiHandler(async (request) => {
  const principal = await requireViewer(request);
  const { fleet } = runtime();
  if (principal.kind === "display") {
    return NextResponse.json(await readDisplayFleetAnswer(fleet, new Date(), { namesUnbookedRunner: principal.display.namesUnbookedRunner }));
  }
  return NextResponse.json(await readFleetAnswer(fleet, new Date()));
});
