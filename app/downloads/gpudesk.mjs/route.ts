import { hostBundleResponse } from "@/server/main/serve-downloads";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** The one-file agent and member CLI for GPU hosts (no sign-in: it holds no secret). */
export const GET = apiHandler(async () => hostBundleResponse());
