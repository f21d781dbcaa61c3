#!/usr/bin/env bash
# osctl-systemd-lab.sh - boot a REAL systemd (Debian 12 "bookworm", systemd 252) in a
# throwaway systemd-nspawn container, for osctl's integration tests (`osctl switch`).
# The host's PID 1 need not be systemd; nothing here starts or stops a host service,
# and the host's root filesystem is never booted.
#
#   osctl-systemd-lab.sh build                  # cached rootfs (cold ~1-4 min, cached ~0.01 s)
#   osctl-systemd-lab.sh up NAME [nspawn-args]  # boot; returns once systemctl answers
#   osctl-systemd-lab.sh leader NAME            # host PID of the container's systemd
#   osctl-systemd-lab.sh exec NAME CMD...       # run CMD inside (nsenter, clean env, rc propagates)
#   osctl-systemd-lab.sh down NAME              # clean poweroff + cleanup (forced after 30 s); idempotent
#                                               # (NAME.log in the state dir is kept only after a forced kill)
#   osctl-systemd-lab.sh forget NAME            # remove NAME's persistent disk (OSCTL_LAB_DISK=1); down first
#   osctl-systemd-lab.sh gc                     # down every it-<pid>-<n> container whose <pid> is gone
#   osctl-systemd-lab.sh status                 # print lab dir, rootfs state and running containers
#   osctl-systemd-lab.sh check                  # rc 0 if `up` can work here (root, nspawn, rootfs), else why
#   osctl-systemd-lab.sh selftest               # build, boot two, check units + isolation, tear down
#
# Needs root. `build` installs the Debian packages systemd-container and mmdebstrap
# (--no-install-recommends) when they are missing. Env knobs:
#   OSCTL_LAB_DIR     cache + state dir (default ~/.cache/osctl-systemd-lab)
#   OSCTL_LAB_SUITE   Debian suite of the rootfs (default bookworm)
#   OSCTL_LAB_MIRROR  Debian mirror URL (default: mmdebstrap's own default mirror)
#   OSCTL_LAB_DISK=1  for `up`: boot a persistent copy of the rootfs, disks/NAME in the lab dir (made
#                     from the template on first use), instead of the volatile overlay, so `down`
#                     and a second `up` of NAME is a real reboot that keeps what was written
#                     (tests/it/real_runtimes.rs). `down` keeps the disk; `forget NAME` removes it,
#                     and `gc` removes those of test processes that are gone.
#   OSCTL_LAB_VARIANT unset: the rootfs above, containers with --private-network. `ssh`: a second
#                     cached rootfs (rootfs-SUITE-ssh) with openssh-server and python3 added, whose
#                     containers share the host's network, so each one's sshd can listen on its
#                     own 127.0.0.1 port (the fleet test, tests/it/fleet_ssh.rs). Its sshd is not
#                     started at boot: the test writes SSHD_OPTS (the port) to /etc/default/ssh and
#                     root's authorized_keys, then starts ssh.service.
#
# Design (see tests/lab/README.md): --register=no --keep-unit (no host systemd, machined or
# D-Bus needed), --volatile=overlay (template stays read-only, writes go to a tmpfs that
# vanishes at poweroff, so containers can share it), --private-network (loopback only),
# one cgroup per container (nspawn puts payload/ and supervisor/ next to itself), and
# commands run inside with `nsenter -t <leader> -a`.
set -euo pipefail

LAB=${OSCTL_LAB_DIR:-$HOME/.cache/osctl-systemd-lab}
SUITE=${OSCTL_LAB_SUITE:-bookworm}
MIRROR=${OSCTL_LAB_MIRROR:-}
VARIANT=${OSCTL_LAB_VARIANT:-}
ROOT=$LAB/rootfs-$SUITE          # read-only template, shared by every container
STATE=$LAB/run                   # NAME.pid (nspawn), NAME.leader, NAME.log
PKGS=systemd,systemd-sysv,dbus
MASK=(systemd-firstboot.service console-getty.service getty@tty1.service
      apt-daily.timer apt-daily-upgrade.timer dpkg-db-backup.timer
      e2scrub_all.timer fstrim.timer systemd-timesyncd.service)
RECIPE="v2 $SUITE $PKGS ${MASK[*]}"   # bump v2 to force a rebuild
NET=(--private-network)
case $VARIANT in
  "") ;;
  ssh)
    ROOT=$LAB/rootfs-$SUITE-ssh
    PKGS=$PKGS,openssh-server,python3
    RECIPE="ssh-v1 $SUITE $PKGS ${MASK[*]}"   # bump ssh-v1 to force a rebuild of this one
    NET=() ;;
  *) echo "osctl-systemd-lab: unknown OSCTL_LAB_VARIANT '$VARIANT' (unset or ssh)" >&2; exit 1 ;;
