import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { updateUser } from "@/server/auth/users";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const PATCH = apiHandler(async (request, { params }: { params: Promise<{ id: string }> }) => {
  const admin = await requireAdmin(request);
  const user = await updateUser((await params).id, await readJson(request), admin);
  return NextResponse.json({ user });
});
