import { NextResponse } from "next/server";
import { getPrincipal } from "@/server/auth/guard";
import { healthReport } from "@/server/main/health";
import { runtime } from "@/server/runtime/runtime";

export const dynamic = "force-dynamic";

/** Liveness for load balancers and the test harness: answers once the fleet is running. */
export async function GET(request: Request) {
  // A bad or revoked token must not make a health check fail: it is simply anonymous here.
  const principal = await getPrincipal(request).catch(() => null);
  return NextResponse.json(healthReport(runtime(), principal));
}
