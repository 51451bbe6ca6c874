#!/usr/bin/env bash
# One pass on a real GPU host (the project's lent H200 machine): captures the
# exact nvidia-smi commands the collector runs today, with a real CUDA process
# whose environment carries a booking proof, and runs the host bundle's agent
# (`gpudesk agent --once --json`) against the real nvidia-smi and /proc.
# Usage: scripts/device-check.sh OUTDIR   (needs dist/gpudesk.mjs: npm run build:host;
#        uses the machine's node, or dist/device/node.xz when there is none)
set -u
out=${1:?usage: device-check.sh OUTDIR}
mkdir -p "$out"
log() { echo "[device-check] $*" >&2; }

# The fields of host/collector/nvidia-smi/query-fields.ts.
GPU_FIELDS="index,uuid,name,pci.bus_id,driver_version,memory.total,memory.used,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,fan.speed,clocks.sm,pstate,mig.mode.current,ecc.errors.uncorrected.volatile.total"
APP_FIELDS="timestamp,gpu_uuid,pid,process_name,used_memory"
PROOF="res_devicecheck.Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4"

cap() { # file, command...
  local name=$1; shift
  { echo "# \$ $*"; "$@"; echo "# exit=$?"; } >"$out/$name" 2>&1
}

{
  echo "date: $(date -u +%FT%TZ)"
  echo "kernel: $(uname -r)"
  grep PRETTY_NAME /etc/os-release 2>/dev/null
  echo "machine node: $(command -v node && node --version 2>&1)"
  echo "nvcc: $(command -v nvcc)"
  nvidia-smi --version
} >"$out/machine.txt" 2>&1

NODE=""
if command -v node >/dev/null 2>&1; then NODE=$(command -v node); fi
if [ -f dist/device/node.xz ]; then
  xz -dc dist/device/node.xz >/tmp/node20 && chmod +x /tmp/node20 && NODE20=/tmp/node20
fi
[ -z "$NODE" ] && NODE=${NODE20:-}
log "node: ${NODE:-none}"

# A real CUDA process (about 3.5 GiB, busy ~60 s) that names a booking with a proof.
hog=""
if command -v nvcc >/dev/null 2>&1; then
  cat >/tmp/hog.cu <<'CU'
#include <cstdio>
#include <unistd.h>
__global__ void spin(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) for (int k = 0; k < 20000; k++) p[i] = p[i] * 0.999f + 1.0f; }
int main() { float *p; size_t n = (size_t)7 << 27; cudaMalloc(&p, n * sizeof(float)); for (int r = 0; r < 400; r++) { spin<<<(1 << 20) / 256, 256>>>(p, 1 << 20); cudaDeviceSynchronize(); usleep(100000); } return 0; }
CU
  if nvcc -o /tmp/gpudesk-hog /tmp/hog.cu >"$out/nvcc.log" 2>&1; then
    GPUDESK_RESERVATION=$PROOF /tmp/gpudesk-hog &
    hog=$!
    sleep 5
  fi
fi
log "hog pid: ${hog:-none}"

cap query-gpu__load.csv nvidia-smi --query-gpu=$GPU_FIELDS --format=csv,noheader,nounits
cap query-compute-apps__load.csv nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,noheader,nounits
cap query-gpu__lms-4s.csv timeout 4 nvidia-smi --query-gpu=$GPU_FIELDS --format=csv,noheader,nounits -lms 1000
cap query-compute-apps__lms-4s.csv timeout 4 nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,nounits -lms 1000
cap query-xml__load.xml nvidia-smi -q -x
cap list-L.txt nvidia-smi -L
cap topo-m.txt nvidia-smi topo -m
if [ -n "$hog" ]; then
  { echo "# pid=$hog"; echo "## environ GPUDESK_*"; tr '\0' '\n' </proc/$hog/environ | grep '^GPUDESK'; echo "## cgroup"; cat /proc/$hog/cgroup; } >"$out/proc-of-cuda-process.txt" 2>&1
fi

# The host bundle on the real GPU: one reading as JSON, with this machine's node and with Node 20.
for n in "$NODE" "${NODE20:-}"; do
  [ -n "$n" ] || continue
  tag=$(basename "$n")
  { echo "# \$ $n dist/gpudesk.mjs agent --once --json   (node $("$n" --version))"; "$n" dist/gpudesk.mjs agent --once --json; echo "# exit=$?"; } >"$out/bundle-agent-once__$tag.json.txt" 2>&1
  { echo "# \$ $n dist/gpudesk.mjs agent --once"; "$n" dist/gpudesk.mjs agent --once; echo "# exit=$?"; } >"$out/bundle-agent-once__$tag.txt" 2>&1
  { "$n" dist/gpudesk.mjs --version; echo "# exit=$?"; } >"$out/bundle-version__$tag.txt" 2>&1
  # Start-up of the bundle against bare node: 20 runs each, wall ms.
  {
    for what in "node -e 0" "gpudesk --help"; do
      s=$(date +%s%N)
      for i in $(seq 20); do
        if [ "$what" = "node -e 0" ]; then "$n" -e 0; else "$n" dist/gpudesk.mjs --help >/dev/null; fi
      done
      e=$(date +%s%N)
      echo "$what: $(( (e - s) / 20000000 )) ms mean of 20 ($tag $("$n" --version), $(nproc) cores)"
    done
  } >"$out/bundle-startup__$tag.txt" 2>&1
done

[ -n "$hog" ] && kill "$hog" 2>/dev/null
cap query-compute-apps__after.csv nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,nounits
ls -la "$out"
