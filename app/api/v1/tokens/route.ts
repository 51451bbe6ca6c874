import { NextResponse } from "next/server";
import { z } from "zod";
import { requireUser } from "@/server/auth/guard";
import { createPersonalToken, listPersonalTokens, tokenLabelSchema } from "@/server/auth/tokens";
import { apiHandler, readJson } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

const createTokenSchema = z.object({ label: tokenLabelSchema });

export const GET = apiHandler(async (request) => {
  const principal = await requireUser(request);
  return NextResponse.json({ tokens: await listPersonalTokens(principal.user.id) });
});

/** Answers the token itself this once; afterwards only its prefix is ever shown. */
export const POST = apiHandler(async (request) => {
  const principal = await requireUser(request);
  const body = createTokenSchema.parse(await readJson(request));
  const { token, summary } = await createPersonalToken(principal.user.id, body.label);
  return NextResponse.json({ token, ...summary }, { status: 201 });
});
