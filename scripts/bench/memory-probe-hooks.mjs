// Module hooks of scripts/bench/memory-probe.mjs: tells the probe every ES module URL the process loads.
let port;

export function initialize(data) {
  port = data.port;
}

export async function load(url, context, nextLoad) {
  port.postMessage(url);
  return nextLoad(url, context);
}
