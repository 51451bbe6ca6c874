import { NextResponse } from "next/server";
import { reservationChangeSchema, reservationIdSchema } from "@/lib/domain/reservation-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { changeReservationEnd } from "@/server/bookings/commands/change-booking";
import { getReservation } from "@/server/bookings/views/list-bookings";

export const dynamic = "force-dynamic";

type Context = { params: Promise<{ id: string }> };

/** One of my reservations (any, for an admin), with its launch settings and changes. */
export const GET = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  const id = reservationIdSchema.parse((await params).id);
  return NextResponse.json(await getReservation(user, id));
});

/** Extends or shortens: `{ "endsAt": "…" }` or `{ "addMinutes": 30 }`, plus `"reason"` when an admin shortens someone's. */
export const PATCH = apiHandler(async (request, { params }: Context) => {
  const { user } = await requireUser(request);
  const id = reservationIdSchema.parse((await params).id);
  const change = reservationChangeSchema.parse(await readJson(request));
  return NextResponse.json(await changeReservationEnd(user, id, change));
});
