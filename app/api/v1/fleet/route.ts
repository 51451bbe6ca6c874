import { NextResponse } from "next/server";
import { alertsRuntime } from "@/server/alerts/alerts-runtime";
import { requireViewer } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** The live fleet state, the same snapshot browsers get on `/live`, with each GPU's state and who runs on it. */
export const GET = apiHandler(async (request) => {
  await requireViewer(request);
  const gpuStates = alertsRuntime()?.gpuStates();
  return NextResponse.json({ ...runtime().fleet.snapshot(), ...(gpuStates ? { gpuStates } : {}) });
});
