import { NextResponse } from "next/server";
import { idleExemptionSchema } from "@/lib/domain/idle-exemption-schema";
import { requireAdmin } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { addIdleExemption, listIdleExemptions } from "@/server/idle-release/idle-exemptions";

export const dynamic = "force-dynamic";

/** Hosts, people and bookings idle release leaves alone, and what report-only mode would have released (admins). */
export const GET = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  return NextResponse.json(await listIdleExemptions(user));
});

export const POST = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const input = idleExemptionSchema.parse(await readJson(request));
  return NextResponse.json(await addIdleExemption(user, input), { status: 201 });
});
