import { describe, expect, it } from "vitest";
import { describeClient, requestOrigin } from "@/server/auth/request-origin";

describe("the client address and scheme", () => {
  const socket = { remoteAddress: "10.0.0.2" };

  it("without a trusted proxy, forwarded headers are ignored", () => {
    expect(describeClient({ "x-forwarded-for": "1.2.3.4", "x-forwarded-proto": "https" }, socket, false)).toEqual({ ip: "10.0.0.2", proto: "http" });
  });

  it("behind a trusted proxy, the right-most X-Forwarded-For hop (the one the proxy wrote) counts", () => {
    // A client that sends its own X-Forwarded-For gets the proxy's entry appended after it.
    expect(describeClient({ "x-forwarded-for": "6.6.6.6, 203.0.113.9" }, socket, true).ip).toBe("203.0.113.9");
    expect(describeClient({ "x-forwarded-for": ["6.6.6.6", "203.0.113.7"] }, socket, true).ip).toBe("203.0.113.7");
    expect(describeClient({}, socket, true).ip).toBe("10.0.0.2");
  });

  it("behind a trusted proxy, X-Forwarded-Proto says whether the browser talks HTTPS", () => {
    expect(describeClient({ "x-forwarded-proto": "https" }, socket, true).proto).toBe("https");
    expect(describeClient({ "x-forwarded-proto": "gopher" }, socket, true).proto).toBe("http");
  });
});

describe("requestOrigin", () => {
  it("builds the origin from Host and the stamped scheme", () => {
    expect(requestOrigin(new Headers({ host: "GPUDESK.lab:3000" }))).toBe("http://gpudesk.lab:3000");
    expect(requestOrigin(new Headers({ host: "[::1]:3000", "x-gpudesk-proto": "https" }))).toBe("https://[::1]:3000");
  });

  it("refuses a Host header that is not a plain host", () => {
    for (const host of ["evil.example/path", "a@b", "", "host name"]) expect(requestOrigin(new Headers({ host }))).toBeNull();
  });
});
