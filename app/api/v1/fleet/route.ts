import { NextResponse } from "next/server";
import { requireViewer } from "@/server/auth/guard";
import { readFleetAnswer } from "@/server/fleet/fleet-answer";
import { apiHandler } from "@/server/http/api-handler";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** The live fleet with each GPU's state, its booking now and who runs on it (docs/api.md). */
export const GET = apiHandler(async (request) => {
  await requireViewer(request);
  return NextResponse.json(await readFleetAnswer(runtime().fleet, new Date()));
});
