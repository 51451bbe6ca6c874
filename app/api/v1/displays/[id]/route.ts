import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { revokeDisplay, updateDisplay, updateDisplaySchema } from "@/server/auth/tokens";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** A display's settings: `{ namesUnbookedRunner }` (docs/api.md). */
export const PATCH = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  const body = updateDisplaySchema.parse(await readJson(request));
  return NextResponse.json({ display: await updateDisplay((await params).id, body) });
});

export const DELETE = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  await requireAdmin(request);
  await revokeDisplay((await params).id);
  return new NextResponse(null, { status: 204 });
});
