import { NextResponse } from "next/server";
import { policySchema } from "@/lib/domain/booking-schema";
import { requireAdmin, requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { getPolicy, updatePolicy } from "@/server/bookings/rules/policy";

export const dynamic = "force-dynamic";

/** The booking rules: everyone may read them (the form shows the limits). */
export const GET = apiHandler(async (request) => {
  await requireUser(request);
  return NextResponse.json(await getPolicy());
});

export const PUT = apiHandler(async (request) => {
  const { user } = await requireAdmin(request);
  const input = policySchema.parse(await readJson(request));
  return NextResponse.json(await updatePolicy(user, input));
});
