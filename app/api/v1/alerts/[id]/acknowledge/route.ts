import { NextResponse } from "next/server";
import { recordIdSchema } from "@/lib/domain/alerts";
import { acknowledgeAlert } from "@/server/alerts/alert-queries";
import { requireUser } from "@/server/auth/guard";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** "Seen, someone is on it": the alert stays open but leaves the badge. */
export const POST = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await acknowledgeAlert(user, recordIdSchema.parse((await params).id)));
});
