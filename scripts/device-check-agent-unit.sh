#!/usr/bin/env bash
# On a real GPU host (the project's lent H200 machine): the host bundle's agent
# under the capabilities the installer's systemd unit leaves it
# (CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE CAP_KILL, NoNewPrivileges),
# reading a real CUDA process of ANOTHER user (nobody) whose environment names a
# booking; then without CAP_SYS_PTRACE and without any capability, to show what
# each is for. Output: host/collector/fixtures/h200-agent-unit-caps/.
# Usage: scripts/device-check-agent-unit.sh OUTDIR   (needs dist/gpudesk.mjs; the
#        machine's node, or dist/device/node.xz when there is none)
set -u
o=${1:?usage: device-check-agent-unit.sh OUTDIR}
mkdir -p "$o"
N=$(command -v node || true)
if [ -z "$N" ]; then xz -dc dist/device/node.xz >/tmp/n && chmod +x /tmp/n; N=/tmp/n; fi
cat >/tmp/h.cu <<'CU'
#include <unistd.h>
__global__ void spin(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) for (int k = 0; k < 20000; k++) p[i] = p[i] * 0.999f + 1.0f; }
int main() { float *p; cudaMalloc(&p, (size_t)1 << 30); for (int r = 0; r < 600; r++) { spin<<<(1 << 20) / 256, 256>>>(p, 1 << 20); cudaDeviceSynchronize(); usleep(100000); } return 0; }
CU
export PATH=$PATH:/usr/local/cuda/bin
nvcc -o /tmp/h /tmp/h.cu >"$o/nvcc.log" 2>&1; chmod 755 /tmp/h
setpriv --reuid=65534 --regid=65534 --clear-groups env -i GPUDESK_RESERVATION=res_unitcheck.Zm9vYmFy PATH=/usr/bin:/bin /tmp/h &
h=$!
sleep 8
{ id; echo "hog $h owner $(stat -c %U /proc/$h)"; nvidia-smi --query-compute-apps=pid,used_memory --format=csv; } >"$o/setup.txt" 2>&1
for c in "-all,+dac_read_search,+sys_ptrace,+kill:unit-caps" "-all,+dac_read_search,+kill:without-sys-ptrace" "-all:no-caps"; do
  b=${c%%:*}; n=${c##*:}
  { echo "# bounding set $b"
    setpriv --bounding-set="$b" --inh-caps=-all --no-new-privs grep -E '^Cap(Eff|Bnd)' /proc/self/status
    setpriv --bounding-set="$b" --inh-caps=-all --no-new-privs "$N" dist/gpudesk.mjs agent --once --json
    echo "# exit=$?"; } >"$o/$n.txt" 2>&1
done
kill $h
