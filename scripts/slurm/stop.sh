#!/usr/bin/env bash
# Stops what scripts/slurm/start.sh started, by the pid files it wrote.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"
quiet=${1:-}
run="$SLURM_ROOT/run"
[ -d "$run" ] || exit 0
stopped=0
for file in "$run"/slurmrestd.pid "$run"/slurmd-*.pid "$run"/slurmctld.pid "$run"/slurmdbd.pid; do
  [ -f "$file" ] || continue
  pid=$(cat "$file")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    stopped=$((stopped + 1))
  fi
  rm -f "$file"
done
[ "$quiet" = "--quiet" ] || echo "slurm: stopped $stopped daemons"
