import { installScriptResponse } from "@/server/main/serve-downloads";
import { apiHandler } from "@/server/http/api-handler";

export const dynamic = "force-dynamic";

/** `curl -fsSL SERVER/install.sh | sudo sh -s -- --token gpd_host_…` (no sign-in: the token is the host's to give). */
export const GET = apiHandler(async (request) => installScriptResponse(request));
