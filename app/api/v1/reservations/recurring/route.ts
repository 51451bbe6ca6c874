import { NextResponse } from "next/server";
import { recurringSchemaFor } from "@/lib/domain/recurrence";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createRecurringBookings } from "@/server/bookings/commands/create-recurring";
import { liveGpuSource } from "@/server/runtime/live-source";

export const dynamic = "force-dynamic";

/** A weekly series, of one host or across nodes: 201 with the bookings made and the occurrences refused (each with its reason). */
export const POST = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const body = await readJson(request);
  const input = recurringSchemaFor(body).parse(body);
  const result = await createRecurringBookings(user, input, { fleet: liveGpuSource() });
  return NextResponse.json(result, { status: 201 });
});
