#!/usr/bin/env bash
# A check "as people deploy it" (root, Linux): a gpudesk server on this machine and a GPU
# host in its own network namespace (hostname gpu-node-1, veth 10.231.7.2, reaching the
# server as gpudesk.lab), installed with the one-line installer the server serves, its
# agent on a fake nvidia-smi (two GPUs: one idle, one with an ECC error), and a member
# there using status and run; then a job nvidia-smi cannot see takes the idle GPU (40 GiB,
# 87 %, no process listed) and status must not call it Free.
# Leaves the server (port 3399, data in /tmp/nscheck) and the agent running for a browser:
#   chromium --host-resolver-rules="MAP gpudesk.lab 10.231.7.1" http://gpudesk.lab:3399
# Usage: sudo scripts/netns-host-check.sh CHECKOUT   (a checkout with node_modules)
# PORT, W, NS, NET (the /24's first three octets), VH and VN (the veth ends) may be set to run beside another copy.
set -u
src=$(cd "$1" && pwd)
W=${W:-/tmp/nscheck}; PORT=${PORT:-3399}; NS=${NS:-gdnode}; NET=${NET:-10.231.7}
VH=${VH:-vh-gd}; VN=${VN:-vn-gd}
rm -rf $W; mkdir -p $W/fake $W/root
ip netns del $NS 2>/dev/null; ip link del $VH 2>/dev/null
ip netns add $NS
ip link add $VH type veth peer name $VN
ip link set $VN netns $NS
ip addr add $NET.1/24 dev $VH; ip link set $VH up
ip netns exec $NS ip addr add $NET.2/24 dev $VN
ip netns exec $NS ip link set $VN up; ip netns exec $NS ip link set lo up
mkdir -p /etc/netns/$NS; printf '127.0.0.1 localhost\n%s.1 gpudesk.lab\n' $NET > /etc/netns/$NS/hosts

cd "$src"
export GPUDESK_DATA_DIR=$W/data
( PORT=$PORT HOST=0.0.0.0 GPUDESK_PUBLIC_URL=http://gpudesk.lab:$PORT node bin/gpudesk.js serve > $W/server.log 2>&1 & echo $! > $W/server.pid )
for i in $(seq 600); do curl -fs http://127.0.0.1:$PORT/api/health >/dev/null && break; sleep 1; done
echo "--- server up after ${i}s"; grep -i "admin\|user add" $W/server.log | head -5
echo 'correct horse battery' | node bin/gpudesk.js user add admin --admin --password-stdin
echo 'correct horse battery' | node bin/gpudesk.js user add lin --name "Lin Member" --password-stdin
MT=$(node bin/gpudesk.js token create --user lin | grep -o 'gpd_[A-Za-z0-9_-]*' | head -1)
HT=$(node bin/gpudesk.js host add gpu-node-1 | grep -o 'gpd_host_[A-Za-z0-9_-]*' | head -1)
echo "member token ${MT:0:12}… host token ${HT:0:14}…"

# A fake nvidia-smi on the node: the recorded two-GPU host with no process, idle (0 MiB, 0 %:
# the recording's 40 GiB at 87 % with no process listed is someone's job nvidia-smi cannot see).
cp -r host/collector/fixtures/two-gpu-host $W/fake/rec
reading() { awk -F', ' -v OFS=', ' -v gpu="$1" -v mem="$2" -v util="$3" '$1 == gpu { $7 = mem " MiB"; $8 = util " %" } { print }' $W/fake/rec/query-gpu__load.csv > $W/fake/q && mv $W/fake/q $W/fake/rec/query-gpu__load.csv; }
reading 0 0 0; reading 1 0 0
head -1 host/collector/fixtures/two-gpu-host/query-compute-apps__idle.csv > $W/fake/rec/query-compute-apps__load.csv 2>/dev/null || sed -n '/^[^#]/{p;q}' host/collector/fixtures/two-gpu-host/query-compute-apps__load.csv > $W/fake/rec/query-compute-apps__load.csv
cp scripts/fake-nvidia-smi.mjs $W/fake/
printf '#!/bin/sh\nFAKE_NVIDIA_SMI_DIR=%s exec node %s "$@"\n' $W/fake/rec $W/fake/fake-nvidia-smi.mjs > $W/fake/nvidia-smi; chmod +x $W/fake/nvidia-smi

node_ns() { ip netns exec $NS unshare -u sh -c "hostname gpu-node-1; $1"; }
echo "--- install on the node"
node_ns "curl -fsSL http://gpudesk.lab:$PORT/install.sh | sh -s -- --token $HT --prefix $W/root --no-start" 2>&1 | tail -15
ls -la $W/root/usr/local/lib/gpudesk $W/root/etc/gpudesk 2>&1 | head; find $W/root -name '*.service' | head -3
G="node $W/root/usr/local/lib/gpudesk/gpudesk.mjs"; cat $W/root/usr/local/bin/gpudesk; cat $W/root/etc/systemd/system/gpudesk-agent.service
node_ns "$G agent --server http://gpudesk.lab:$PORT --token $HT --nvidia-smi $W/fake/nvidia-smi > $W/agent.log 2>&1 &"
sleep 8
echo "--- member on the node"
export GPUDESK_URL=http://gpudesk.lab:$PORT GPUDESK_TOKEN=$MT
node_ns "GPUDESK_URL=$GPUDESK_URL GPUDESK_TOKEN=$MT $G status" 2>&1 | head -30
node_ns "GPUDESK_URL=$GPUDESK_URL GPUDESK_TOKEN=$MT $G run -n 1 --for 10m -- sh -c 'echo on \$(hostname): CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES GPUDESK_RESERVATION=\$GPUDESK_RESERVATION'" 2>&1 | tail -8
echo "--- run --host gpu-node-2 (another real host; simulated hosts may be booked from anywhere) must refuse:"
node bin/gpudesk.js host add gpu-node-2 > /dev/null
node_ns "GPUDESK_URL=$GPUDESK_URL GPUDESK_TOKEN=$MT $G run --host gpu-node-2 -n 1 --for 10m -- true"; echo "exit=$? (must not be 0: refused before booking)"
echo "--- a job nvidia-smi cannot see takes GPU 0 (40 GiB, 87 %, no process): not Free, RUNNING says unseen"
reading 0 40512 87; sleep 4
node_ns "GPUDESK_URL=$GPUDESK_URL GPUDESK_TOKEN=$MT $G status" 2>&1 | head -30
node_ns "GPUDESK_URL=$GPUDESK_URL GPUDESK_TOKEN=$MT $G run -n 1 --for 10m -- true"; echo "run -n 1: exit=$? (no free GPU: must not be 0)"
echo "--- agent log"; tail -5 $W/agent.log
