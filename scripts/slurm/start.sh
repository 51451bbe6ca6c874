#!/usr/bin/env bash
# A real Slurm for tests and demos: builds (or reuses) the root filesystem,
# writes the configuration, and starts slurmdbd (on this machine's MariaDB),
# slurmctld, two slurmd (`slurmd -N`, 8 fake GPUs each) and slurmrestd inside
# a chroot with a private /proc. Prints the settings gpudesk needs, also
# written to $SLURM_STATE_DIR/env. Stop with scripts/slurm/stop.sh.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
[ "$(id -u)" = 0 ] || { echo "scripts/slurm/start.sh needs root (debootstrap, chroot, unshare)" >&2; exit 1; }

"$here/build-rootfs.sh"
"$here/stop.sh" --quiet || true
# The settings file says "up": it goes until everything is up again.
rm -f "$SLURM_STATE_DIR/env"
started=$(date +%s)
etc="$SLURM_ROOT/etc/slurm"
mkdir -p "$etc" "$SLURM_ROOT/var/log/slurm" "$SLURM_ROOT/var/spool/slurmctld" "$SLURM_ROOT/run" "$SLURM_STATE_DIR"
rm -f "$SLURM_ROOT"/var/log/slurm/*.log
# A fresh controller state each start: tests own their reservations and jobs.
rm -rf "$SLURM_ROOT/var/spool/slurmctld"/* "$SLURM_ROOT/var/spool/slurmd"
for node in $SLURM_NODES; do mkdir -p "$SLURM_ROOT/var/spool/slurmd/$node"; done

# Keys: auth/slurm's shared key and the JWT key gpudesk signs tokens with.
[ -s "$etc/slurm.key" ] || head -c 1024 /dev/urandom >"$etc/slurm.key"
[ -s "$etc/jwt_hs256.key" ] || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"$etc/jwt_hs256.key"
chmod 600 "$etc/slurm.key" "$etc/jwt_hs256.key"

# debootstrap leaves no /etc/hosts; Slurm resolves localhost and this host's name.
printf '127.0.0.1 localhost %s\n::1 localhost ip6-localhost\n' "$(hostname)" >"$SLURM_ROOT/etc/hosts"

cores=$((SLURM_GPUS_PER_NODE * 4))
{
  cat <<CONF
ClusterName=$SLURM_CLUSTER
SlurmctldHost=$(hostname)(127.0.0.1)
SlurmctldPort=$SLURMCTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/slurm
CredType=cred/slurm
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=/etc/slurm/jwt_hs256.key
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd/%n
SlurmctldPidFile=/run/slurmctld.pid
SlurmdPidFile=/run/slurmd-%n.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1,bf_interval=1
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$SLURMDBD_PORT
AccountingStorageTRES=gres/gpu
AccountingStorageEnforce=associations
ReturnToService=2
MinJobAge=60
CONF
  port=$SLURMD_PORT_1
  for node in $SLURM_NODES; do
    echo "NodeName=$node NodeHostname=$(hostname) NodeAddr=127.0.0.1 Port=$port CPUs=$cores Boards=1 SocketsPerBoard=$SLURM_GPUS_PER_NODE CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8000 Gres=gpu:$SLURM_GPUS_PER_NODE State=UNKNOWN"
    port=$((port + 1))
  done
  # Finite times: a job's time limit is when gpudesk's calendar frees its GPUs.
  echo "PartitionName=gpu Nodes=ALL Default=YES DefaultTime=00:30:00 MaxTime=1-00:00:00 State=UP"
} >"$etc/slurm.conf"

# No cgroups in a chroot: nothing confines a job's processes here.
echo "CgroupPlugin=disabled" >"$etc/cgroup.conf"

# Fake GPUs: character devices like /dev/null, each bound to its socket of 4 cores
# (Cores= must cover whole sockets; without it one reservation takes the node).
{
  echo "AutoDetect=off"
  for node in $SLURM_NODES; do
    mkdir -p "$SLURM_ROOT/var/lib/fake-gpus/$node"
    for i in $(seq 0 $((SLURM_GPUS_PER_NODE - 1))); do
      dev="$SLURM_ROOT/var/lib/fake-gpus/$node/nvidia$i"
      [ -c "$dev" ] || mknod "$dev" c 1 3
      echo "NodeName=$node Name=gpu File=/var/lib/fake-gpus/$node/nvidia$i Cores=$((i * 4))-$((i * 4 + 3))"
    done
  done
} >"$etc/gres.conf"

cat >"$etc/slurmdbd.conf" <<CONF
AuthType=auth/slurm
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=/etc/slurm/jwt_hs256.key
DbdHost=$(hostname)
DbdAddr=127.0.0.1
DbdPort=$SLURMDBD_PORT
SlurmUser=root
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=3306
StorageUser=root
StorageLoc=$SLURM_DB_NAME
PidFile=/run/slurmdbd.pid
LogFile=/var/log/slurm/slurmdbd.log
CONF
chmod 600 "$etc/slurmdbd.conf"

# People: the Operator account gpudesk acts as, and two test users.
# slurmrestd refuses to run as root: it drops to its own user, and passes on
# each caller's token (SLURM_JWT=daemon).
for user in slurmrest gpudesk ann bob; do
  grep -q "^$user:" "$SLURM_ROOT/etc/passwd" || chroot "$SLURM_ROOT" useradd -m -s /bin/sh "$user"
done

# Everything runs in one mount namespace with its own /proc; the daemons
# outlive the shell that starts them.
if ! timeout 180 unshare --mount --fork -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" /bin/sh -s' "$SLURM_ROOT" <<INNER >"$SLURM_STATE_DIR/start.log" 2>&1
set -e
wait_for() { i=0; while ! timeout 5 "\$@" >/dev/null 2>&1; do i=\$((i+1)); [ \$i -lt 100 ] || return 1; sleep 0.2; done; }
/usr/sbin/slurmdbd
wait_for sacctmgr -i show cluster
sacctmgr -i add cluster $SLURM_CLUSTER >/dev/null || true
sacctmgr -i add account lab Cluster=$SLURM_CLUSTER Description=lab Organization=lab >/dev/null || true
for user in gpudesk ann bob; do sacctmgr -i add user \$user Account=lab Cluster=$SLURM_CLUSTER >/dev/null || true; done
sacctmgr -i modify user gpudesk set AdminLevel=Operator >/dev/null || true
/usr/sbin/slurmctld
wait_for scontrol ping
for node in $SLURM_NODES; do /usr/sbin/slurmd -N \$node; done
SLURM_JWT=daemon setsid /usr/sbin/slurmrestd -u slurmrest -g slurmrest -a rest_auth/jwt 127.0.0.1:$SLURMRESTD_PORT </dev/null >/var/log/slurm/slurmrestd.log 2>&1 &
echo \$! >/run/slurmrestd.pid
i=0; until [ "\$(sinfo -h -N -t idle -o %N | wc -l)" -ge $(echo $SLURM_NODES | wc -w) ]; do i=\$((i+1)); [ \$i -lt 150 ] || { sinfo; exit 1; }; sleep 0.2; done
INNER
then
  cat "$SLURM_STATE_DIR/start.log" >&2
  tail -n 5 "$SLURM_ROOT"/var/log/slurm/*.log >&2
  exit 1
fi
for _ in $(seq 1 50); do curl -s -o /dev/null "http://127.0.0.1:$SLURMRESTD_PORT/openapi/v3" && break; sleep 0.2; done

cat >"$SLURM_STATE_DIR/env" <<ENV
GPUDESK_SLURM_URL=http://127.0.0.1:$SLURMRESTD_PORT
GPUDESK_SLURM_JWT_KEY=$etc/jwt_hs256.key
GPUDESK_SLURM_USER=gpudesk
GPUDESK_SLURM_ROOT=$SLURM_ROOT
ENV
echo "slurm: $(cat "$SLURM_ROOT/.gpudesk-ready" | cut -d, -f1) up in $(( $(date +%s) - started )) s; nodes $SLURM_NODES"
cat "$SLURM_STATE_DIR/env"
