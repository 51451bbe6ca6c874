import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseComputeAppsCsv, parseQueryGpuCsv } from "@/host/collector/nvidia-smi/parse-csv";
import { parseNvidiaSmiList } from "@/host/collector/nvidia-smi/parse-list";
import { parseNvidiaSmiXml } from "@/host/collector/nvidia-smi/parse-xml";
import { fakeNvidiaSmiPath, ownFixturesDir, readOwnFixture } from "@/host/collector/nvidia-smi/test-fixtures";

/** Runs scripts/fake-nvidia-smi.mjs as an executable, the way the source runs nvidia-smi. */
function fake(args: string[], env: Record<string, string> = {}, timeoutMs?: number) {
  const { FAKE_NVIDIA_SMI_DIR: _dir, FAKE_NVIDIA_SMI_VARY: _vary, ...inherited } = process.env;
  const result = spawnSync(fakeNvidiaSmiPath, args, { env: { ...inherited, ...env }, encoding: "utf8", timeout: timeoutMs });
  return { stdout: result.stdout, stderr: result.stderr, status: result.status };
}
/**
 * Runs the fake in its loop (`-lms`) until it has printed `lines` lines, then
 * stops it: waits on its output, not on the clock, so a slow start on a
 * loaded machine changes nothing.
 */
function fakeLoop(args: string[], env: Record<string, string>, lines: number): Promise<string> {
  const { FAKE_NVIDIA_SMI_DIR: _dir, FAKE_NVIDIA_SMI_VARY: _vary, ...inherited } = process.env;
  const child = spawn(fakeNvidiaSmiPath, args, { env: { ...inherited, ...env } });
  let stdout = "";
  return new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => {
      stdout += chunk;
      if (stdout.split("\n").length - 1 >= lines) child.kill();
    });
    child.on("error", reject);
    child.on("close", () => resolve(stdout.split("\n").slice(0, lines).join("\n")));
  });
}
const hostDir = (folder: string) => ({ FAKE_NVIDIA_SMI_DIR: path.join(ownFixturesDir, folder) });

