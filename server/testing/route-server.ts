import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/** `METHOD /path/with/:params` → the exported handler of an app/api route file. */
export type RouteTable = Record<string, unknown>;

/**
 * Real HTTP in front of app/api route handlers, without Next: for tests of
 * clients (the CLI) that speak HTTP to the server. Each key of `routes` is
 * "METHOD /api/v1/x/:id"; the `:name` parts become the handler's params, as
 * Next's dynamic segments do.
 */
export async function serveRoutes(routes: RouteTable): Promise<{ url: string; close: () => Promise<void> }> {
  const table = Object.entries(routes).map(([key, handler]) => {
    const [method, pattern] = key.split(" ");
    const names: string[] = [];
    const source = pattern.replace(/:([a-zA-Z]+)/g, (_, name: string) => {
      names.push(name);
      return "([^/]+)";
    });
    return { method, regex: new RegExp(`^${source}$`), names, handler: handler as Handler };
  });
  const server = createServer(async (incoming, outgoing) => {
    const url = new URL(incoming.url ?? "/", "http://127.0.0.1");
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    for (const route of table) {
      const match = route.regex.exec(url.pathname);
      if (!match || route.method !== incoming.method) continue;
      const params = Object.fromEntries(route.names.map((name, i) => [name, decodeURIComponent(match[i + 1])]));
      const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
      const request = new Request(url, { method: incoming.method, headers: incoming.headers as Record<string, string>, body });
      const response = await route.handler(request, { params: Promise.resolve(params) });
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
      return;
    }
    outgoing.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
