import { NextResponse } from "next/server";
import { runtime } from "@/server/runtime";

export const dynamic = "force-dynamic";

/** Liveness for load balancers and the test harness: answers once the fleet is running. */
export function GET() {
  const { fleet, ingest, cluster } = runtime();
  return NextResponse.json({ ok: true, gpus: fleet.gpuCount, ingest: ingest.counters, cluster: cluster?.() });
}
