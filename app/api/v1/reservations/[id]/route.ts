import { NextResponse } from "next/server";
import { bookingChangeSchema, bookingIdSchema } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { changeBookingEnd } from "@/server/bookings/commands/change-booking";
import { getBooking } from "@/server/bookings/views/list-bookings";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** One of my bookings (any, for an admin), with its launch settings and changes. */
export const GET = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  return NextResponse.json(await getBooking(user, id));
});

/** Extends or shortens: `{ "endsAt": "…" }` or `{ "addMinutes": 30 }`, plus `"reason"` when an admin shortens someone's. */
export const PATCH = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  const id = bookingIdSchema.parse((await params).id);
  const change = bookingChangeSchema.parse(await readJson(request));
  return NextResponse.json(await changeBookingEnd(user, id, change));
});
