import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardRequest, hasBadPercentEncoding, securityHeaders } from "@/server/http/request-guard";

describe("hasBadPercentEncoding", () => {
  it("finds percent signs that do not decode", () => {
    for (const path of ["/api/v1/reservations/%ff", "/gpus/%ff", "/gpus/%", "/gpus/%zz", "/a/%c3"]) expect(hasBadPercentEncoding(path)).toBe(true);
    for (const path of ["/gpus/GPU-1", "/gpus/%20x", "/gpus/%C3%A9", "/"]) expect(hasBadPercentEncoding(path)).toBe(false);
  });
});

describe("securityHeaders", () => {
  it("forbids framing except on the wall display", () => {
    expect(securityHeaders("/")["X-Frame-Options"]).toBe("DENY");
    expect(securityHeaders("/displayx")["X-Frame-Options"]).toBe("DENY");
    expect(securityHeaders("/display")["X-Frame-Options"]).toBeUndefined();
    expect(securityHeaders("/display")["X-Content-Type-Options"]).toBe("nosniff");
  });
});

describe("guardRequest in front of a handler", () => {
  let server: Server;
  let base: string;
  const reached: string[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (guardRequest(req, res)) return;
      reached.push(req.url ?? "");
      res.end("page");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers a malformed API path with the JSON 400", async () => {
    const response = await fetch(`${base}/api/v1/reservations/%ff`);
    expect(response.status).toBe(400);
    expect((await response.json()).error.code).toBe("bad_request");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("sends a malformed page path on to the not-found page", async () => {
    const response = await fetch(`${base}/gpus/%ff?x=1`);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(reached.at(-1)).toBe("/_gpudesk-not-found");
  });
});
