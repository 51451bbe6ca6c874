#!/usr/bin/env bash
# On a real GPU host (the project's lent H200 machine): the host bundle's agent
# under the capabilities the installer's systemd unit leaves it
# (CapabilityBoundingSet=CAP_DAC_READ_SEARCH CAP_SYS_PTRACE CAP_KILL, NoNewPrivileges),
# reading a real CUDA process of ANOTHER user whose environment carries a booking;
# then the same without CAP_SYS_PTRACE, to show what that capability is for.
# Usage: scripts/device-check-agent-unit.sh OUTDIR   (needs dist/gpudesk.mjs and dist/device/node.xz)
set -u
out=${1:?usage: device-check-agent-unit.sh OUTDIR}
mkdir -p "$out"
NODE=$(command -v node || true)
if [ -z "$NODE" ]; then xz -dc dist/device/node.xz >/tmp/node20 && chmod +x /tmp/node20 && NODE=/tmp/node20; fi
PROOF="res_unitcheck.Zm9vYmFyYmF6cXV4cXV1eHF1dXhxdXV4"
cat >/tmp/hog.cu <<'CU'
#include <unistd.h>
__global__ void spin(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) for (int k = 0; k < 20000; k++) p[i] = p[i] * 0.999f + 1.0f; }
int main() { float *p; cudaMalloc(&p, (size_t)1 << 30); for (int r = 0; r < 600; r++) { spin<<<(1 << 20) / 256, 256>>>(p, 1 << 20); cudaDeviceSynchronize(); usleep(100000); } return 0; }
CU
nvcc -o /tmp/gpudesk-hog /tmp/hog.cu >"$out/nvcc.log" 2>&1 && chmod 755 /tmp/gpudesk-hog
# The job of another user (nobody), as on a shared host.
setpriv --reuid=65534 --regid=65534 --clear-groups env -i GPUDESK_RESERVATION=$PROOF PATH=/usr/bin:/bin /tmp/gpudesk-hog &
hog=$!
sleep 6
{ echo "# whoami: $(id)"; echo "# hog pid $hog, its owner: $(stat -c %U /proc/$hog)"; nvidia-smi --query-compute-apps=pid,used_memory --format=csv; } >"$out/setup.txt" 2>&1
run() { # name, bounding set
  { echo "# \$ setpriv --bounding-set=$2 --inh-caps=-all --no-new-privs $NODE dist/gpudesk.mjs agent --once --json"
    setpriv --bounding-set="$2" --inh-caps=-all --no-new-privs grep -E '^Cap(Eff|Bnd)' /proc/self/status
    setpriv --bounding-set="$2" --inh-caps=-all --no-new-privs "$NODE" dist/gpudesk.mjs agent --once --json
    echo "# exit=$?"; } >"$out/$1" 2>&1
}
run agent-once__unit-caps.json.txt "-all,+dac_read_search,+sys_ptrace,+kill"
run agent-once__without-sys-ptrace.json.txt "-all,+dac_read_search,+kill"
# The installer into a fake root, with this bundle, then the unit's ExecStart line (--once) under its capabilities.
sed -e "s|__GPUDESK_SERVER_URL__|http://gpudesk.lab:3000|; s|__GPUDESK_VERSION__|check|" server/downloads/install.sh >/tmp/install.sh
{ sh /tmp/install.sh --prefix /tmp/fakeroot --token gpd_host_devicecheck --bundle dist/gpudesk.mjs --node "$NODE"; echo "# exit=$?"
  cat /tmp/fakeroot/etc/systemd/system/gpudesk-agent.service; ls -l /tmp/fakeroot/etc/gpudesk/agent.env; } >"$out/install.txt" 2>&1
kill $hog 2>/dev/null
wait
