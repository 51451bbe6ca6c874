import { NextResponse } from "next/server";
import { requireAdmin } from "@/server/auth/guard";
import { createUser, listUsers } from "@/server/auth/users";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

export const GET = apiHandler(async (request) => {
  await requireAdmin(request);
  return NextResponse.json({ users: await listUsers() });
});

export const POST = apiHandler(async (request) => {
  await requireAdmin(request);
  const user = await createUser(await readJson(request));
  return NextResponse.json({ user }, { status: 201 });
});
