import { describe, expect, it } from "vitest";
import { CLIENT_PROTO_HEADER } from "@/server/auth/request-origin";
import { publicServerUrl } from "@/server/http/public-url";

const base = { GPUDESK_PUBLIC_URL: undefined, PORT: 3000 };

describe("publicServerUrl", () => {
  it("prefers GPUDESK_PUBLIC_URL", () => {
    expect(publicServerUrl(new Headers({ host: "other:1" }), { ...base, GPUDESK_PUBLIC_URL: "https://gpudesk.lab/" })).toBe("https://gpudesk.lab");
  });

  it("else uses the Host the request was sent to, with the scheme the server stamped", () => {
    expect(publicServerUrl(new Headers({ host: "10.0.0.2:3000" }), base)).toBe("http://10.0.0.2:3000");
    expect(publicServerUrl(new Headers({ host: "gpudesk.lab", [CLIENT_PROTO_HEADER]: "https" }), base)).toBe("https://gpudesk.lab");
  });

  it("does not put a Host that is not a host name into the installer", () => {
    expect(publicServerUrl(new Headers({ host: "x'$(reboot)" }), base)).toBe("http://localhost:3000");
  });
});
