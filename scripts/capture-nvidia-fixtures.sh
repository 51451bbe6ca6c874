#!/usr/bin/env bash
# Captures the exact nvidia-smi outputs the collector consumes, on a real GPU
# host, into DIR (default ./captures). Also measures the CPU cost of the two
# polling strategies (spawn per interval vs one long-lived `-lms` process).
# Usage: scripts/capture-nvidia-fixtures.sh DIR
set -u
out=${1:-./captures}
mkdir -p "$out"
GPU_FIELDS="index,uuid,name,pci.bus_id,driver_version,memory.total,memory.used,utilization.gpu,utilization.memory,temperature.gpu,power.draw,power.limit,fan.speed,clocks.sm,pstate,mig.mode.current,ecc.errors.uncorrected.volatile.total,retired_pages.pending,remapped_rows.failure"
APP_FIELDS="gpu_uuid,pid,process_name,used_memory"

cap() { # name, command...
  local name=$1; shift
  { echo "# \$ $*"; "$@"; echo "# exit=$?"; } >"$out/$name" 2>&1
}

cap version.txt nvidia-smi --version
cap list-L.txt nvidia-smi -L
cap plain.txt nvidia-smi
cap query-gpu.csv nvidia-smi --query-gpu=$GPU_FIELDS --format=csv
cap query-gpu-nounits.csv nvidia-smi --query-gpu=$GPU_FIELDS --format=csv,noheader,nounits
cap query-compute-apps__idle.csv nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv
cap query-xml.xml nvidia-smi -q -x
cap topo-m.txt nvidia-smi topo -m
cap help-query-gpu.txt nvidia-smi --help-query-gpu
cap help-query-compute-apps.txt nvidia-smi --help-query-compute-apps

# Put a real CUDA process on the GPU so that the process query has rows.
if command -v nvcc >/dev/null; then
  cat >/tmp/hog.cu <<'CU'
#include <cstdio>
#include <unistd.h>
__global__ void spin(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) for (int k = 0; k < 20000; k++) p[i] = p[i] * 0.999f + 1.0f; }
int main() { float *p; size_t n = (size_t)3 << 28; cudaMalloc(&p, n * sizeof(float)); for (int r = 0; r < 100; r++) { spin<<<(1 << 20) / 256, 256>>>(p, 1 << 20); cudaDeviceSynchronize(); usleep(150000); } return 0; }
CU
  nvcc -o /tmp/gpudesk-hog /tmp/hog.cu >"$out/nvcc.log" 2>&1 && {
    GPUDESK_RESERVATION=res_capture /tmp/gpudesk-hog & hog=$!
    sleep 4
    cap query-compute-apps__load.csv nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv
    cap query-gpu__load.csv nvidia-smi --query-gpu=$GPU_FIELDS --format=csv
    cap query-compute-apps__lms.csv timeout 3 nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,noheader,nounits -lms 1000
    cap query-compute-apps__load-nounits.csv nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,noheader,nounits
    { echo "# pid=$hog uid=$(id -u)"; echo "## cgroup"; cat /proc/$hog/cgroup; echo "## stat"; cat /proc/$hog/stat; echo; echo "## status"; cat /proc/$hog/status; echo "## environ has GPUDESK_RESERVATION:"; tr '\0' '\n' </proc/$hog/environ | grep GPUDESK; } >"$out/proc-of-cuda-process.txt" 2>&1
    wait $hog
  }
fi

# Cost of the two polling strategies, 1 Hz for 20 s each.
{
  echo "## spawn per interval: 20 runs"
  s=$(date +%s.%N)
  t0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  for i in $(seq 20); do nvidia-smi --query-gpu=$GPU_FIELDS --format=csv,noheader,nounits >/dev/null; nvidia-smi --query-compute-apps=$APP_FIELDS --format=csv,noheader,nounits >/dev/null; done
  t1=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  e=$(date +%s.%N)
  echo "children CPU ticks (1/$(getconf CLK_TCK) s): $((t1 - t0)) over 20 samples; wall $(awk -v a="$s" -v b="$e" 'BEGIN{print b-a}') s"
  echo "## long-lived -lms 1000 for 20 s"
  t0=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  timeout 20 nvidia-smi --query-gpu=$GPU_FIELDS --format=csv,noheader,nounits -lms 1000 >"$out/lms-output.csv"
  t1=$(awk '{print $14+$15+$16+$17}' /proc/$$/stat)
  echo "children CPU ticks: $((t1 - t0)) over 20 s; lines: $(wc -l <"$out/lms-output.csv")"
} >"$out/polling-cost.txt" 2>&1
ls -la "$out"
tar -C "$out" -czf "$out.tgz" . && rm -rf "$out"
