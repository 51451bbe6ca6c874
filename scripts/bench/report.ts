/** The benchmark's markdown tables, from its JSON results. */
import type { BrowserResult } from "./browser";
import type { ScenarioResult } from "./scenario";
import type { LatencySummary } from "./stats";

export interface BenchResults {
  startedAt: string;
  machine: { cpuModel: string; cores: number; memoryGiB: number; node: string; commit: string };
  scenarios: (ScenarioResult | { gpus: number; instances: number; skipped: string })[];
  browser: BrowserResult | null;
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : "–");
const percent = (part: number, whole: number) => (whole === 0 ? "–" : `${((100 * part) / whole).toFixed(part === 0 ? 0 : 2)} %`);

export function formatTables(results: BenchResults): string {
  const { machine } = results;
  const lines = [
    `Run ${results.startedAt.slice(0, 16).replace("T", " ")} UTC, commit ${machine.commit}: ${machine.cpuModel}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}. Everything (server, agents, viewers, browser) on this one machine.`,
    "",
    "| GPUs | instances | viewers | latency p50 / p95 / p99 (ms) | first viewer per process p50 / p99 (ms) | lost | late (> 1 s) | server CPU (cores) | server RSS (MiB, max) | event-loop delay p99 / max (ms) | delta per viewer (KiB/s) | harness CPU: agents + viewers (cores) | load avg (1 min, after) |",
    "|---:|---:|---:|---|---|---:|---:|---:|---:|---|---:|---:|---:|",
  ];
  for (const scenario of results.scenarios) {
    if ("skipped" in scenario) {
      lines.push(`| ${scenario.gpus} | ${scenario.instances} | – | ${scenario.skipped} | | | | | | | | | |`);
      continue;
    }
    const s = scenario;
    const cpu = s.servers.map((server) => fixed(server.cpuCores, 2)).join(" + ");
    const rss = s.servers.map((server) => fixed(server.rssMiB.max)).join(" + ");
    const loop = s.servers.map((server) => `${fixed(server.eventLoopDelayMs.p99)} / ${fixed(server.eventLoopDelayMs.max)}`).join(", ");
    // Readings the agents never took (a starved agent process skipping a second) cannot reach anyone.
    const neverTaken = s.readingsTaken === undefined ? 0 : Math.max(0, s.gpus * s.windowS - s.readingsTaken) * s.viewers;
    const lost = `${percent(s.updates.lost, s.updates.expected)}${neverTaken > 0 ? ` (${percent(neverTaken, s.updates.expected)} never sampled)` : ""}`;
    lines.push(
      `| ${s.gpus} | ${s.instances} | ${s.viewers} | ${s.latencyMs.p50} / ${s.latencyMs.p95} / ${s.latencyMs.p99} | ${s.firstViewerLatencyMs ? `${s.firstViewerLatencyMs.p50} / ${s.firstViewerLatencyMs.p99}` : "–"} | ${lost} | ${percent(s.updates.late, s.updates.expected)} | ${cpu} | ${rss} | ${loop} | ${fixed(s.deltaKiBPerViewerPerSecond)} | ${fixed(s.harness.agentCpuCores, 2)} + ${fixed(s.harness.viewerCpuCores, 2)} | ${fixed(s.loadAverage.after[0]!, 2)} |`,
    );
  }
  const staged = results.scenarios.filter((scenario): scenario is ScenarioResult => !("skipped" in scenario) && scenario.stagesMs !== undefined);
  if (staged.length > 0) {
    const range = (l: LatencySummary) => `${l.p50} / ${l.p99}`;
    lines.push(
      "",
      "Where the latency goes, p50 / p99 (ms): agent = newest reading sampled → batch sent → acknowledged; server = reading sampled → drained into a delta (its `t`); viewer = delta `t` → handler of the first viewer of a process, and of every viewer (behind the others of its process).",
      "",
      "| GPUs | instances | agent: sample → send | agent: send → ack | sample → delta | delta → first viewer | delta → every viewer | decode per delta per viewer (ms) |",
      "|---:|---:|---|---|---|---|---|---:|",
    );
    for (const s of staged) {
      const st = s.stagesMs!;
      lines.push(
        `| ${s.gpus} | ${s.instances} | ${range(st.agentSampleToSend)} | ${range(st.agentSendToAck)} | ${range(st.sampleToDelta)} | ${range(st.deltaToFirstViewer)} | ${range(st.deltaToViewer)} | ${fixed(st.decodePerDeltaMs, 2)} |`,
      );
    }
  }
  for (const s of results.scenarios) {
    if ("skipped" in s) continue;
    const notes: string[] = [];
    if (s.redisKiBPerSecond !== undefined) notes.push(`${fixed(s.redisKiBPerSecond, 1)} KiB/s published on Redis (fleet relay and socket.io adapter)`);
    if (s.pinnedCores) {
      const harness = s.harnessCores ? `core ${s.harnessCores.join(", ")}` : "any core";
      notes.push(`instance i pinned to core ${s.pinnedCores.join(", ")} (taskset), agents and viewers on ${harness}`);
    }
    if (s.postgres) notes.push("on PostgreSQL");
    if (s.serverNodeArgs) notes.push(`servers started with \`node ${s.serverNodeArgs.join(" ")}\``);
    if (s.decodeOncePerProcess) notes.push("each viewer process expanded a delta once for its viewers (--decode-once)");
    if (notes.length > 0) lines.push("", `${s.gpus} GPUs on ${s.instances} instance(s): ${notes.join("; ")}.`);
  }
  if (results.browser) {
    const b = results.browser;
    lines.push(
      "",
      `Browser: headless Chromium ${b.chromiumVersion}, ${b.gpus} GPUs updating every second, ${b.seconds} s per page, ${b.viewport}${(b.cpuThrottle ?? 1) > 1 ? `, CPU throttled ${b.cpuThrottle}× (a machine that much slower)` : ""}.`,
      "",
      "| page | main thread busy (ms per s) | main thread CPU (ms per s) | of which script | style + layout | frames per s | long tasks (> 50 ms) | longest task (ms) | while loading: long tasks, longest (ms) | JS heap (MiB) |",
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const page of b.pages) {
      lines.push(
        `| ${page.name} | ${fixed(page.busyMsPerSecond)} | ${fixed(page.cpuMsPerSecond)} | ${fixed(page.scriptMsPerSecond)} | ${fixed(page.styleLayoutMsPerSecond)} | ${fixed(page.framesPerSecond, 1)} | ${page.longTasks} | ${fixed(page.longestTaskMs)} | ${page.loadLongTasks}, ${fixed(page.loadLongestTaskMs)} | ${fixed(page.heapMiB, 1)} |`,
      );
    }
    // Under Chromium's CPU throttling the thread time counts the throttle's own wait: only the durations above hold then.
    const traced = (b.cpuThrottle ?? 1) > 1 ? [] : b.pages.filter((page) => page.taskCpu);
    if (traced.length > 0) {
      lines.push(
        "",
        "Main-thread tasks by CPU time (thread time in a Chromium trace; unlike the durations above, it does not grow with the machine's load). Over 17 ms: a long task on a machine three times slower.",
        "",
        "| page | steady: longest (ms CPU) | steady: over 50 ms | steady: over 17 ms | loading: longest (ms CPU) | loading: over 50 ms | loading: over 17 ms |",
        "|---|---:|---:|---:|---:|---:|---:|",
      );
      for (const page of traced) {
        const { steady, load } = page.taskCpu!;
        lines.push(`| ${page.name} | ${fixed(steady.longestMs, 1)} | ${steady.over50Ms} | ${steady.over17Ms} | ${fixed(load.longestMs, 1)} | ${load.over50Ms} | ${load.over17Ms} |`);
      }
    }
  }
  return lines.join("\n");
}
