import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { createDisplay, createDisplaySchema, listDisplays } from "@/server/auth/tokens";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  await requireAdmin(request);
  return NextResponse.json({ displays: await listDisplays() });
});

export const POST = apiHandler(async (request) => {
  await requireAdmin(request);
  const body = createDisplaySchema.parse(await readJson(request));
  const { token, display } = await createDisplay(body.name);
  return NextResponse.json({ token, display }, { status: 201 });
});
