import { NextResponse } from "next/server";
import { updateMeSchema } from "@/lib/domain/account-schema";
import { answersFor } from "@/server/access/permissions";
import { requireUser } from "@/server/auth/guard";
import { readTimeZone, updateTimeZone } from "@/server/auth/time-zone-setting";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  const principal = await requireUser(request);
  // `can`: what the pages may offer this person, the answers of server/access/permissions.ts.
  return NextResponse.json({ user: { ...principal.user, timeZone: await readTimeZone(principal.user.id) }, via: principal.via, can: answersFor(principal.user) });
});

/** The person's own settings: `{ timeZone }` (an IANA zone, or null for the browser's). */
export const PATCH = apiHandler(async (request) => {
  const principal = await requireUser(request);
  const body = updateMeSchema.parse(await readJson(request));
  return NextResponse.json(await updateTimeZone(principal.user.id, body));
});
