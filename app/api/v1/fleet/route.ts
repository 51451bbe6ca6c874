import { NextResponse } from "next/server";
import { requireViewer } from "@/server/auth/guard";
import { readDisplayFleetAnswer, readFleetAnswer } from "@/server/fleet/fleet-answer";
import { apiHandler } from "@/server/http/api-handler";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** The live fleet with each GPU's state, its booking now and who runs on it (docs/api.md); a display token gets the display scope. */
export const GET = apiHandler(async (request) => {
  const principal = await requireViewer(request);
  const read = principal.kind === "display" ? readDisplayFleetAnswer : readFleetAnswer;
  return NextResponse.json(await read(runtime().fleet, new Date()));
});
