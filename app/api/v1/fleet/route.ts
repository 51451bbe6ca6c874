import { NextResponse } from "next/server";
import { requireViewer } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** The live fleet state, the same snapshot browsers get on `/live`. */
export const GET = apiHandler(async (request) => {
  await requireViewer(request);
  return NextResponse.json(runtime().fleet.snapshot());
});
