import { describe, expect, it } from "vitest";
import { installLine, installLineWithTokenFile, isLoopbackUrl } from "@/lib/install-line";

describe("installLine", () => {
  it("is the curl | sudo sh line with the server's address, and no token (the installer asks for it)", () => {
    expect(installLine("http://gpudesk.lab:3000/")).toBe("curl -fsSL http://gpudesk.lab:3000/install.sh | sudo sh");
    expect(installLineWithTokenFile("http://gpudesk.lab:3000/")).toBe("curl -fsSL http://gpudesk.lab:3000/install.sh | sudo sh -s -- --token-file /root/gpudesk-host-token");
  });

  it("tells addresses that only this machine reaches", () => {
    for (const url of ["http://localhost:3000", "http://127.0.0.1:3000", "http://[::1]:3000", "http://0.0.0.0:3000"]) expect(isLoopbackUrl(url), url).toBe(true);
    for (const url of ["http://gpudesk.lab:3000", "https://10.0.0.5", "http://localhost.example.org"]) expect(isLoopbackUrl(url), url).toBe(false);
  });
});
