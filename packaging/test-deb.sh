#!/usr/bin/env bash
# Tests the Debian package on this machine (as root; CI runs it from .ci/run):
#
#     packaging/test-deb.sh [DEB]
#
# Without DEB it builds one with packaging/build-deb.sh (which rebuilds the jars only when stale). Then:
#   1. contents (dpkg-deb -I/-c): metadata, every path the package must ship, conffiles, root ownership, modes,
#      md5sums, no JDK tools in the runtime, sizes within bounds;
#   2. dpkg -i: fips group, seeded /etc/fips/fips.yaml (0600, equal to the example), fips.d, conffiles registered;
#      `fips --version`, `fipsctl --version` and `fips-gateway --version` from the bundled runtime with no JDK on
#      PATH (and fips-gateway refusing the seeded config, which has no gateway block); fipsctl's AOT cache
#      maps (-XX:AOTMode=on fails otherwise); `fips --check -c /etc/fips/fips.yaml` accepts the seeded file; the
#      installed daemon runs a node on a scratch config and the installed fipsctl reads
#      its status over the control socket, as a group member and not; the firewall baseline file and unit (shipped as in
#      the tree, opt-in, nft's check mode accepts the file); fips-dns-setup/-teardown per backend against a
#      stub systemctl and a scratch /etc (the host's DNS is never touched); systemd-analyze verify of the units;
#   3. dpkg -i again (the upgrade path): an edited fips.yaml survives;
#   4. dpkg -r keeps /etc/fips, dpkg -P removes it, the runtime, the group and /run/fips: nothing is left behind.
# It refuses to run when fips is already installed or /etc/fips, /usr/lib/fips or a fips group exist, and purges
# the package on any exit. Takes about 20 s plus the package build (about 25 s when the jars are fresh, as after
# bin/test): 45 s in all on a busy 2-core machine.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
start=$SECONDS
failures=0
skips=()

