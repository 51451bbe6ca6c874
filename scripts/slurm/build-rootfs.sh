#!/usr/bin/env bash
# Builds (or reuses) the Debian root filesystem with Slurm in it:
# $SLURM_CACHE/<stamp>, outside the repository. Needs root and debootstrap.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/lib.sh"

if [ -f "$SLURM_ROOT/.gpudesk-ready" ]; then
  echo "slurm rootfs: reusing $SLURM_ROOT ($(cat "$SLURM_ROOT/.gpudesk-ready"))"
  exit 0
fi
command -v debootstrap >/dev/null 2>&1 || {
  echo "installing debootstrap"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
}
mirror="$(slurm_mirror)"
mkdir -p "$SLURM_CACHE"
tmp="$SLURM_ROOT.building"
rm -rf "$tmp"
started=$(date +%s)
# Debootstrap from an older release may not know the suite's name; the sid
# script fits every current suite.
script=/usr/share/debootstrap/scripts/$SLURM_SUITE
[ -e "$script" ] || script=/usr/share/debootstrap/scripts/sid
echo "slurm rootfs: debootstrap $SLURM_SUITE into $tmp"
debootstrap --variant=minbase --include="$(echo $SLURM_PACKAGES | tr ' ' ',')" \
  "$SLURM_SUITE" "$tmp" "$mirror" "$script" >"$SLURM_CACHE/debootstrap.log" 2>&1 || {
    tail -n 30 "$SLURM_CACHE/debootstrap.log" >&2; exit 1; }
version=$(chroot "$tmp" dpkg-query -W -f='${Version}' slurmctld)
echo "$SLURM_SUITE slurm $version, built in $(( $(date +%s) - started )) s" >"$tmp/.gpudesk-ready"
mv "$tmp" "$SLURM_ROOT"
echo "slurm rootfs: $(cat "$SLURM_ROOT/.gpudesk-ready")"
