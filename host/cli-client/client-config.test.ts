import { mkdtemp, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { configPath, loadClientConfig, parseClientEnv, saveClientConfig } from "@/host/cli-client/client-config";

describe("client config", () => {
  it("lives in XDG_CONFIG_HOME, else ~/.config", () => {
    expect(configPath({ XDG_CONFIG_HOME: "/x", HOME: "/home/a" })).toBe("/x/gpudesk/config.json");
    expect(configPath({ HOME: "/home/a" })).toBe("/home/a/.config/gpudesk/config.json");
  });

  it("stores URL and token owner-only and reads them back; the environment wins", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "gpudesk-config-"));
    const env = parseClientEnv({ XDG_CONFIG_HOME: dir });
    const file = await saveClientConfig(env, { url: "http://gpudesk.lab:3000", token: "gpd_pat_x" });
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, "utf8"))).toEqual({ url: "http://gpudesk.lab:3000", token: "gpd_pat_x" });
    expect(await loadClientConfig(env)).toEqual({ url: "http://gpudesk.lab:3000", token: "gpd_pat_x" });
    expect(await loadClientConfig({ ...env, GPUDESK_TOKEN: "gpd_pat_env" })).toEqual({ url: "http://gpudesk.lab:3000", token: "gpd_pat_env" });
  });

  it("says how to log in when nothing is configured, and rejects a bad URL", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "gpudesk-config-"));
    await expect(loadClientConfig(parseClientEnv({ XDG_CONFIG_HOME: dir }))).rejects.toThrow(/gpudesk login/);
    expect(() => parseClientEnv({ GPUDESK_URL: "gpudesk.lab" })).toThrow(/http/);
  });
});