pass() { printf 'ok    %s\n' "$*"; }
fail() { printf 'FAIL  %s\n' "$*"; failures=$((failures + 1)); }
skip() { printf 'skip  %s\n' "$*"; skips+=("$*"); }
check() { # description, command...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
die() { printf 'test-deb: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "must run as root (it installs and purges the package)"
for tool in dpkg dpkg-deb dpkg-query getent; do
    command -v "$tool" >/dev/null || die "$tool is missing"
done
if dpkg-query -W -f='${Status}' fips 2>/dev/null | grep -q 'installed\|config-files'; then
    die "a fips package is installed already; purge it first (dpkg -P fips)"
fi
for p in /etc/fips /usr/lib/fips /usr/share/fips; do
    [ ! -e "$p" ] || die "$p exists; this test would delete it on purge"
done
! getent group fips >/dev/null || die "a fips group exists already"
! getent passwd fips >/dev/null || die "a fips user exists already"

if [ $# -gt 0 ]; then
    deb=$1
else
    "$here/build-deb.sh"
    deb=$(ls "$here"/target/fips_*_amd64.deb | head -n1)
fi
[ -f "$deb" ] || die "no package at $deb"
echo "test-deb: $deb"

scratch=$(mktemp -d /tmp/fips-test-deb.XXXXXX)
daemon_pid=
cleanup() {
    if [ -n "$daemon_pid" ] && kill -0 "$daemon_pid" 2>/dev/null; then
        kill "$daemon_pid" 2>/dev/null || true
        wait "$daemon_pid" 2>/dev/null || true
    fi
    if dpkg-query -W -f='${Status}' fips 2>/dev/null | grep -q 'installed\|config-files\|half'; then
        dpkg -P fips >/dev/null 2>&1 || true
    fi
    rm -rf "$scratch"
}
trap cleanup EXIT

# --- 1. contents ---------------------------------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
check "Package is fips" test "$(field Package)" = fips
check "Architecture is amd64" test "$(field Architecture)" = amd64
version=$(field Version)
check "file name carries Version $version" test "$(basename "$deb")" = "fips_${version}_amd64.deb"
check "Maintainer, Section, Description present" \
    test -n "$(field Maintainer)" -a "$(field Section)" = net -a -n "$(field Description)"
# The default AEAD backend's library (ADR 0054) is a dependency; OpenSSL's, the fallback, only recommended.
check "Depends names android-libboringssl (the default AEAD)" grep -qw android-libboringssl <<<"$(field Depends)"
check "Recommends names libssl3 (the AEAD fallback)" grep -qw libssl3 <<<"$(field Recommends)"

dpkg-deb -c "$deb" > "$scratch/contents"
# The paths, as dpkg-deb lists them ("./usr/bin/fips"), with their modes.
awk '{ p = $6; sub(/^\.\//, "/", p); sub(/\/$/, "", p); print $1, $2, p }' "$scratch/contents" > "$scratch/files"
has() { # mode-prefix path: the path is in the package with that type/mode
    grep -q "^$1 [^ ]* $2\$" "$scratch/files"
}
for p in /usr/bin/fips /usr/bin/fipsctl /usr/bin/fips-gateway /usr/lib/fips/fips-dns-setup \
         /usr/lib/fips/fips-dns-teardown /usr/lib/fips/runtime/bin/java; do
    check "ships $p (executable)" has -rwxr-xr-x "$p"
done
for p in /etc/fips/hosts /etc/fips/fips.nft /usr/share/fips/fips.yaml.example \
         /usr/lib/fips/runtime/lib/modules /usr/lib/fips/runtime/lib/server/classes.jsa \
         /usr/lib/fips/runtime/lib/server/libjvm.so /usr/lib/fips/runtime/release \
         /usr/lib/systemd/system/fips.service /usr/lib/systemd/system/fips-dns.service \
         /usr/lib/systemd/system/fips-firewall.service /usr/lib/systemd/system/fips-gateway.service \
         /usr/lib/tmpfiles.d/fips.conf /usr/share/doc/fips/copyright /usr/share/doc/fips/changelog.Debian.gz /usr/share/doc/fips/operator-guide.md; do
    check "ships $p" has -rw-r--r-- "$p"
done
check "ships the application's modules in /usr/lib/fips/lib" \
    grep -Eq '^-rw-r--r-- [^ ]* /usr/lib/fips/lib/fips-cli-[^ ]*\.jar$' "$scratch/files"
check "ships the gateway's module in /usr/lib/fips/lib" \
    grep -Eq '^-rw-r--r-- [^ ]* /usr/lib/fips/lib/fips-gateway-[^ ]*\.jar$' "$scratch/files"
check "every entry owned by root/root" test -z "$(awk '$2 != "root/root"' "$scratch/files")"
check "nothing world-writable or setuid" test -z "$(awk '$1 !~ /^l/ && ($1 ~ /^.{8}w/ || $1 ~ /s/)' "$scratch/files")"
check "the live /etc/fips/fips.yaml is not shipped (postinst seeds it)" bash -c "! grep -q ' /etc/fips/fips.yaml\$' '$scratch/files'"
check "no JDK development tools in the runtime" \
    bash -c "! grep -Eq '/runtime/bin/(javac|jlink|jar|jshell)\$|/runtime/include/|/runtime/jmods/' '$scratch/files'"
mkdir "$scratch/ctl"
dpkg-deb -e "$deb" "$scratch/ctl"
check "conffiles are exactly hosts and fips.nft" \
    test "$(LC_ALL=C sort "$scratch/ctl/conffiles" | tr '\n' ' ')" = "/etc/fips/fips.nft /etc/fips/hosts "
check "md5sums covers every shipped file outside /etc" test "$(wc -l < "$scratch/ctl/md5sums")" = \
    "$(awk '$1 ~ /^-/ && $3 !~ /^\/etc\//' "$scratch/files" | wc -l)"
for s in postinst prerm postrm; do
    check "maintainer script $s is executable sh" bash -c "test -x '$scratch/ctl/$s' && sh -n '$scratch/ctl/$s'"
done
deb_kb=$(( $(stat -c %s "$deb") / 1024 ))
inst_kb=$(field Installed-Size)
check "package size sane (${deb_kb} KiB: 10-60 MiB)" test "$deb_kb" -ge 10240 -a "$deb_kb" -le 61440
check "Installed-Size sane (${inst_kb} KiB: 40-200 MiB)" test "$inst_kb" -ge 40960 -a "$inst_kb" -le 204800

# --- 2. install ----------------------------------------------------------------------------------------------------
if dpkg -i "$deb" > "$scratch/install.log" 2>&1; then
    pass "dpkg -i"
else
    cat "$scratch/install.log"
    fail "dpkg -i"
    die "cannot go on without the package installed"
fi
check "package state is installed" test "$(dpkg-query -W -f='${Status}' fips)" = "install ok installed"
check "fips group created, as a system group" \
    bash -c 'gid=$(getent group fips | cut -d: -f3) && [ -n "$gid" ] && [ "$gid" -lt 1000 ]'
check "/etc/fips/fips.yaml seeded 0600 root:root" test "$(stat -c '%a %U:%G' /etc/fips/fips.yaml)" = "600 root:root"
check "seeded fips.yaml equals the example" cmp -s /etc/fips/fips.yaml /usr/share/fips/fips.yaml.example
check "/etc/fips/fips.d created" test -d /etc/fips/fips.d
unit=/usr/lib/systemd/system/fips.service
check "fips.service runs fips --config /etc/fips/fips.yaml" grep -qx 'ExecStart=/usr/bin/fips --config /etc/fips/fips.yaml' "$unit"
for d in 'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_BIND_SERVICE' NoNewPrivileges=yes ProtectSystem=strict \
         ReadWritePaths=/etc/fips Group=fips RuntimeDirectory=fips RuntimeDirectoryMode=0750 'DeviceAllow=/dev/net/tun rw'; do
    check "fips.service has $d" grep -qx "$d" "$unit"
done
check "fips-dns.service runs the installed helpers" bash -c "grep -qx 'ExecStart=/usr/lib/fips/fips-dns-setup' \
    /usr/lib/systemd/system/fips-dns.service && grep -qx 'ExecStop=/usr/lib/fips/fips-dns-teardown' \
    /usr/lib/systemd/system/fips-dns.service"
# The firewall baseline (spec discovery-gateway.md §6): the shipped rules as in the source tree, the unit as the
# reference's, and opt-in: neither postinst nor the install enables it.
check "/etc/fips/fips.nft is packaging/common/fips.nft" cmp -s /etc/fips/fips.nft "$here/common/fips.nft"
fw=/usr/lib/systemd/system/fips-firewall.service
for d in Type=oneshot RemainAfterExit=yes Before=fips.service ConditionPathExists=/etc/fips/fips.nft \
         'ExecStart=/usr/sbin/nft -f /etc/fips/fips.nft' 'ExecStop=-/usr/sbin/nft delete table inet fips' \
         WantedBy=multi-user.target; do
    check "fips-firewall.service has $d" grep -qx "$d" "$fw"
done
check "fips-firewall.service is not enabled by the install" \
    bash -c '! ls /etc/systemd/system/*.wants/fips-firewall.service >/dev/null 2>&1'
check "postinst never enables fips-firewall.service" \
    bash -c "! grep -n 'enable' '$scratch/ctl/postinst' | grep -q 'fips-firewall'"
check "prerm stops and disables fips-firewall.service on remove" \
    bash -c "grep -q 'stop .*fips-firewall.service' '$scratch/ctl/prerm' \
        && grep -q 'disable .*fips-firewall.service' '$scratch/ctl/prerm'"
if command -v nft >/dev/null; then
    # Check mode parses and resolves the file (the include of the empty fips.d included) without loading it.
    if out=$(nft -c -f /etc/fips/fips.nft 2>&1); then pass "nft -c -f /etc/fips/fips.nft"; else
        fail "nft -c -f /etc/fips/fips.nft: $out"; fi
else
    skip "nft -c -f /etc/fips/fips.nft: nftables is not installed"
fi
gw=/usr/lib/systemd/system/fips-gateway.service
check "fips-gateway.service runs fips-gateway --config /etc/fips/fips.yaml" \
    grep -qx 'ExecStart=/usr/bin/fips-gateway --config /etc/fips/fips.yaml' "$gw"
for d in After=fips.service Requires=fips.service Restart=on-failure TimeoutStopSec=15 ProtectKernelTunables=no \
         'CapabilityBoundingSet=CAP_NET_ADMIN CAP_NET_BIND_SERVICE'; do
    check "fips-gateway.service has $d" grep -qx "$d" "$gw"
done
check "fips-gateway.service waits for fips0 before starting" grep -q '^ExecStartPre=.*/sys/class/net/fips0' "$gw"
check "dpkg registered the conffiles" \
    bash -c "dpkg-query -W -f='\${Conffiles}' fips | grep -q '/etc/fips/hosts ' && dpkg-query -W -f='\${Conffiles}' fips | grep -q '/etc/fips/fips.nft '"

# No JDK on PATH or in JAVA_HOME: the launchers must use the bundled runtime.
bare=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8)
if out=$("${bare[@]}" /usr/bin/fips --version 2>&1); then
    pass "fips --version: $out"
else
    fail "fips --version (exit $?): $out"
fi
check "fips --version names the build's version" grep -q "^fips ${version%%~*}" <<<"$out"
if out=$("${bare[@]}" /usr/bin/fipsctl --version 2>&1); then pass "fipsctl --version"; else fail "fipsctl --version: $out"; fi
if out=$("${bare[@]}" /usr/bin/fips-gateway --version 2>&1); then
    check "installed fips-gateway --version runs on the bundled runtime" grep -q '^fips-gateway ' <<<"$out"
else
    fail "fips-gateway --version: $out"
fi
# Without a gateway block it refuses to start with one line saying so (exit 1), before touching the host.
rc=0
out=$("${bare[@]}" /usr/bin/fips-gateway -c /etc/fips/fips.yaml 2>&1) || rc=$?
check "installed fips-gateway refuses a config without gateway: (exit 1, says why)" \
    bash -c '[ "$1" = 1 ] && grep -q "no gateway: block" <<<"$2"' _ "$rc" "$out"
# The packaged daemon runs with bin/fips's memory-sized JVM options, not the JVM's defaults.
. "$root/bin/java-env.sh"
check "/usr/bin/fips passes bin/fips's JVM options" grep -qF -- "$(unset FIPS_JAVA_OPTS; fips_daemon_java_opts)" /usr/bin/fips
check "/usr/bin/fips limits the malloc arenas" grep -q 'MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}' /usr/bin/fips
# FIPS_JAVA_OPTS replaces those options, as in bin/fips; FIPS_DAEMON_EXTRA_JAVA_OPTS adds to them. A second collector
# tells which: the JVM refuses to start with two ("Multiple garbage collectors selected").
check "FIPS_JAVA_OPTS replaces /usr/bin/fips's JVM options" \
    "${bare[@]}" FIPS_JAVA_OPTS=-XX:+UseG1GC /usr/bin/fips --version
check "FIPS_DAEMON_EXTRA_JAVA_OPTS adds to /usr/bin/fips's JVM options" \
    bash -c '! "$@" FIPS_DAEMON_EXTRA_JAVA_OPTS=-XX:+UseG1GC /usr/bin/fips --version >/dev/null 2>&1' _ "${bare[@]}"
# -XX:AOTMode=on turns a cache the JVM cannot use into an error instead of a silent slow start.
check "postinst trained fipsctl's AOT cache" test -s /usr/lib/fips/fipsctl.aot
if out=$("${bare[@]}" JDK_JAVA_OPTIONS=-XX:AOTMode=on /usr/bin/fipsctl --version 2>&1); then
    pass "fipsctl's AOT cache maps on the installed runtime"
else
    fail "fipsctl's AOT cache does not map: $out"
fi

if out=$("${bare[@]}" /usr/bin/fips --check -c /etc/fips/fips.yaml 2>&1); then
    pass "fips --check -c /etc/fips/fips.yaml"
else
    fail "fips --check -c /etc/fips/fips.yaml (exit $?): $out"
fi
# TUN, DNS, --check, TCP, Ethernet and Tor all run: the seeded config and the guide must not say otherwise.
check "the seeded config and the guide have no stale 'being added/wired' or 'not run' lines" \
    bash -c '! grep -niE "being (added|wired)|parsed but not run by this build" /etc/fips/fips.yaml \
        /usr/share/doc/fips/operator-guide.md'

# The installed daemon runs a node (scratch config: loopback UDP on a free port, no TUN/DNS, its own socket and
# key file), and the installed fipsctl reads its status. The daemon logs "running" once the socket is bound.
node_dir="$scratch/node"
mkdir "$node_dir"
cat > "$node_dir/fips.yaml" <<EOF
node:
  identity: { persistent: true }
  control: { socket_path: "$node_dir/control.sock" }
tun: { enabled: false }
dns: { enabled: false }
transports:
  udp: { bind_addr: "127.0.0.1:0" }
EOF
# It runs as fips.service would: group fips, only the unit's capability set (CapabilityBoundingSet), no new privileges.
unit_caps=$(sed -n 's/^CapabilityBoundingSet=//p' /usr/lib/systemd/system/fips.service)
setpriv_caps=-all$(for c in $unit_caps; do c=${c#CAP_}; printf ',+%s' "${c,,}"; done)
: > "$node_dir/log.txt"     # exists before tail opens it
"${bare[@]}" setpriv --regid=fips --clear-groups --bounding-set="$setpriv_caps" --no-new-privs -- \
    /usr/bin/fips -c "$node_dir/fips.yaml" > "$node_dir/log.txt" 2>&1 &
daemon_pid=$!
# Follow the log (inotify) until the "running" line; tail ends when the daemon exits, timeout after 60 s.
if grep -m1 -q 'running; stop with SIGTERM' < <(timeout 60 tail -n +1 -f --pid="$daemon_pid" "$node_dir/log.txt"); then
    pass "installed fips starts a node"
    check "the installed daemon seals with BoringSSL (the dependency, ADR 0054)" \
        grep -q 'AEAD backend: boringssl' "$node_dir/log.txt"
    check "the installed daemon warms its packet path up before the node starts (ADR 0068)" \
        grep -qE 'start-up warm-up: [0-9.]+ s; TCP stream through two loopback nodes' "$node_dir/log.txt"
    status=$("${bare[@]}" /usr/bin/fipsctl -s "$node_dir/control.sock" --json show status 2>&1) || true
    check "installed fipsctl reads show status over the control socket" grep -q '"state" *: *"running"' <<<"$status"
    # An unprivileged user may use the socket when in group fips, and is refused (exit 2) when not.
    # (-XX:-UsePerfData: no /tmp/hsperfdata_nobody left behind.)
    chmod 711 "$scratch"
    as_nobody=("${bare[@]}" JDK_JAVA_OPTIONS=-XX:-UsePerfData setpriv --reuid=nobody --regid=nogroup)
    status=$("${as_nobody[@]}" --groups=fips -- /usr/bin/fipsctl -s "$node_dir/control.sock" --json show status 2>&1) \
        || true
    check "a member of group fips (not root) reads show status" grep -q '"state" *: *"running"' <<<"$status"
    rc=0
    "${as_nobody[@]}" --clear-groups -- /usr/bin/fipsctl -s "$node_dir/control.sock" show status >/dev/null 2>&1 || rc=$?
    check "a user outside group fips is refused (exit 2)" test "$rc" = 2
    check "the node wrote its key beside its config (0600)" test "$(stat -c %a "$node_dir/fips.key" 2>/dev/null)" = 600
    check "control socket is mode 0770, group fips" test "$(stat -c '%a %G' "$node_dir/control.sock" 2>/dev/null)" = "770 fips"
    # CAP_NET_BIND_SERVICE is bit 10, CAP_NET_ADMIN bit 12; a container may lack them in its own bounding set.
    own_bnd=$(sed -n 's/^CapBnd:[[:space:]]*//p' /proc/self/status)
    want_eff=$(printf '%016x' $(( 0x$own_bnd & 0x1400 )))
    check "the daemon held no capability beyond the unit's ($unit_caps)" \
        test "$(sed -n 's/^CapEff:[[:space:]]*//p' "/proc/$daemon_pid/status")" = "$want_eff"
    kill -TERM "$daemon_pid"
    rc=0
    wait "$daemon_pid" || rc=$?
    daemon_pid=
    check "SIGTERM stops the daemon with exit 0" test "$rc" = 0
    check "the daemon removed its control socket" test ! -e "$node_dir/control.sock"
else
    fail "installed fips did not report running within 60 s:"
    sed 's/^/    /' "$node_dir/log.txt" 2>/dev/null | tail -20
fi

# fips-dns-setup and -teardown against a stub systemctl and a scratch /etc (FIPS_DNS_ETC), so that nothing on this
# host is reconfigured: the wait that gives up, then each backend's choice, file, reload and undo.
stub="$scratch/stub"
mkdir -p "$stub"
cat > "$stub/systemctl" <<'EOF_STUB'
#!/bin/sh
# FAKE_ACTIVE: the units that are active; FAKE_SYSTEMD: the version; other calls are logged to FAKE_LOG.
case "$1" in
    --version) echo "systemd ${FAKE_SYSTEMD:-252} (stub)" ;;
    is-active) [ "$2" = --quiet ] && shift; case " ${FAKE_ACTIVE:-} " in *" $2 "*) exit 0 ;; esac; exit 3 ;;
    *) echo "$*" >> "$FAKE_LOG" ;;
