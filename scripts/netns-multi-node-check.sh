#!/usr/bin/env bash
# A booking across nodes "as people deploy it" (root, Linux): a gpudesk server on this
# machine and three GPU hosts, each in a network namespace of its own with its own hostname
# (mn-node-a, mn-node-b, mn-node-c on a bridge, names in each namespace's /etc/hosts), each
# with a real agent on a fake nvidia-smi (two idle A100, the recorded two-GPU host) and a fake /sys/class/infiniband:
# a and b on one InfiniBand subnet, c on another. A member books 2 nodes × 1 A100 with the
# CLI from node a, must get a and b, and runs `gpudesk run --booking ID -- node
# e2e/fixtures/rendezvous.mjs` on a and on b at once: the two ranks must meet at
# MASTER_ADDR:MASTER_PORT across the namespaces, each seeing its own GPU, world size 2.
# On c the same line must be refused. Then, one process per GPU (issue 50): the same member
# books 2 nodes × 2 and runs `gpudesk run --booking ID --per-gpu -- node rendezvous.mjs` on a
# and b: four processes meet, each with its RANK (0-3), LOCAL_RANK (0-1 on each node),
# LOCAL_WORLD_SIZE 2, WORLD_SIZE 4 and its node's CUDA_VISIBLE_DEVICES; and again as mpirun's
# ranks would start (Open MPI's OMPI_COMM_WORLD_RANK / _LOCAL_RANK set per process, as
# `mpirun --map-by ppr:2:node` sets them): the same four ranks.
# Each host has the recorded two-GPU host's GPUs (two A100, UUIDs of their own).
# Prints PASS or FAIL and cleans up after itself.
# Usage: sudo scripts/netns-multi-node-check.sh CHECKOUT   (a checkout with node_modules)
# PORT, W, NET (the /24's first three octets) and TAG (names of links and namespaces) may be set.
set -u
src=$(cd "${1:-.}" && pwd)
W=${W:-/tmp/mncheck}; PORT=${PORT:-4230}; NET=${NET:-10.241.41}; TAG=${TAG:-mn41}
BR=br-$TAG
NODES=(mn-node-a mn-node-b mn-node-c); SUBNETS=(00a1 00a1 00c3)
pids=()

cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  [ -f $W/server.pid ] && kill "$(cat $W/server.pid)" 2>/dev/null
  for i in 0 1 2; do ip netns del $TAG-$i 2>/dev/null; rm -rf /etc/netns/$TAG-$i; done
  ip link del $BR 2>/dev/null
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }

cleanup; rm -rf $W; mkdir -p $W
ip link add $BR type bridge && ip addr add $NET.1/24 dev $BR && ip link set $BR up || fail "cannot make the bridge"
for i in 0 1 2; do
  ns=$TAG-$i
  ip netns add $ns
  ip link add vh-$TAG-$i type veth peer name vn-$TAG-$i
  ip link set vh-$TAG-$i master $BR up
  ip link set vn-$TAG-$i netns $ns
  ip netns exec $ns ip addr add $NET.$((i + 2))/24 dev vn-$TAG-$i
  ip netns exec $ns ip link set vn-$TAG-$i up
  ip netns exec $ns ip link set lo up
  mkdir -p /etc/netns/$ns
  printf '127.0.0.1 localhost\n%s.1 gpudesk.lab\n%s.2 mn-node-a\n%s.3 mn-node-b\n%s.4 mn-node-c\n' $NET $NET $NET $NET > /etc/netns/$ns/hosts
done