esac
INPATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
SELF=$(readlink -f "$0")

die() { echo "osctl-systemd-lab: $*" >&2; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
since() { local d=$(( $(now_ms) - $1 )); printf '%d.%03d' $((d / 1000)) $((d % 1000)); }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root"; }
check_name() {
  [[ $1 =~ ^[a-z0-9][a-z0-9-]{0,63}$ ]] || die "bad machine name '$1' (<= 64 chars of [a-z0-9-])"
}

# cgroup dirs to create per container. nspawn --keep-unit puts its payload/ and
# supervisor/ sub-cgroups next to itself, so each container MUST start in its own
# cgroup (otherwise it uses the host's root cgroup and two containers collide).
cg_dirs() {
  if [ -e /sys/fs/cgroup/cgroup.controllers ]; then          # pure cgroup v2
    echo "/sys/fs/cgroup/osctl-lab-$1"
  else                                                       # v1/v2 hybrid
    if [ -d /sys/fs/cgroup/unified ]; then echo "/sys/fs/cgroup/unified/osctl-lab-$1"; fi
    if [ -d /sys/fs/cgroup/systemd ]; then echo "/sys/fs/cgroup/systemd/osctl-lab-$1"; fi
  fi
}

built() { [ -f "$ROOT/.osctl-lab-recipe" ] && [ "$(cat "$ROOT/.osctl-lab-recipe")" = "$RECIPE" ]; }

build() {
  need_root
  if built; then echo "rootfs cached: $ROOT"; return 0; fi
  mkdir -p "$LAB"
  exec 9>"$LAB/.build.lock"
  flock 9                                 # parallel builds: the second one waits, then sees the cache
  if built; then echo "rootfs cached: $ROOT"; return 0; fi
  if ! command -v systemd-nspawn >/dev/null || ! command -v mmdebstrap >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends systemd-container mmdebstrap
  fi
  local t0 m; t0=$(now_ms)
  rm -rf "$ROOT.tmp"
  mmdebstrap --variant=apt --include="$PKGS" \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/locale/*' \
    "$SUITE" "$ROOT.tmp" ${MIRROR:+"$MIRROR"}
  rm -f "$ROOT.tmp/etc/hostname"          # hostname = nspawn's --machine=NAME
  : > "$ROOT.tmp/etc/machine-id"          # empty => fresh id per boot (v252: not "first boot")
  for m in "${MASK[@]}"; do ln -sf /dev/null "$ROOT.tmp/etc/systemd/system/$m"; done
  if [ "$VARIANT" = ssh ]; then
    # Containers share the host's network: no sshd until the test has given it its own port.
    rm -f "$ROOT.tmp/etc/systemd/system/multi-user.target.wants/ssh.service" \
      "$ROOT.tmp/etc/systemd/system/sockets.target.wants/ssh.socket"
    printf 'ListenAddress 127.0.0.1\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUseDNS no\n' \
      > "$ROOT.tmp/etc/ssh/sshd_config.d/10-osctl-lab.conf"
    install -d -m 700 "$ROOT.tmp/root/.ssh"
  fi
  echo "$RECIPE" > "$ROOT.tmp/.osctl-lab-recipe"
  rm -rf "$ROOT"; mv "$ROOT.tmp" "$ROOT"
  echo "rootfs built: $ROOT ($(du -sh "$ROOT" | cut -f1)) in $(since "$t0")s"
}

# A process counts as alive unless it is gone or a zombie: nspawn is re-parented to PID 1
# once `up` returns, and a PID 1 that is slow to reap (seen: ~1 s) would otherwise make
# every `down` wait that long.
alive() {
  local st
  st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$st" ] && [ "$st" != Z ]
}

leader() { cat "$STATE/$1.leader" 2>/dev/null || die "$1 is not up"; }

# PID (host view) of the child of $1 whose PID inside its own namespace is 1.
find_init() {
  local c
  for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
    if [ "$(awk '/^NSpid/{print $NF}' "/proc/$c/status" 2>/dev/null)" = 1 ]; then echo "$c"; return 0; fi
  done
  return 1
}

up() {
  local name=$1; shift
  need_root; check_name "$name"
  built || die "no rootfs (or stale recipe) in $ROOT; run: $SELF build"
  mkdir -p "$STATE"
  if [ -f "$STATE/$name.pid" ] && alive "$(cat "$STATE/$name.pid")"; then die "$name already up"; fi
  local t0 d dirs=() tree=$ROOT mode=(--volatile=overlay)
  t0=$(now_ms)
  if [ "${OSCTL_LAB_DISK:-0}" = 1 ]; then
    tree=$LAB/disks/$name mode=()
    if [ ! -f "$tree/.osctl-lab-recipe" ]; then
      rm -rf "$tree.tmp"; mkdir -p "$(dirname "$tree")"
      cp -a --reflink=auto "$ROOT" "$tree.tmp" && mv "$tree.tmp" "$tree"
    fi
  fi
  mapfile -t dirs < <(cg_dirs "$name")
  for d in "${dirs[@]}"; do mkdir -p "$d"; done
  # The wrapper moves itself into the container's cgroups, then becomes nspawn.
  # shellcheck disable=SC2016  # $0/$1/$@ are expanded by the inner bash
  OSCTL_LAB_CG="${dirs[*]}" setsid bash -c 'for d in $OSCTL_LAB_CG; do echo $$ > "$d/cgroup.procs"; done; unset OSCTL_LAB_CG
    exec systemd-nspawn --quiet --boot --directory="$0" --machine="$1" \
      --register=no --keep-unit --console=passive "${@:2}"' "$tree" "$name" "${mode[@]}" "${NET[@]}" "$@" \
    >"$STATE/$name.log" 2>&1 </dev/null 9>&- &
  local ns=$! l="" st=""
  echo "$ns" > "$STATE/$name.pid"
  for _ in $(seq 300); do
    if l=$(find_init "$ns"); then break; fi
    if ! alive "$ns"; then
      cat "$STATE/$name.log" >&2; down "$name" >/dev/null 2>&1 || true; die "nspawn for $name exited"
    fi
    sleep 0.1
  done
  if [ -z "$l" ]; then down "$name" >/dev/null 2>&1 || true; die "no container init for $name after 30 s"; fi
  echo "$l" > "$STATE/$name.leader"
  for _ in $(seq 600); do                 # PID 1's private socket appears a little later
    st=$(nsenter -t "$l" -a -- env -i PATH=$INPATH timeout 30 systemctl is-system-running --wait 2>/dev/null) && break
    case $st in degraded|maintenance) break ;; esac
    alive "$ns" || { cat "$STATE/$name.log" >&2; down "$name" >/dev/null 2>&1 || true; die "$name died while booting"; }
    sleep 0.1
  done
  case $st in
    running|degraded) ;;
    *) down "$name" >/dev/null 2>&1 || true; die "$name did not finish booting (state: ${st:-?})" ;;
  esac
  echo "$name up: nspawn=$ns leader=$l state=$st in $(since "$t0")s"
}

in_exec() {
  local l; l=$(leader "$1"); shift
  exec nsenter -t "$l" -a -- env -i PATH=$INPATH LANG=C.UTF-8 "$@"
}

down() {
  local name=$1 ns d t0 busy="" forced=0
  check_name "$name"
  t0=$(now_ms)
  ns=$(cat "$STATE/$name.pid" 2>/dev/null || true)
  # a stale pid file may name a recycled PID: only signal our own nspawn (or its wrapper)
  case $(cat "/proc/$ns/comm" 2>/dev/null) in systemd-nspawn|bash) ;; *) ns="" ;; esac
  if [ -n "$ns" ] && alive "$ns"; then
    kill -TERM "$ns"                      # nspawn forwards it as SIGRTMIN+3 => clean halt
    for _ in $(seq 300); do alive "$ns" || break; sleep 0.1; done
    if alive "$ns"; then    # wedged: kill everything in its cgroups; keep NAME.log for a post-mortem
      forced=1
      for d in $(cg_dirs "$name"); do if [ -e "$d/cgroup.kill" ]; then echo 1 > "$d/cgroup.kill"; fi; done
      kill -KILL "$ns" 2>/dev/null || true
      for _ in $(seq 50); do alive "$ns" || break; sleep 0.1; done
    fi
  fi
  # rmdir the cgroups depth-first; after a forced kill the dying tasks may linger briefly
  for _ in $(seq 50); do
    for d in $(cg_dirs "$name"); do
      if [ -d "$d" ]; then find "$d" -depth -type d -exec rmdir {} + 2>/dev/null || true; fi
    done
    busy=""
    for d in $(cg_dirs "$name"); do if [ -d "$d" ]; then busy=$d; fi; done
    [ -z "$busy" ] && break
    sleep 0.1
  done
  if [ -n "$busy" ]; then echo "osctl-systemd-lab: warning: cgroup $busy still busy" >&2; fi
  rmdir "/run/systemd/nspawn/propagate/$name" 2>/dev/null || true   # left behind after a forced kill
  rm -f "$STATE/$name.pid" "$STATE/$name.leader"
  if [ "$forced" = 0 ]; then rm -f "$STATE/$name.log"; fi
  echo "$name down in $(since "$t0")s"
}

# Tear down containers named it-<pid>-<n> (the Rust helper's names) whose test process is gone.
gc() {
  local f name pid
  for f in "$STATE"/it-*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid); pid=${name#it-}; pid=${pid%%-*}
    if ! kill -0 "$pid" 2>/dev/null; then down "$name"; fi
  done
  for f in "$LAB"/disks/it-*; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .tmp); pid=${name#it-}; pid=${pid%%-*}
    if ! kill -0 "$pid" 2>/dev/null; then rm -rf "$f"; fi
  done
}

status() {
  local f n
  echo "lab dir: $LAB"
  if built; then echo "rootfs: $ROOT (recipe ok)"; else echo "rootfs: missing or stale ($ROOT)"; fi
  for f in "$STATE"/*.pid; do
    [ -e "$f" ] || continue
    n=$(basename "$f" .pid)
    if alive "$(cat "$f")"; then echo "up: $n leader=$(cat "$STATE/$n.leader" 2>/dev/null || echo ?)"
    else echo "stale: $n"; fi
  done
}

check() {
  [ "$(id -u)" = 0 ] || { echo "not root"; return 1; }
  local b
  for b in systemd-nspawn nsenter setsid; do
    command -v "$b" >/dev/null || { echo "$b not found (apt-get install --no-install-recommends systemd-container)"; return 1; }
  done
  built || { echo "rootfs missing or stale in $ROOT (run: $SELF build)"; return 1; }
  echo "ok: $ROOT"
}

selftest() {
  local t0 a b n r
  t0=$(now_ms); build; echo "build: $(since "$t0")s"
  trap 'down lab-a >/dev/null 2>&1; down lab-b >/dev/null 2>&1' EXIT
  up lab-a; up lab-b
  for n in lab-a lab-b; do
    r=/proc/$(leader "$n")/root           # host-side path into the container's fs
    printf '[Service]\nExecStart=/bin/sleep infinity\n[Install]\nWantedBy=multi-user.target\n' > "$r/etc/systemd/system/good.service"
    printf '[Service]\nExecStart=/opt/agent/missing\n[Install]\nWantedBy=multi-user.target\n' > "$r/etc/systemd/system/bad.service"
  done
  "$SELF" exec lab-a systemctl daemon-reload
  "$SELF" exec lab-a systemctl enable --now good.service bad.service 2>/dev/null
  for _ in $(seq 50); do                  # an exec failure shows up asynchronously: poll
    b=$("$SELF" exec lab-a systemctl is-active bad.service || true)
    [ "$b" = failed ] && break; sleep 0.1
  done
  a=$("$SELF" exec lab-a systemctl is-active good.service || true)
  echo "lab-a good=$a bad=$b"
  if [ "$a" != active ] || [ "$b" != failed ]; then die "unexpected unit states"; fi
  a=$("$SELF" exec lab-b systemctl is-active good.service || true)
  echo "lab-b good=$a (isolated: expect inactive)"; [ "$a" = inactive ] || die "containers not isolated"
  [ ! -e "$ROOT/etc/systemd/system/good.service" ] || die "template was written to"
  t0=$(now_ms); down lab-a; down lab-b; trap - EXIT
  echo "teardown (2 containers): $(since "$t0")s"
  echo "selftest: 1 passed, 0 failed"
}

cmd=${1:-}; shift || true
case $cmd in
  build) build ;;
  up) [ $# -ge 1 ] || die "usage: up NAME [nspawn-args]"; up "$@" ;;
  leader) [ $# -eq 1 ] || die "usage: leader NAME"; leader "$1" ;;
  exec) [ $# -ge 2 ] || die "usage: exec NAME CMD..."; in_exec "$@" ;;
  down) [ $# -eq 1 ] || die "usage: down NAME"; need_root; down "$1" ;;
  forget) [ $# -eq 1 ] || die "usage: forget NAME"; check_name "$1"; rm -rf "$LAB/disks/$1" "$LAB/disks/$1.tmp" ;;
  gc) need_root; gc ;;
  status) status ;;
  check) check ;;
  selftest) need_root; selftest ;;
  *) sed -n '2,20p' "$0"; exit 2 ;;
esac
