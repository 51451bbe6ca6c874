// Loaded into a server with `node --import ./scripts/bench/memory-probe.mjs …` by
// scripts/bench/server-memory.ts, so that the server itself stays as it ships. On SIGUSR2 it
// writes where the process's memory is to GPUDESK_MEMORY_PROBE_FILE: process.memoryUsage(),
// V8's heap spaces and code statistics, and the files loaded so far, by package. With
// GPUDESK_MEMORY_PROBE_HEAP it also writes a heap snapshot there (after a full GC).
//
// ES modules are counted through a loader hook, which runs on a thread of its own in Node 20
// and so costs memory itself; GPUDESK_MEMORY_PROBE_MODULES=1 turns it on, and runs that
// measure RSS leave it off.
//
// GPUDESK_MEMORY_PROBE_SAMPLING=FILE samples allocations from the start (V8's sampling heap
// profiler, one sample per 64 KiB) that outlive the young generation: those still held and
// those a full collection took, not those that died young. It is what fills the old space
// between two full collections; SIGUSR2 writes the profile to FILE.
import { statSync, writeFileSync, renameSync } from "node:fs";
import { Session } from "node:inspector";
import { createRequire, register } from "node:module";
import { MessageChannel } from "node:worker_threads";
import v8 from "node:v8";
import { runInNewContext } from "node:vm";

const file = process.env.GPUDESK_MEMORY_PROBE_FILE;
const esmUrls = new Set();

if (file && process.env.GPUDESK_MEMORY_PROBE_MODULES === "1") {
  const { port1, port2 } = new MessageChannel();
  port1.on("message", (url) => esmUrls.add(url));
  port1.unref();
  register("./memory-probe-hooks.mjs", { parentURL: import.meta.url, data: { port: port2 }, transferList: [port2] });
}

/** "next", "@prisma/client", "(.next)" for Next's build, "(dist/server)" for the prebuilt server, "(gpudesk)" for other project files, "(node)" for built-ins. */
function packageOf(filePath) {
  const at = filePath.lastIndexOf("/node_modules/");
  if (at < 0) {
    if (filePath.startsWith("node:")) return "(node)";
    if (filePath.includes("/.next/")) return "(.next)";
    return filePath.includes("/dist/server/") ? "(dist/server)" : "(gpudesk)";
  }
  const parts = filePath.slice(at + "/node_modules/".length).split("/");
  return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
}

function loadedFiles() {
  const paths = new Set(Object.keys(createRequire(import.meta.url).cache));
  for (const url of esmUrls) if (url.startsWith("file://")) paths.add(decodeURIComponent(new URL(url).pathname));
  const byPackage = {};
  const projectFiles = [];
  for (const filePath of paths) {
    let bytes = 0;
    try {
      bytes = statSync(filePath).size;
    } catch {
      // a virtual or vanished module
    }
    const entry = (byPackage[packageOf(filePath)] ??= { files: 0, bytes: 0 });
    entry.files += 1;
    entry.bytes += bytes;
    if (!filePath.includes("/node_modules/") && !filePath.startsWith("node:")) projectFiles.push({ path: filePath, bytes });
  }
  return { files: paths.size, esmCounted: esmUrls.size > 0, byPackage, projectFiles };
}

/**
 * A full collection on demand, without starting the server with --expose-gc (which would
 * change how it runs): the flag is set only now, and gc() taken from a fresh context.
 */
function collectGarbage() {
  v8.setFlagsFromString("--expose-gc");
  runInNewContext("gc")();
}

const samplingFile = process.env.GPUDESK_MEMORY_PROBE_SAMPLING;
const sampling = samplingFile ? new Session() : null;
if (sampling) {
  sampling.connect();
  sampling.post("HeapProfiler.startSampling", { samplingInterval: 65_536, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: false });
}

if (file) {
  process.on("SIGUSR2", () => {
    if (sampling) {
      sampling.post("HeapProfiler.stopSampling", (error, result) => {
        if (!error) writeFileSync(samplingFile, JSON.stringify(result.profile));
      });
    }
    const heapFile = process.env.GPUDESK_MEMORY_PROBE_HEAP;
    const spaces = v8.getHeapSpaceStatistics();
    const memoryUsage = process.memoryUsage();
    const heapStatistics = v8.getHeapStatistics();
    // After the reading as it was: what a full collection leaves is what the server keeps.
    let afterGc = null;
    if (process.env.GPUDESK_MEMORY_PROBE_GC === "1") {
      collectGarbage();
      afterGc = { memoryUsage: process.memoryUsage(), heapStatistics: v8.getHeapStatistics() };
    }
    const report = {
      at: Date.now(),
      memoryUsage,
      heapStatistics,
      heapSpaces: Object.fromEntries(spaces.map((space) => [space.space_name, space.space_used_size])),
      heapSpaceSizes: Object.fromEntries(spaces.map((space) => [space.space_name, space.space_size])),
      afterGc,
      heapCode: v8.getHeapCodeStatistics(),
      modules: loadedFiles(),
      heapSnapshot: heapFile ? v8.writeHeapSnapshot(heapFile) : null,
    };
    writeFileSync(`${file}.tmp`, JSON.stringify(report));
    renameSync(`${file}.tmp`, file);
  });
}
