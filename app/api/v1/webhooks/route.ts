import { NextResponse } from "next/server";
import { webhookScopeSchema } from "@/lib/domain/alerts";
import { searchParamsObject } from "@/lib/domain/booking-schema";
import { requireUser } from "@/server/auth/guard";
import { apiHandler, readJson } from "@/server/http/api-handler";
import { createWebhook, listWebhooks } from "@/server/notifications/webhooks";

export const dynamic = "force-dynamic";

/** `?scope=personal` (default): my webhooks; `?scope=admin`: the fleet-wide ones (admins). */
export const GET = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  const { scope } = webhookScopeSchema.parse(searchParamsObject(new URL(request.url).searchParams));
  return NextResponse.json({ webhooks: await listWebhooks(user, scope) });
});

/** Adds a webhook: `{ url, format: "slack" | "json", kinds: [...], scope: "personal" | "admin" }`. */
export const POST = apiHandler(async (request) => {
  const { user } = await requireUser(request);
  return NextResponse.json(await createWebhook(user, await readJson(request)), { status: 201 });
});
