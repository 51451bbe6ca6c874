#!/bin/sh
# gpudesk host installer, served by a gpudesk server at /install.sh with its
# address and its bundle's checksum filled in:
#
#   curl -fsSL http://gpudesk.lab:3000/install.sh -o gpudesk-install.sh
#   sudo sh gpudesk-install.sh --token-file /path/to/token   (or with no token option: it asks)
#
# The token never goes on a command line (ps, shell history): it is read from a
# file, from standard input (--token-file -), or typed at the prompt.
# Installs the one-file agent and member CLI (gpudesk.mjs, plain Node >= 18)
# at /usr/local/lib/gpudesk, a `gpudesk` command in /usr/local/bin, the host
# token in /etc/gpudesk/agent.env (root only) and the systemd unit
# gpudesk-agent.service. Run it again to upgrade; --uninstall removes it all.
# POSIX sh on purpose: it runs under dash, busybox and bash alike.
set -eu

SERVER_URL='__GPUDESK_SERVER_URL__'
VERSION='__GPUDESK_VERSION__'
BUNDLE_SHA256='__GPUDESK_BUNDLE_SHA256__'
NODE_MIN_MAJOR=18
UNIT_NAME=gpudesk-agent.service

usage() {
  cat <<EOF
gpudesk $VERSION host installer (server $SERVER_URL)

  sh install.sh                        install: asks for the host token (not echoed)
  sh install.sh --token-file FILE      install or upgrade with the token read from FILE (- for stdin)
  sh install.sh --upgrade              upgrade an installed host (keeps its token)
  sh install.sh --cli-only             only the gpudesk command, for members (no agent)
  sh install.sh --uninstall            remove the agent, its token and the command

Options:
  --token-file FILE      read the host's agent token from FILE (- : standard input); from Admin > Hosts
                         or \`gpudesk host add NAME\`
  --token TOKEN          the same on the command line: visible in ps and shell history, avoid it
  --upgrade              keep the installed token (never asks)
  --server URL           the gpudesk server (default: $SERVER_URL)
  --node PATH            the node executable to use (default: node on PATH)
  --bundle FILE          install this gpudesk.mjs instead of downloading it
  --allow-enforcement    let the server have the agent stop processes that conflict with a booking
                         (the only way the agent's unit gets CAP_KILL)
  --no-start             write the files but do not enable or start the service
  --prefix DIR           install under DIR instead of / (tests, images); implies --no-start
  --systemd-dir DIR      where to write the unit (default: PREFIX/etc/systemd/system)
EOF
}

say() { printf '%s\n' "gpudesk: $*"; }
die() { printf '%s\n' "gpudesk install: $*" >&2; exit 1; }

TOKEN=''
TOKEN_FILE=''
UPGRADE=0
CLI_ONLY=0
UNINSTALL=0
PREFIX=''
SYSTEMD_DIR=''
NO_START=0
NODE_BIN=''
BUNDLE_FILE=''
ENFORCE=''
TOKEN_ON_COMMAND_LINE=0

need_value() { [ "$2" -ge 2 ] || die "$1 needs a value"; }
while [ $# -gt 0 ]; do
  case $1 in
    --token) need_value "$1" $#; TOKEN=$2; TOKEN_ON_COMMAND_LINE=1; shift 2 ;;
    --token=*) TOKEN=${1#*=}; TOKEN_ON_COMMAND_LINE=1; shift ;;
    --token-file) need_value "$1" $#; TOKEN_FILE=$2; shift 2 ;;
    --token-file=*) TOKEN_FILE=${1#*=}; shift ;;
    --upgrade) UPGRADE=1; shift ;;
    --server) need_value "$1" $#; SERVER_URL=$2; shift 2 ;;
    --server=*) SERVER_URL=${1#*=}; shift ;;
    --node) need_value "$1" $#; NODE_BIN=$2; shift 2 ;;
    --node=*) NODE_BIN=${1#*=}; shift ;;
    --bundle) need_value "$1" $#; BUNDLE_FILE=$2; shift 2 ;;
    --bundle=*) BUNDLE_FILE=${1#*=}; shift ;;
    --prefix) need_value "$1" $#; PREFIX=$2; NO_START=1; shift 2 ;;
    --prefix=*) PREFIX=${1#*=}; NO_START=1; shift ;;
    --systemd-dir) need_value "$1" $#; SYSTEMD_DIR=$2; shift 2 ;;
    --systemd-dir=*) SYSTEMD_DIR=${1#*=}; shift ;;
    --cli-only) CLI_ONLY=1; shift ;;
    --uninstall) UNINSTALL=1; shift ;;
    --no-start) NO_START=1; shift ;;
    --allow-enforcement) ENFORCE=' --allow-enforcement'; shift ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown option: $1 (see --help)" ;;
  esac
done

# What is written where; PREFIX makes a fake root for tests.
PREFIX=${PREFIX%/}
LIB_DIR=/usr/local/lib/gpudesk
BUNDLE=$LIB_DIR/gpudesk.mjs
COMMAND=/usr/local/bin/gpudesk
ENV_DIR=/etc/gpudesk
ENV_FILE=$ENV_DIR/agent.env
SYSTEMD_DIR=${SYSTEMD_DIR:-$PREFIX/etc/systemd/system}
UNIT_FILE=$SYSTEMD_DIR/$UNIT_NAME

if [ -z "$PREFIX" ] && [ "$(id -u)" -ne 0 ]; then
  die "run it as root: curl -fsSL $SERVER_URL/install.sh | sudo sh"
fi

# systemctl only on a machine that runs systemd, and never for a fake root.
use_systemctl() { [ "$NO_START" -eq 0 ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; }

if [ "$UNINSTALL" -eq 1 ]; then
  if use_systemctl && [ -f "$UNIT_FILE" ]; then
    systemctl disable --now "$UNIT_NAME" >/dev/null 2>&1 || true
    say "stopped and disabled $UNIT_NAME"
  fi
  for path in "$UNIT_FILE" "$PREFIX$COMMAND" "$PREFIX$BUNDLE" "$PREFIX$ENV_FILE"; do
    if [ -e "$path" ]; then rm -f "$path" && say "removed $path"; fi
  done
  rmdir "$PREFIX$LIB_DIR" "$PREFIX$ENV_DIR" 2>/dev/null || true
  if use_systemctl; then systemctl daemon-reload; fi
  say "uninstalled (the host stays registered on $SERVER_URL until an admin removes it)"
  exit 0
fi

case $SERVER_URL in
  http://?* | https://?*) ;;
  *) die "--server must be an http(s) URL, not '$SERVER_URL'" ;;
esac
SERVER_URL=${SERVER_URL%/}

if [ -n "$TOKEN_FILE" ]; then
  if [ "$TOKEN_FILE" = - ]; then
    IFS= read -r TOKEN || [ -n "$TOKEN" ] || die "no token on standard input"
  else
    [ -r "$TOKEN_FILE" ] || die "cannot read the token file $TOKEN_FILE"
    TOKEN=$(sed -n '/^[[:space:]]*$/d;s/^[[:space:]]*//;s/[[:space:]]*$//;p;q' "$TOKEN_FILE")
  fi
elif [ -z "$TOKEN" ] && [ "$CLI_ONLY" -eq 0 ] && [ "$UPGRADE" -eq 0 ] && [ ! -f "$PREFIX$ENV_FILE" ] && (: </dev/tty >/dev/tty) 2>/dev/null; then
  # Asked on the terminal, not echoed: it never appears in ps or in the shell's history.
  printf 'gpudesk: host token (gpd_host_..., from Admin > Hosts): ' >/dev/tty
  stty -echo </dev/tty 2>/dev/null || true
  IFS= read -r TOKEN </dev/tty || true
  stty echo </dev/tty 2>/dev/null || true
  printf '\n' >/dev/tty
fi
if [ "$TOKEN_ON_COMMAND_LINE" -eq 1 ]; then
  say "warning: --token puts the token in ps and in your shell's history; use --token-file FILE (or - for stdin) next time, and consider rotating it in Admin > Hosts"
fi

if [ -n "$TOKEN" ]; then
  case $TOKEN in
    gpd_host_*) ;;
    *) die "--token must be a host token (gpd_host_...), from Admin > Hosts or \`gpudesk host add NAME\`" ;;
  esac
  case $TOKEN in
    *[!A-Za-z0-9_-]*) die "--token has characters a host token never has: copy it again" ;;
  esac
elif [ "$CLI_ONLY" -eq 0 ] && [ ! -f "$PREFIX$ENV_FILE" ]; then
  die "a host token is needed for the first install: --token-file FILE (Admin > Hosts, or \`gpudesk host add NAME\`); use --cli-only for the command alone"
fi

# Node >= 18: the bundle needs nothing else.
if [ -z "$NODE_BIN" ]; then
  NODE_BIN=$(command -v node 2>/dev/null || true)
  for candidate in /usr/bin/node /usr/local/bin/node; do
    if [ -z "$NODE_BIN" ] && [ -x "$candidate" ]; then NODE_BIN=$candidate; fi
  done
fi
[ -n "$NODE_BIN" ] || die "Node.js $NODE_MIN_MAJOR or newer is needed and none was found (e.g. apt-get install nodejs, or pass --node PATH)"
NODE_MAJOR=$("$NODE_BIN" -e 'process.stdout.write(process.versions.node.split(".")[0])' 2>/dev/null || true)
case $NODE_MAJOR in
  '' | *[!0-9]*) die "$NODE_BIN does not run: is it Node.js?" ;;
esac
[ "$NODE_MAJOR" -ge "$NODE_MIN_MAJOR" ] || die "$NODE_BIN is Node.js $NODE_MAJOR; gpudesk needs $NODE_MIN_MAJOR or newer"
case $NODE_BIN in
  /*) ;;
  *) NODE_BIN=$(cd "$(dirname "$NODE_BIN")" && pwd)/$(basename "$NODE_BIN") ;;
esac

# The bundle: downloaded next to its final place, checked, then moved in one step.
umask 022
mkdir -p "$PREFIX$LIB_DIR" "$PREFIX/usr/local/bin"
# .mjs even while staged: Node reads any other extension as CommonJS.
STAGED=$PREFIX$LIB_DIR/.staged-gpudesk.mjs
trap 'rm -f "$STAGED"' EXIT
if [ -n "$BUNDLE_FILE" ]; then
  cp "$BUNDLE_FILE" "$STAGED"
elif command -v curl >/dev/null 2>&1; then
  curl -fsSL "$SERVER_URL/downloads/gpudesk.mjs" -o "$STAGED" || die "could not download $SERVER_URL/downloads/gpudesk.mjs"
elif command -v wget >/dev/null 2>&1; then
  wget -q -O "$STAGED" "$SERVER_URL/downloads/gpudesk.mjs" || die "could not download $SERVER_URL/downloads/gpudesk.mjs"
else
  die "neither curl nor wget is installed"
fi
# The checksum is always checked: with sha256sum, shasum or openssl where there is one, else
# with the Node.js that will run the bundle. Never skipped for a download.
sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$1" | cut -d ' ' -f 1
  elif command -v shasum >/dev/null 2>&1; then shasum -a 256 "$1" | cut -d ' ' -f 1
  elif command -v openssl >/dev/null 2>&1; then openssl dgst -sha256 -r "$1" | cut -d ' ' -f 1
  else "$NODE_BIN" -e 'process.stdout.write(require("crypto").createHash("sha256").update(require("fs").readFileSync(process.argv[1])).digest("hex"))' "$1"
  fi
}
GOT=$(sha256_of "$STAGED")
if [ -n "$BUNDLE_FILE" ]; then
  say "--bundle: installing $BUNDLE_FILE as given (sha256 $GOT; the server's bundle is $BUNDLE_SHA256)"
else
  [ -n "$GOT" ] || die "could not compute the download's SHA-256 checksum"
  [ "$GOT" = "$BUNDLE_SHA256" ] || die "the download's checksum is $GOT, expected $BUNDLE_SHA256: the server was upgraded meanwhile (run this again) or something altered it"
  say "checked the bundle's SHA-256 checksum: $GOT"
fi
GOT_VERSION=$("$NODE_BIN" "$STAGED" --version 2>/dev/null) || die "the downloaded gpudesk.mjs does not run with $NODE_BIN"
chmod 0755 "$STAGED"
mv -f "$STAGED" "$PREFIX$BUNDLE"
say "installed gpudesk $GOT_VERSION at $PREFIX$BUNDLE"

# The command: the node found now, so that it works under sudo's short PATH too.
cat >"$PREFIX$COMMAND.new" <<EOF
#!/bin/sh
# gpudesk $GOT_VERSION, installed from $SERVER_URL/install.sh (run that again to upgrade).
exec "$NODE_BIN" "$BUNDLE" "\$@"
EOF
chmod 0755 "$PREFIX$COMMAND.new"
mv -f "$PREFIX$COMMAND.new" "$PREFIX$COMMAND"
say "installed the gpudesk command at $PREFIX$COMMAND"

if [ "$CLI_ONLY" -eq 1 ]; then
  say "members sign in with: gpudesk login --url $SERVER_URL"
  exit 0
fi

# The token: readable by root alone, written with that mode from the start.
mkdir -p "$PREFIX$ENV_DIR"
chmod 0755 "$PREFIX$ENV_DIR"
if [ -n "$TOKEN" ]; then
  (
    umask 077
    printf '# gpudesk agent token for %s (keep secret; rotate it in Admin > Hosts)\nGPUDESK_AGENT_TOKEN=%s\n' "$SERVER_URL" "$TOKEN" >"$PREFIX$ENV_FILE.new"
  )
  chmod 0600 "$PREFIX$ENV_FILE.new"
  mv -f "$PREFIX$ENV_FILE.new" "$PREFIX$ENV_FILE"
  say "wrote the host token to $PREFIX$ENV_FILE (mode 0600)"
else
  chmod 0600 "$PREFIX$ENV_FILE"
  say "kept the host token in $PREFIX$ENV_FILE"
fi

# The service. Root, because reading who runs what needs /proc/PID/environ of
# every user's processes; the capabilities are cut to what that needs, plus
# CAP_KILL only with --allow-enforcement (stopping another user's process), and
# the file system is read only. /proc stays whole: ProtectProc= and ProcSubset= are left at their defaults.
# /dev too: nvidia-smi opens /dev/nvidia*, so nothing that closes the device policy
# (PrivateDevices=, DeviceAllow=, or ProtectClock=, which adds a DeviceAllow= rule).
CAPABILITIES='CAP_DAC_READ_SEARCH CAP_SYS_PTRACE'
# The agent does a few milliseconds of work a second: a 1 MiB young generation
# and one V8 worker thread keep its memory down (docs/benchmark.md, the agent on
# a GPU host). Not --lite-mode/--jitless: they drop WebAssembly, which Node's
# own fetch needs.
NODE_FLAGS='--max-semi-space-size=1 --v8-pool-size=1'
if [ -n "$ENFORCE" ]; then CAPABILITIES="$CAPABILITIES CAP_KILL"; fi
mkdir -p "$SYSTEMD_DIR"
cat >"$UNIT_FILE.new" <<EOF
# gpudesk agent $GOT_VERSION, written by $SERVER_URL/install.sh (run it again to upgrade).
[Unit]
Description=gpudesk agent (reports this host's GPUs to $SERVER_URL)
Documentation=$SERVER_URL/api/v1/openapi.json
Wants=network-online.target
After=network-online.target

[Service]
Type=simple
EnvironmentFile=$ENV_FILE
ExecStart=$NODE_BIN $NODE_FLAGS $BUNDLE agent --server $SERVER_URL$ENFORCE
Restart=always
RestartSec=5
CapabilityBoundingSet=$CAPABILITIES
NoNewPrivileges=yes
ProtectSystem=strict
ProtectHome=read-only
PrivateTmp=yes
ProtectKernelTunables=yes
ProtectKernelModules=yes
ProtectKernelLogs=yes
ProtectControlGroups=yes
ProtectHostname=yes
RestrictSUIDSGID=yes
RestrictRealtime=yes
RestrictNamespaces=yes
LockPersonality=yes
RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK

[Install]
WantedBy=multi-user.target
EOF
chmod 0644 "$UNIT_FILE.new"
mv -f "$UNIT_FILE.new" "$UNIT_FILE"
say "wrote $UNIT_FILE"

# "Reports within seconds" only when the service runs; otherwise what to do to start it.
if use_systemctl; then
  systemctl daemon-reload
  systemctl enable "$UNIT_NAME" >/dev/null 2>&1
  systemctl restart "$UNIT_NAME"
  if systemctl is-active --quiet "$UNIT_NAME"; then
    say "enabled and (re)started $UNIT_NAME; its log: journalctl -u $UNIT_NAME -f"
    say "done: this host reports to $SERVER_URL within seconds (Admin > Hosts shows it)"
  else
    say "enabled $UNIT_NAME but it is not running: see why with journalctl -u $UNIT_NAME -e, then systemctl restart $UNIT_NAME"
  fi
elif [ "$NO_START" -eq 1 ]; then
  say "done, not started (--no-start or --prefix): start it with systemctl enable --now $UNIT_NAME; it reports to $SERVER_URL within seconds of starting"
else
  say "done, not started: this machine does not run systemd. Start the agent as root under your init system:"
  say "  sh -c 'set -a; . $ENV_FILE; exec $NODE_BIN $NODE_FLAGS $BUNDLE agent --server $SERVER_URL$ENFORCE'"
fi
