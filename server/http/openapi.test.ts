import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { openApiDocument } from "@/server/http/openapi";
import { repoRoot } from "@/server/core/paths";

/** Every `app/api/v1/**\/route.ts` as OpenAPI operations: "get /api/v1/hosts/{id}", from the file's exported handlers. */
function routeOperations(): string[] {
  const found: string[] = [];
  const visit = (dir: string) => {
    for (const entry of readdirSync(path.join(repoRoot, dir), { withFileTypes: true })) {
      const relative = path.join(dir, entry.name);
      // The catch-all answers unknown paths with a 404; it is no operation.
      if (entry.isDirectory()) {
        if (!entry.name.startsWith("[...")) visit(relative);
      }
      else if (entry.name === "route.ts") {
        const source = readFileSync(path.join(repoRoot, relative), "utf8");
        const apiPath = `/${path.dirname(relative).split(path.sep).slice(1).join("/")}`.replace(/\[(\w+)\]/g, "{$1}");
        for (const match of source.matchAll(/^export const (GET|POST|PUT|PATCH|DELETE)\b/gm)) found.push(`${match[1].toLowerCase()} ${apiPath}`);
      }
    }
  };
  visit("app/api/v1");
  return found.sort();
}

describe("the OpenAPI document", () => {
  const document = openApiDocument("http://gpudesk.lab:3000") as { openapi: string; paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>> };
  const documented = Object.entries(document.paths)
    .flatMap(([apiPath, methods]) => Object.keys(methods).map((method) => `${method} ${apiPath}`))
    .sort();

  it("describes exactly the routes under app/api/v1", () => {
    const routes = routeOperations();
    expect(routes.length).toBeGreaterThan(40);
    expect(documented).toEqual(routes);
  });

  it("is OpenAPI 3.1 with request bodies from the routes' zod schemas", () => {
    expect(document.openapi).toBe("3.1.0");
    const booking = document.paths["/api/v1/reservations"].post.requestBody?.content["application/json"].schema as { anyOf: { properties: Record<string, unknown> }[] };
    // One host, or across nodes: the two bodies the route tells apart.
    expect(Object.keys(booking.anyOf[0].properties)).toEqual(expect.arrayContaining(["host", "count", "purpose"]));
    expect(Object.keys(booking.anyOf[1].properties)).toEqual(expect.arrayContaining(["nodes", "gpusPerNode", "model", "parts", "purpose"]));
    expect(JSON.parse(JSON.stringify(document))).toEqual(document);
  });
});