cd "$src"
export GPUDESK_DATA_DIR=$W/data
( PORT=$PORT HOST=0.0.0.0 GPUDESK_LOCAL_AGENT=off GPUDESK_PUBLIC_URL=http://gpudesk.lab:$PORT node bin/gpudesk.js serve > $W/server.log 2>&1 & echo $! > $W/server.pid )
for i in $(seq 600); do curl -fs http://127.0.0.1:$PORT/api/health > /dev/null && break; sleep 1; done
echo "--- server up after ${i}s"
echo 'correct horse battery' | node bin/gpudesk.js user add lin --name "Lin Member" --password-stdin > /dev/null
MT=$(node bin/gpudesk.js token create --user lin | grep -o 'gpd_[A-Za-z0-9_-]*' | head -1)
[ -n "$MT" ] || fail "no member token"

for i in 0 1 2; do
  name=${NODES[$i]}; fake=$W/fake-$name
  HT=$(node bin/gpudesk.js host add $name | grep -o 'gpd_host_[A-Za-z0-9_-]*' | head -1)
  # Two idle A100 with UUIDs of their own (the recording's, renamed), no process, no ECC error (the recording's GPU 1 has two).
  cp -r host/collector/fixtures/two-gpu-host $fake
  sed -i -e "s/GPU-fcd5b05f-245b-4ec1-a944-0a8d5f183dd5/GPU-$(cat /proc/sys/kernel/random/uuid)/g" -e "s/GPU-9fafbc76-becd-4e43-b463-1ed7b4abd434/GPU-$(cat /proc/sys/kernel/random/uuid)/g" $fake/*
  cp $fake/query-compute-apps__idle.csv $fake/query-compute-apps__load.csv
  awk -F', ' -v OFS=', ' '$1 ~ /^[0-9]+$/ { $7 = "0 MiB"; $8 = "0 %"; $NF = "0" } { print }' $fake/query-gpu__load.csv > $fake/q && mv $fake/q $fake/query-gpu__load.csv
  # Its InfiniBand port, as the kernel lays it out.
  ib=$W/ib-$name/mlx5_0
  mkdir -p $ib/ports/1/gids $ib/device/net/ib0
  echo "4: ACTIVE" > $ib/ports/1/state; echo "400 Gb/sec (4X NDR)" > $ib/ports/1/rate; echo InfiniBand > $ib/ports/1/link_layer
  echo "fe80:0000:0000:${SUBNETS[$i]}:0c42:a103:0065:000$i" > $ib/ports/1/gids/0
  ip netns exec $TAG-$i unshare -u sh -c "hostname $name; GPUDESK_AGENT_TOKEN=$HT GPUDESK_SYSFS_INFINIBAND=$W/ib-$name FAKE_NVIDIA_SMI_DIR=$fake exec node bin/gpudesk.js agent --server http://gpudesk.lab:$PORT --nvidia-smi scripts/fake-nvidia-smi.mjs" > $W/agent-$name.log 2>&1 &
  pids+=($!)
done

online() { curl -fs -H "authorization: Bearer $MT" http://127.0.0.1:$PORT/api/v1/fleet | node -e 'let t="";process.stdin.on("data",c=>t+=c).on("end",()=>{const f=JSON.parse(t);console.log(f.hosts.filter(h=>h.online).length)})'; }
# Agents start node (and read nvidia-smi) on a busy machine: give them three minutes.
for i in $(seq 180); do [ "$(online)" = 3 ] && break; sleep 1; done
[ "$(online)" = 3 ] || fail "the three agents did not all report (see $W/agent-*.log)"
echo "--- three hosts online"

# On a node, as the member: the node's hostname, the server by its lab name.
on() { local i=$1; shift; ip netns exec $TAG-$i unshare -u sh -c "hostname ${NODES[$i]}; GPUDESK_URL=http://gpudesk.lab:$PORT GPUDESK_TOKEN=$MT $*"; }
on 0 "node bin/gpudesk.js reserve --nodes 2 --gpus-per-node 1 --model A100 --for 1h --purpose 'netns check' --json" > $W/booking.json || fail "reserve refused: $(cat $W/booking.json)"
ID=$(node -e 'const b=require(process.argv[1]);console.log(b.id)' $W/booking.json)
HOSTS=$(node -e 'const b=require(process.argv[1]);console.log(b.parts.map(p=>p.host.name).join(","))' $W/booking.json)
echo "--- booked $ID on $HOSTS"
[ "$HOSTS" = "mn-node-a,mn-node-b" ] || fail "expected the two hosts of one fabric, got $HOSTS"

# The same command on nodes a and b at once: OUT-a.out / OUT-b.out (and .err); fails naming the node that failed.
on_both() {
  local out=$1; shift
  on 0 "$*" > $W/$out-a.out 2> $W/$out-a.err &
  local a=$!
  on 1 "$*" > $W/$out-b.out 2> $W/$out-b.err &
  local b=$!
  wait $a || fail "$out on node a: $(cat $W/$out-a.err)"
  wait $b || fail "$out on node b: $(cat $W/$out-b.err)"
  cat $W/$out-a.err $W/$out-b.err
}
on_both rank "node bin/gpudesk.js run --booking $ID -- node e2e/fixtures/rendezvous.mjs"
node -e '
  const fs = require("fs");
  const met = (f) => JSON.parse(fs.readFileSync(f, "utf8").split("\n").find((l) => l.startsWith("RDV ")).slice(4));
  const [a, b] = [met(process.argv[1]), met(process.argv[2])];
  const same = JSON.stringify(a.all) === JSON.stringify(b.all);
  const ranks = a.all.map((n) => n.rank).join(",");
  const ok = same && ranks === "0,1" && a.all.every((n) => n.worldSize === 2 && n.cudaVisibleDevices === "0" && n.master === a.all[0].master) && a.all[0].master.startsWith("mn-node-a:") && a.all[0].claim !== a.all[1].claim;
  console.log(JSON.stringify(a.all, null, 1));
  process.exit(ok ? 0 : 1);
' $W/rank-a.out $W/rank-b.out || fail "the ranks did not agree"

if on 2 "node bin/gpudesk.js run --booking $ID -- true" 2> $W/rank-c.err; then fail "node c ran a booking it holds no part of"; fi
grep -q "holds no part of booking $ID" $W/rank-c.err || fail "node c's refusal: $(cat $W/rank-c.err)"
echo "--- node c refused: $(cat $W/rank-c.err)"

# One process per GPU: 2 nodes × 2 A100.
on 0 "node bin/gpudesk.js release $ID" > /dev/null || fail "could not release $ID"
on 0 "node bin/gpudesk.js reserve --nodes 2 --gpus-per-node 2 --model A100 --for 1h --purpose 'netns per-GPU check' --json" > $W/booking2.json || fail "reserve 2 × 2 refused: $(cat $W/booking2.json)"
ID2=$(node -e 'const b=require(process.argv[1]);console.log(b.id)' $W/booking2.json)
echo "--- booked $ID2 (2 × 2)"
# The four ranks' RDV lines: the same list everywhere, ranks 0-3, two a node, each node's GPUs.
ranks_agree() {
  node -e '
    const fs = require("fs");
    const seen = process.argv.slice(1).flatMap((f) => fs.readFileSync(f, "utf8").split("\n").filter((l) => l.startsWith("RDV ")).map((l) => JSON.parse(l.slice(4))));
    const all = seen[0].all;
    const got = all.map((p) => [p.rank, p.nodeRank, p.localRank, p.localWorldSize, p.worldSize, p.cudaVisibleDevices].join("/")).join(" ");
    console.log("ranks (RANK/NODE_RANK/LOCAL_RANK/LOCAL_WORLD_SIZE/WORLD_SIZE/CUDA_VISIBLE_DEVICES): " + got);
    const ok = seen.length === 4 && seen.every((s) => JSON.stringify(s.all) === JSON.stringify(all)) && got === "0/0/0/2/4/0,1 1/0/1/2/4/0,1 2/1/0/2/4/0,1 3/1/1/2/4/0,1" && all.every((p) => p.master === all[0].master) && all[0].master.startsWith("mn-node-a:");
    process.exit(ok ? 0 : 1);
  ' "$@"
}
on_both pg "node bin/gpudesk.js run --booking $ID2 --per-gpu -- node e2e/fixtures/rendezvous.mjs"
ranks_agree $W/pg-a.out $W/pg-b.out || fail "the per-GPU ranks did not agree"

# As mpirun starts them (no MPI here: each rank's Open MPI variables set by hand, as mpirun -np 4 --map-by ppr:2:node would).
pids2=()
for r in 0 1 2 3; do
  on $((r / 2)) "OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_LOCAL_RANK=$((r % 2)) node bin/gpudesk.js run --booking $ID2 -- node e2e/fixtures/rendezvous.mjs" > $W/mpi-$r.out 2> $W/mpi-$r.err &
  pids2+=($!)
done
for r in 0 1 2 3; do wait ${pids2[$r]} || fail "mpi rank $r: $(cat $W/mpi-$r.err)"; done
cat $W/mpi-*.err
ranks_agree $W/mpi-0.out $W/mpi-1.out $W/mpi-2.out $W/mpi-3.out || fail "the mpirun ranks did not agree"
echo PASS
