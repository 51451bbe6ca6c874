import { createServer, request as httpRequest, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guardRequest, hasBadPercentEncoding, MAX_API_BODY_BYTES, securityHeaders } from "@/server/http/request-guard";

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

  it("answers a page address holding a control character with 400 before any page reads it; the API's routes name the field themselves", async () => {
    for (const address of ["/reservations?q=%00", "/reservations?q=a%01b", "/gpus/GPU-%00/x", "/admin/audit?person=x&person=%7F"]) {
      const response = await fetch(`${base}${address}`);
      expect({ address, status: response.status }).toEqual({ address, status: 400 });
      expect(await response.text()).toContain("control character");
    }
    expect(reached.filter((url) => url.includes("%0") || url.includes("%7F"))).toEqual([]);
    // Tab, line feed and text of any script go on; the API's routes answer with the field named (api-handler.ts).
    for (const address of ["/reservations?q=a%09b%0Ac", "/reservations?q=%C3%A9t%C3%A9", "/api/v1/audit?person=%00"]) {
      await fetch(`${base}${address}`);
      expect(reached.at(-1)).toBe(address);
    }
  });

  it("sends a malformed page path on to the not-found page", async () => {
    const response = await fetch(`${base}/gpus/%ff?x=1`);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(reached.at(-1)).toBe("/_gpudesk-not-found");
  });
});

describe("request bodies are bounded before they are read", () => {
  let server: Server;
  let base: string;
  /** Bytes of each body the handler behind the guard got to read. */
  const read: number[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      if (guardRequest(req, res)) return;
      const slot = read.push(0) - 1;
      req.on("data", (chunk: Buffer) => (read[slot] += chunk.length));
      req.on("end", () => res.end("read"));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers a declared 300 MiB sign-in with 413 before a byte of it is sent", async () => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => (answer += chunk));
    // Headers only: the body never comes, so an answer proves nothing waited for it.
    socket.write(`POST /api/auth/sign-in/username HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${300 * 1024 * 1024}\r\n\r\n`);
    await new Promise<void>((resolve) => socket.on("close", () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('"code":"payload_too_large"');
  });

  it("stops a streamed (chunked) body at the limit: 413, and the handler never holds more than the limit", async () => {
    const chunk = Buffer.alloc(64 * 1024, 120);
    const total = 64 * 1024 * 1024;
    let sent = 0;
    const outcome = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const request = httpRequest(`${base}/api/v1/reservations`, { method: "POST", headers: { "content-type": "application/json" } }, (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (text: string) => (body += text));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      });
      request.on("error", reject);
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!request.write(chunk)) return void request.once("drain", pump);
        }
        request.end();
      };
      pump();
    });
    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body).error.code).toBe("payload_too_large");
    // The server closed the connection long before the client could send its 64 MiB.
    expect(sent).toBeLessThan(total);
    expect(read.length).toBe(1);
    expect(read[0]).toBeLessThanOrEqual(MAX_API_BODY_BYTES);
  });

  it("lets a body within the limit through whole", async () => {
    read.length = 0;
    const body = "x".repeat(MAX_API_BODY_BYTES - 10);
    const response = await fetch(`${base}/api/v1/reservations`, { method: "POST", body });
    expect(response.status).toBe(200);
    expect(read[0]).toBe(body.length);
  });
});