describe("scripts/fake-nvidia-smi.mjs", () => {
  it("replays the real H200 by default, with exactly the requested fields in order", () => {
    const { stdout, status } = fake(["--query-gpu=name,clocks.sm,memory.used,gpu_uuid,no.such.field", "--format=csv"]);
    expect(status).toBe(0);
    expect(stdout).toBe(
      "name, clocks.current.sm [MHz], memory.used [MiB], uuid, no.such.field\n" +
        "NVIDIA H200, 1980 MHz, 3599 MiB, GPU-ef2803ab-ed44-fce3-aa80-5f09cb377b2d, [N/A]\n",
    );
  });

  it("honours noheader and nounits", () => {
    const { stdout } = fake(["--query-gpu=index,memory.total,power.draw,fan.speed", "--format=csv,noheader,nounits"]);
    expect(stdout).toBe("0, 143771, 120.04, [N/A]\n");
  });

  it("answers process queries with a live timestamp shared by the rows of one query", () => {
    const { stdout } = fake(["--query-compute-apps=timestamp,gpu_uuid,pid,name,used_memory", "--format=csv"], hostDir("two-gpu-host"));
    const rows = parseComputeAppsCsv(stdout);
    expect(rows.map((r) => [r.pid, r.name])).toEqual([
      [48211, "/usr/bin/python3"],
      [48390, "/opt/jobs/sweep, lr=3e-4/bin/trainer"],
      [50102, "/usr/bin/python3"],
    ]);
    const stamps = new Set(rows.map((r) => r.timestamp));
    expect(stamps.size).toBe(1);
    expect([...stamps][0]).toMatch(/^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}\.\d{3}$/);
    expect([...stamps][0]).not.toBe("2026/11/02 14:05:17.204");
  });

  it("prints only the header for a host without processes, and nothing with noheader", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "gpudesk-fake-idle-"));
    try {
      copyFileSync(path.join(ownFixturesDir, "two-gpu-host", "query-compute-apps__idle.csv"), path.join(dir, "query-compute-apps__load.csv"));
      const env = { FAKE_NVIDIA_SMI_DIR: dir };
      expect(fake(["--query-compute-apps=pid,used_memory", "--format=csv"], env).stdout).toBe("pid, used_gpu_memory [MiB]\n");
      expect(fake(["--query-compute-apps=pid", "--format=csv,noheader"], env).stdout).toBe("");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps the CRLF line ends of a Windows recording", () => {
    const { stdout } = fake(["--query-compute-apps=pid,process_name", "--format=csv,noheader"], hostDir("windows-host"));
    expect(stdout.split("\r\n")[2]).toBe("11276, C:\\Users\\mara\\Apps\\Studio, Inc\\render-node.exe");
  });

  it("answers -q -x and -L with the recordings, annotations removed", () => {
    const xml = fake(["-q", "-x"], hostDir("mig-host")).stdout;
    expect(xml.startsWith("<?xml")).toBe(true);
    expect(parseNvidiaSmiXml(xml)).toEqual(parseNvidiaSmiXml(readOwnFixture("mig-host", "query-xml.xml")));
    expect(parseNvidiaSmiList(fake(["-L"], hostDir("mig-host")).stdout)[0].migDevices).toHaveLength(2);
  });

  it("loops with -lms, printing the header once", async () => {
    // The header and three ticks of two GPUs.
    const stdout = await fakeLoop(["--query-gpu=index,uuid", "--format=csv", "-lms", "100"], hostDir("two-gpu-host"), 7);
    const lines = stdout.trim().split("\n");
    expect(lines[0]).toBe("index, uuid");
    expect(lines.filter((l) => l === "index, uuid")).toHaveLength(1);
    expect(lines.length - 1).toBeGreaterThanOrEqual(6);
    expect((lines.length - 1) % 2).toBe(0);
  });

  it("varies utilization and memory over time with FAKE_NVIDIA_SMI_VARY=1, within bounds", async () => {
    const fields = ["uuid", "utilization.gpu", "utilization.memory", "memory.used", "memory.total"];
    const stdout = await fakeLoop([`--query-gpu=${fields.join(",")}`, "--format=csv,noheader,nounits", "-lms", "400"], { ...hostDir("two-gpu-host"), FAKE_NVIDIA_SMI_VARY: "1" }, 8);
    const rows = parseQueryGpuCsv(stdout, fields).map((r) => r.gpu);
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const gpu of rows) {
      expect(gpu.utilizationGpuPct).toBeGreaterThanOrEqual(0);
      expect(gpu.utilizationGpuPct).toBeLessThanOrEqual(100);
      expect(gpu.memoryUsedMiB).toBeLessThanOrEqual(gpu.memoryTotalMiB ?? 0);
    }
    const gpu0 = rows.filter((g) => g.uuid.startsWith("GPU-fcd5"));
    expect(new Set(gpu0.map((g) => `${g.utilizationGpuPct}/${g.memoryUsedMiB}`)).size).toBeGreaterThan(1);
  });

  it("keeps a GPU recorded idle (0 MiB used) idle when varying: memory held with no process would be someone's unseen job", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fake-smi-idle-"));
    try {
      for (const name of ["query-gpu__load.csv", "query-compute-apps__idle.csv"]) copyFileSync(path.join(ownFixturesDir, "two-gpu-host", name), path.join(dir, name));
      copyFileSync(path.join(dir, "query-compute-apps__idle.csv"), path.join(dir, "query-compute-apps__load.csv"));
      const recorded = readOwnFixture("two-gpu-host", "query-gpu__load.csv").replace("40512 MiB, 87 %", "0 MiB, 0 %");
      writeFileSync(path.join(dir, "query-gpu__load.csv"), recorded);
      const { stdout } = fake(["--query-gpu=index,memory.used,utilization.gpu", "--format=csv,noheader"], { FAKE_NVIDIA_SMI_DIR: dir, FAKE_NVIDIA_SMI_VARY: "1" });
      const [idle, loaded] = stdout.trim().split("\n");
      expect(idle).toBe("0, 0 MiB, 0 %");
      expect(loaded).not.toBe("1, 3660 MiB, 12 %");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("leaves N/A utilization of a MIG GPU alone when varying", () => {
    const { stdout } = fake(["--query-gpu=utilization.gpu,memory.used", "--format=csv,noheader"], { ...hostDir("mig-host"), FAKE_NVIDIA_SMI_VARY: "1" });
    expect(stdout).toMatch(/^\[N\/A\], \d+ MiB\n$/);
  });

  it("fails like nvidia-smi on bad arguments and a missing recording", () => {
    expect(fake(["--bogus"]).status).toBe(2);
    const missing = fake(["-L"], { FAKE_NVIDIA_SMI_DIR: "/nonexistent/recording" });
    expect(missing.status).toBe(9);
    expect(missing.stderr).toContain("cannot read /nonexistent/recording/list-L.txt");
  });

  it("replaces a value on every GPU's row from FAKE_NVIDIA_SMI_SET, and logs each tick with what it replaced", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "fake-set-"));
    try {
      const setFile = path.join(dir, "set.txt");
      const tickLog = path.join(dir, "ticks.log");
      writeFileSync(setFile, "utilization.gpu=57 %\nclocks.sm=1234 MHz\n");
      const before = Date.now();
      const { stdout } = fake(["--query-gpu=index,utilization.gpu,clocks.sm,memory.used", "--format=csv,noheader,nounits"], {
        FAKE_NVIDIA_SMI_SET: setFile,
        FAKE_NVIDIA_SMI_TICK_LOG: tickLog,
      });
      expect(stdout).toBe("0, 57, 1234, 3599\n");
      const [at, replaced] = readFileSync(tickLog, "utf8").trim().split(/ (.*)/);
      expect(Number(at)).toBeGreaterThanOrEqual(before);
      expect(JSON.parse(replaced!)).toEqual({ "utilization.gpu": "57 %", "clocks.current.sm": "1234 MHz" });
      // No file (yet): the recording as it is.
      rmSync(setFile);
      expect(fake(["--query-gpu=utilization.gpu", "--format=csv,noheader"], { FAKE_NVIDIA_SMI_SET: setFile }).stdout).toBe("1 %\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