esac
EOF_STUB
chmod 755 "$stub/systemctl"
dns_env=(env PATH="$stub:/usr/sbin:/usr/bin:/sbin:/bin" FIPS_TUN=lo FIPS_DNS_WAIT_SECS=0
         FIPS_RUN_DIR="$scratch/dns-run" FAKE_LOG="$scratch/systemctl.log")
dns_case() { # name, expected backend, file it writes ("" for none), expected lines..., then -- extra env
    local name=$1 backend=$2 file=$3 etc="$scratch/dns-etc-$1"
    shift 3
    local lines=() extra=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do lines+=("$1"); shift; done
    [ $# -gt 0 ] && shift && extra=("$@")
    mkdir -p "$etc/dnsmasq.d"
    : > "$scratch/systemctl.log"
    if ! "${dns_env[@]}" FIPS_DNS_ETC="$etc" "${extra[@]}" /usr/lib/fips/fips-dns-setup > "$scratch/dns.log" 2>&1; then
        fail "fips-dns-setup ($name) failed: $(cat "$scratch/dns.log")"
        return
    fi
    check "fips-dns-setup ($name) picks $backend" test "$(cat "$scratch/dns-run/dns-backend" 2>/dev/null)" = "$backend"
    if [ -n "$file" ]; then
        local l ok=1
        for l in "${lines[@]}"; do grep -qxF -- "$l" "$etc/$file" 2>/dev/null || ok=0; done
        check "fips-dns-setup ($name) writes $file with ${lines[*]}" test "$ok" = 1
        check "fips-dns-setup ($name) reloads the resolver" test -s "$scratch/systemctl.log"
    else
        check "fips-dns-setup ($name) prints the manual step for ${lines[*]}" grep -qF -- "${lines[0]}" "$scratch/dns.log"
    fi
    "${dns_env[@]}" FIPS_DNS_ETC="$etc" "${extra[@]}" /usr/lib/fips/fips-dns-teardown > "$scratch/dns.log" 2>&1
    check "fips-dns-teardown ($name) removes its file and its state" \
        test ! -e "$scratch/dns-run/dns-backend" -a \( -z "$file" -o ! -e "$etc/$file" \)
}
if "${dns_env[@]}" FIPS_TUN=fips-test-absent /usr/lib/fips/fips-dns-setup > "$scratch/dns.log" 2>&1; then
    fail "fips-dns-setup fails when the interface does not exist"
else
    check "fips-dns-setup fails when the interface does not exist, saying why" grep -q 'did not appear' "$scratch/dns.log"
fi
dns_case resolved global-drop-in systemd/resolved.conf.d/fips.conf '[Resolve]' 'DNS=[::1]:5354' 'Domains=~fips' \
    -- FAKE_ACTIVE=systemd-resolved.service
dns_case delegate dns-delegate systemd/dns-delegate.d/fips.dns-delegate '[Delegate]' 'DNS=[::1]:5354' 'Domains=fips' \
    -- FAKE_ACTIVE=systemd-resolved.service FAKE_SYSTEMD=258
dns_case dnsmasq dnsmasq dnsmasq.d/fips.conf 'server=/fips/::1#5399' -- FAKE_ACTIVE=dnsmasq.service FIPS_DNS_PORT=5399
dns_case none none '' '[::1]:5354'
# A file the operator wrote (no marker line) survives a teardown that does not know what was configured.
mkdir -p "$scratch/dns-etc-own/dnsmasq.d"
echo 'server=/fips/::1#5354' > "$scratch/dns-etc-own/dnsmasq.d/fips.conf"
"${dns_env[@]}" FIPS_DNS_ETC="$scratch/dns-etc-own" /usr/lib/fips/fips-dns-teardown >/dev/null 2>&1
check "fips-dns-teardown leaves a resolver file it did not write" test -f "$scratch/dns-etc-own/dnsmasq.d/fips.conf"

if command -v systemd-analyze >/dev/null; then
    units=(/usr/lib/systemd/system/fips.service /usr/lib/systemd/system/fips-dns.service
           /usr/lib/systemd/system/fips-firewall.service /usr/lib/systemd/system/fips-gateway.service)
    # fips-firewall's ExecStart needs nft; without nftables only that complaint is expected.
    if out=$(systemd-analyze verify "${units[@]}" 2>&1) \
            || ! grep -v -e '/usr/sbin/nft' -e '^$' <<<"$out" | grep -q .; then
        pass "systemd-analyze verify accepts the units"
    else
        fail "systemd-analyze verify: $out"
    fi
else
    skip "systemd-analyze verify: systemd-analyze is not installed"
fi

# --- 3. upgrade (reinstall) keeps the operator's config ----------------------------------------------------------
echo '# edited by test-deb' >> /etc/fips/fips.yaml
if dpkg -i "$deb" > "$scratch/upgrade.log" 2>&1; then pass "dpkg -i over the installed package"; else
    cat "$scratch/upgrade.log"; fail "dpkg -i over the installed package"; fi
check "an edited fips.yaml survives the upgrade" grep -q '^# edited by test-deb$' /etc/fips/fips.yaml

# --- 4. remove, then purge ---------------------------------------------------------------------------------------
check "dpkg -r" bash -c "dpkg -r fips > '$scratch/remove.log' 2>&1"
check "remove keeps /etc/fips (config and keys)" test -f /etc/fips/fips.yaml -a -f /etc/fips/hosts
check "remove takes the runtime and launchers" test ! -e /usr/lib/fips -a ! -e /usr/bin/fips -a ! -e /usr/bin/fipsctl \
    -a ! -e /usr/bin/fips-gateway
check "dpkg -P" bash -c "dpkg -P fips > '$scratch/purge.log' 2>&1"
check "dpkg no longer knows fips" bash -c "! dpkg-query -W fips >/dev/null 2>&1"
for p in /etc/fips /usr/lib/fips /usr/share/fips /usr/share/doc/fips /run/fips /usr/bin/fips /usr/bin/fipsctl \
         /usr/lib/systemd/system/fips.service /usr/lib/systemd/system/fips-dns.service \
         /usr/lib/systemd/system/fips-firewall.service /usr/lib/systemd/system/fips-gateway.service \
         /usr/lib/tmpfiles.d/fips.conf /usr/bin/fips-gateway; do
    check "purge left no $p" test ! -e "$p"
done
check "purge removed the fips group" bash -c '! getent group fips >/dev/null'
check "no fips user exists" bash -c '! getent passwd fips >/dev/null'

echo "test-deb: $failures failed, ${#skips[@]} skipped, $((SECONDS - start)) s"
for s in "${skips[@]}"; do echo "test-deb: skipped: $s"; done
[ "$failures" = 0 ]
