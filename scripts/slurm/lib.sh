# Shared settings of scripts/slurm/*.sh (sourced, never run).
# The root filesystem lives outside the repository, keyed by a version stamp:
# change the stamp (suite, packages, layout) and the next start builds afresh.
SLURM_SUITE="${GPUDESK_SLURM_SUITE:-forky}"
SLURM_PACKAGES="slurmctld slurmd slurmdbd slurmrestd slurm-client slurm-wlm-jwt-plugin"
SLURM_STAMP="${SLURM_SUITE}-v2"
SLURM_CACHE="${GPUDESK_SLURM_CACHE:-/var/cache/gpudesk-slurm}"
SLURM_ROOT="$SLURM_CACHE/$SLURM_STAMP"
# Ports: slurmctld, two slurmd, slurmrestd, slurmdbd (the helper's range by default).
SLURM_PORT_BASE="${GPUDESK_SLURM_PORT_BASE:-4310}"
SLURMCTLD_PORT=$((SLURM_PORT_BASE))
SLURMD_PORT_1=$((SLURM_PORT_BASE + 1))
SLURMD_PORT_2=$((SLURM_PORT_BASE + 2))
SLURMRESTD_PORT=$((SLURM_PORT_BASE + 3))
SLURMDBD_PORT=$((SLURM_PORT_BASE + 4))
SLURM_DB_NAME="${GPUDESK_SLURM_DB:-gpudesk_slurm_acct}"
SLURM_CLUSTER="${GPUDESK_SLURM_CLUSTER:-gpudesk}"
# Two nodes of 8 fake GPUs each (device files like /dev/null), 4 cores per GPU.
SLURM_NODES="${GPUDESK_SLURM_NODES:-slurm-a slurm-b}"
SLURM_GPUS_PER_NODE=8
SLURM_STATE_DIR="$SLURM_CACHE/run-$SLURM_PORT_BASE"

# The Debian mirror this machine's apt already uses (never written down here).
slurm_mirror() {
  local uri
  uri=$(grep -hE '^\s*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{print $2}' | grep -E '/debian/?$' | head -n 1 || true)
  if [ -z "$uri" ]; then
    uri=$(grep -hE '^\s*deb\s' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{for(i=2;i<=NF;i++) if ($i ~ /^https?:/) {print $i; exit}}' | grep -E '/debian/?$' | head -n 1 || true)
  fi
  [ -n "$uri" ] || { echo "no Debian mirror in /etc/apt/sources.list(.d)" >&2; return 1; }
  echo "$uri"
}

# Runs a command inside the chroot with its own mount namespace and /proc.
# (A process's own namespace: the proc mount never shows on the machine.)
slurm_in_root() {
  unshare --mount --fork -- sh -c 'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"' "$SLURM_ROOT" "$@"
}
