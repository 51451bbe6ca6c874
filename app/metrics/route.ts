import { apiHandler } from "@/server/http/api-handler";
import { env } from "@/server/core/env";
import { authorizeMetrics, collectMetrics } from "@/server/metrics/collect-metrics";

export const dynamic = "force-dynamic";

/** Prometheus scrape endpoint: dcgm-exporter's GPU series plus gpudesk's own. */
export const GET = apiHandler(async (request) => {
  await authorizeMetrics(request, env().GPUDESK_METRICS_PUBLIC);
  const { contentType, body } = await collectMetrics();
  return new Response(body, { headers: { "content-type": contentType, "cache-control": "no-store" } });
});
