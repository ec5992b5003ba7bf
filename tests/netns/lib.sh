# Shared helpers of the namespace end-to-end tests (sourced, never run). Each test calls e2e_init NAME first: it
# skips (exit 0, "SKIP: ...") when not root or when ip, ping, iperf3, /dev/net/tun or network namespaces are
# missing, and installs the EXIT trap that stops every daemon and iperf3 it started, deletes its namespaces (and
# with them its veths) and /etc/netns/<ns>, and removes its work directory. Every name carries E2E_ID, so runs in
# parallel (and leftovers of a killed run) never collide. Traffic stays inside the test's own namespaces.
#
# Nodes are named by a short tag (a, b, c); per node the arrays hold its namespace, config, log, control socket,
# identity and daemon pid. Conditions are polled against a deadline (e2e_wait), never slept on.

E2E_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Most tests start several daemons side by side on a small CI machine, and chaos restarts them mid-stream: they skip
# bin/fips's start-up warm-up (ADR 0068) unless FIPS_DAEMON_WARMUP is set. A script that sets E2E_KEEP_WARMUP=1
# before sourcing this file keeps bin/fips's default (two-nodes.sh, and the benchmarks that measure the start).
[ -n "${E2E_KEEP_WARMUP:-}" ] || export FIPS_DAEMON_WARMUP=${FIPS_DAEMON_WARMUP-0}
E2E_ID=${E2E_ID:-$$$((RANDOM % 100))}
# Namespace names start with E2E_NS_PREFIX (fe2e), so a run beside another harness's can be told apart.
E2E_NS_PREFIX=${E2E_NS_PREFIX:-fe2e}
E2E_NAME=
E2E_DIR=
E2E_NETNS=()
E2E_BG=()
declare -A E2E_NS E2E_CFG E2E_LOG E2E_SOCK E2E_NSEC E2E_NPUB E2E_PID E2E_IP E2E_ADDR E2E_FROM

e2e_log() { printf '[%s %s] %s\n' "$(date +%T)" "$E2E_NAME" "$*"; }

e2e_skip() { echo "SKIP: $E2E_NAME: $*"; exit 0; }

# Prints the end of every daemon log, then fails the test.
e2e_fail() {
    echo "FAIL: $E2E_NAME: $*"
    local n
    for n in "${!E2E_LOG[@]}"; do
        [ -f "${E2E_LOG[$n]}" ] || continue
        echo "---- last lines of node $n's log (${E2E_LOG[$n]}) ----"
        tail -n 25 "${E2E_LOG[$n]}"
    done
    exit 1
}

e2e_pass() { echo "PASS: $E2E_NAME ($((SECONDS - E2E_T0)) s)"; exit 0; }

e2e_init() {
    E2E_NAME=$1
    E2E_T0=$SECONDS
    [ "$(id -u)" = 0 ] || e2e_skip "needs root"
    local c
    for c in ip ping iperf3 ss; do
        command -v "$c" >/dev/null 2>&1 || e2e_skip "$c is not installed"
    done
    [ -c /dev/net/tun ] || e2e_skip "/dev/net/tun is missing"
    if ! ip netns add "${E2E_NS_PREFIX}${E2E_ID}p" 2>/dev/null; then
        e2e_skip "cannot create network namespaces"
    fi
    ip netns del "${E2E_NS_PREFIX}${E2E_ID}p"
    E2E_DIR=$(mktemp -d "/tmp/fips-e2e-$E2E_NAME.XXXXXX")
    trap e2e_cleanup EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    # Build (or check) the jars once, in the foreground, before any daemon starts.
    "$E2E_ROOT/bin/fipsctl" --version >/dev/null || e2e_fail "bin/fipsctl does not run"
}

e2e_cleanup() {
    local rc=$? n p ns i
    trap - EXIT INT TERM
    for n in "${!E2E_PID[@]}"; do
        p=${E2E_PID[$n]}
        [ -n "$p" ] && kill -TERM "$p" 2>/dev/null
    done
    for p in "${E2E_BG[@]}"; do kill -TERM "$p" 2>/dev/null; done
    # Up to 5 s for a clean stop, then SIGKILL.
    for i in $(seq 1 50); do
        local alive=0
        for n in "${!E2E_PID[@]}"; do
            p=${E2E_PID[$n]}
            [ -n "$p" ] && e2e_alive "$p" && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1
    done
    for n in "${!E2E_PID[@]}"; do
        p=${E2E_PID[$n]}
        [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
    done
    for p in "${E2E_BG[@]}"; do kill -KILL "$p" 2>/dev/null; done
    { wait; } 2>/dev/null
    for ns in "${E2E_NETNS[@]}"; do
        # Anything still running inside our own namespace was started by this test.
        for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null; done
        ip netns del "$ns" 2>/dev/null
        rm -rf "/etc/netns/$ns"
    done
    if [ $rc != 0 ] && [ -n "${E2E_KEEP:-}" ]; then
        echo "logs kept in $E2E_DIR"
    else
        [ -n "$E2E_DIR" ] && rm -rf "$E2E_DIR"
    fi
    exit $rc
}

# e2e_alive PID: the process exists and is not a zombie.
e2e_alive() { [ -r "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null; }

# e2e_wait SECONDS CMD...: runs CMD every 0.2 s until it succeeds (0) or SECONDS have passed (1).
e2e_wait() {
    local limit=$1; shift
    local deadline=$((SECONDS + limit))
    while :; do
        "$@" >/dev/null 2>&1 && return 0
        [ $SECONDS -ge $deadline ] && return 1
        sleep 0.2
    done
}

# e2e_node TAG: a namespace for node TAG (lo up, resolv.conf pointing at the node's DNS responder on ::1) and a
# fresh identity.
e2e_node() {
    local n=$1 ns="${E2E_NS_PREFIX}${E2E_ID}$1" keys
    ip netns add "$ns" || e2e_fail "ip netns add $ns"
    E2E_NETNS+=("$ns")
    ip -n "$ns" link set lo up
    mkdir -p "/etc/netns/$ns"
    echo "nameserver ::1" > "/etc/netns/$ns/resolv.conf"
    E2E_NS[$n]=$ns
    E2E_CFG[$n]=$E2E_DIR/$n.yaml
    E2E_LOG[$n]=$E2E_DIR/$n.log
    E2E_SOCK[$n]=$E2E_DIR/$n.sock
    keys=$("$E2E_ROOT/bin/fipsctl" keygen -s 2>/dev/null) || e2e_fail "fipsctl keygen failed"
    E2E_NSEC[$n]=$(sed -n 1p <<<"$keys")
    E2E_NPUB[$n]=$(sed -n 2p <<<"$keys")
    case "${E2E_NSEC[$n]}:${E2E_NPUB[$n]}" in
        nsec1*:npub1*) ;;
        *) e2e_fail "unexpected keygen output: $keys" ;;
    esac
}

# e2e_veth TAG1 IP1 TAG2 IP2: a veth pair between the two nodes' namespaces, addresses IP1/24 and IP2/24. Node
# TAGi's UDP transport binds IPi unless a later call gives it another address (then it binds 0.0.0.0).
e2e_veth() {
    local a=$1 ipa=$2 b=$3 ipb=$4
    local va="f${E2E_ID}$a$b" vb="f${E2E_ID}$b$a"
    ip link add "$va" netns "${E2E_NS[$a]}" type veth peer name "$vb" netns "${E2E_NS[$b]}" \
        || e2e_fail "ip link add $va"
    ip -n "${E2E_NS[$a]}" addr add "$ipa/24" dev "$va"
    ip -n "${E2E_NS[$b]}" addr add "$ipb/24" dev "$vb"
    ip -n "${E2E_NS[$a]}" link set "$va" up
    ip -n "${E2E_NS[$b]}" link set "$vb" up
    local n ip
    for n in "$a:$ipa" "$b:$ipb"; do
        ip=${n#*:}; n=${n%%:*}
        if [ -n "${E2E_IP[$n]:-}" ]; then E2E_IP[$n]=0.0.0.0; else E2E_IP[$n]=$ip; fi
    done
}

# e2e_config TAG [PEER_TAG:PEER_IP ...]: writes node TAG's fips.yaml: its identity, control socket, TUN fips0,
# DNS on [::1]:53, UDP on its address port 2121 (E2E_TRANSPORT=tcp: TCP on port 8443 instead), the given peers;
# tun.offload from E2E_TUN_OFFLOAD when set, node.dataplane.threading from E2E_THREADING when set (auto, dedicated,
# compact). E2E_NODE_EXTRA (lines indented under node:, e.g.
# "  rekey:\n    after_secs: 3") is added to the node section.
e2e_config() {
    local n=$1; shift
    {
        echo "node:"
        echo "  identity:"
        echo "    nsec: \"${E2E_NSEC[$n]}\""
        echo "  control:"
        echo "    socket_path: \"${E2E_SOCK[$n]}\""
        [ -n "${E2E_NODE_EXTRA:-}" ] && printf '%b\n' "$E2E_NODE_EXTRA"
        # E2E_THREADING=compact runs every data-plane agent of each node on one thread (default: the node's, auto)
        if [ -n "${E2E_THREADING:-}" ]; then
            echo "  dataplane:"
            echo "    threading: ${E2E_THREADING}"
        fi
        echo "tun:"
        echo "  enabled: true"
        echo "  name: fips0"
        # E2E_TUN_OFFLOAD=off runs the nodes without TUN offloads (default: the node's own, auto)
        [ -n "${E2E_TUN_OFFLOAD:-}" ] && echo "  offload: ${E2E_TUN_OFFLOAD}"
        echo "dns:"
        echo "  enabled: true"
        echo "  bind_addr: \"::1\""
        echo "  port: 53"
        # E2E_TRANSPORT=tcp: a TCP transport listening on port 8443 instead of UDP on 2121.
        local tr=${E2E_TRANSPORT:-udp} port=2121
        [ "$tr" = tcp ] && port=8443
        echo "transports:"
        echo "  $tr:"
        echo "    bind_addr: \"${E2E_IP[$n]}:$port\""
        echo "peers:"
        local p
        for p in "$@"; do
            echo "  - npub: \"${E2E_NPUB[${p%%:*}]}\""
            echo "    alias: \"${p%%:*}\""
            echo "    addresses:"
            echo "      - transport: $tr"
            echo "        addr: \"${p#*:}:$port\""
        done
    } > "${E2E_CFG[$n]}"
}

# e2e_start TAG [LOG_LEVEL]: starts node TAG's daemon in its namespace (log appended to its log file; level
# LOG_LEVEL, else $E2E_LOG_LEVEL, else info) and waits up to 60 s until it logs "running", its control socket
# exists and fips0 has its address. E2E_PID[TAG] is the JVM's pid (ip netns exec and
# bin/fips both exec).
e2e_start() {
    e2e_launch "$@"
    e2e_await "$1"
}

# e2e_launch TAG [LOG_LEVEL]: e2e_start without the wait; e2e_await TAG waits. Several daemons launched first and
# then awaited start side by side.
e2e_launch() {
    local n=$1 level=${2:-${E2E_LOG_LEVEL:-info}}
    echo "==== start $(date +%T) ====" >> "${E2E_LOG[$n]}"
    # Readiness is judged on this start's log lines only, and a killed daemon's stale socket must not count.
    E2E_FROM[$n]=$(wc -l < "${E2E_LOG[$n]}")
    rm -f "${E2E_SOCK[$n]}"
    ip netns exec "${E2E_NS[$n]}" "$E2E_ROOT/bin/fips" -c "${E2E_CFG[$n]}" --log-level "$level" \
        >> "${E2E_LOG[$n]}" 2>&1 &
    E2E_PID[$n]=$!
    # Out of the job table, so bash prints no "Killed" line when a test kills it; e2e_alive watches it instead.
    disown "${E2E_PID[$n]}"
}

# e2e_await TAG [SECONDS]: waits up to SECONDS (60) for the daemon e2e_launch started (see e2e_start).
e2e_await() {
    local n=$1 from=${E2E_FROM[$1]} limit=${2:-60}
    local deadline=$((SECONDS + limit))
    until [ -S "${E2E_SOCK[$n]}" ] && tail -n "+$from" "${E2E_LOG[$n]}" | grep -q 'running; stop with' \
            && ip -n "${E2E_NS[$n]}" -6 addr show dev fips0 2>/dev/null | grep -q 'inet6 fd'; do
        e2e_alive "${E2E_PID[$n]}" || e2e_fail "node $n's daemon exited during start"
        [ $SECONDS -ge $deadline ] && e2e_fail "node $n did not come up within $limit s"
        sleep 0.2
    done
    # SIGKILL and the CPU figures must reach the JVM itself, not a wrapper.
    [ "$(cat "/proc/${E2E_PID[$n]}/comm" 2>/dev/null)" = java ] \
        || e2e_fail "node $n: pid ${E2E_PID[$n]} is not the JVM"
    E2E_ADDR[$n]=$(ip -n "${E2E_NS[$n]}" -6 addr show dev fips0 | sed -n 's/.*inet6 \(fd[0-9a-f:]*\)\/.*/\1/p' | head -n1)
}

# e2e_stop TAG SIGNAL: sends SIGNAL to node TAG's daemon and waits up to 10 s for it to exit.
e2e_stop() {
    local n=$1 sig=$2 p=${E2E_PID[$1]}
    kill "-$sig" "$p" 2>/dev/null
    local deadline=$((SECONDS + 10))
    while e2e_alive "$p"; do
        [ $SECONDS -ge $deadline ] && e2e_fail "node $n did not exit within 10 s of SIG$sig"
        sleep 0.1
    done
    E2E_PID[$n]=
}

# e2e_in TAG CMD...: runs CMD in node TAG's namespace.
e2e_in() { local ns=${E2E_NS[$1]}; shift; ip netns exec "$ns" "$@"; }

# e2e_ctl TAG ARGS...: fipsctl against node TAG's control socket (JSON, as stdout is not a terminal).
e2e_ctl() { local s=${E2E_SOCK[$1]}; shift; "$E2E_ROOT/bin/fipsctl" -s "$s" --json "$@"; }

# e2e_ping_ok FROM TO: one ping by name from FROM to TO's npub.fips, answered within 1 s.
e2e_ping_ok() { e2e_in "$1" ping -6 -n -c 1 -W 1 "${E2E_NPUB[$2]}.fips"; }

# e2e_iperf_server TAG PORT: a one-shot iperf3 server in TAG's namespace, waited for until it listens (10 s).
e2e_iperf_server() {
    local n=$1 port=$2
    e2e_in "$n" iperf3 -s -1 -p "$port" > "$E2E_DIR/iperf-server-$n-$port.log" 2>&1 &
    E2E_BG+=($!)
    e2e_wait 10 sh -c "ip netns exec '${E2E_NS[$n]}' ss -Htln | grep -q ':$port\\b'" \
        || e2e_fail "iperf3 server in $n did not listen on port $port"
}

# e2e_netem_ok: succeeds when this kernel runs `tc qdisc ... netem` (probed on lo of a scratch namespace); some
# kernels are built without sch_netem ("Specified qdisc kind is unknown").
e2e_netem_ok() {
    local ns="${E2E_NS_PREFIX}${E2E_ID}q" ok=1
    ip netns add "$ns" 2>/dev/null || return 1
    ip -n "$ns" link set lo up
    ip netns exec "$ns" tc qdisc add dev lo root netem delay 1ms 2>/dev/null && ok=0
    ip netns del "$ns"
    return $ok
}

# e2e_relay_links DELAY JITTER LOSS SEED "TAG1 IP1 TAG2 IP2"...: the netem stand-in for kernels without sch_netem.
# One tests/netns/netem_relay.py (run in the root namespace, pid in E2E_RELAY and E2E_BG, counters at its exit in
# $E2E_DIR/relay.log, how it was scheduled in E2E_RELAY_HOW) creates per link a TAP in each node's namespace, named as e2e_veth names its veth ends, and
# forwards frames between them with DELAY ms +- JITTER ms (uniform) and LOSS % loss per direction, drawn from SEED.
# The ends get IPi/24 and are brought up as e2e_veth does. Killing the relay removes its TAPs. The relay runs under
# SCHED_FIFO priority 1 (chrt; E2E_RELAY_SCHED=normal leaves it to the ordinary scheduler): netem works in the
# kernel's softirq and timers, and a relay that waits for a CPU behind busy JVMs on a loaded machine added tens to
# hundreds of ms per hop; it uses little CPU at the chaos test's rates, and the kernel's RT throttling bounds it.
e2e_relay_links() {
    local delay=$1 jitter=$2 loss=$3 seed=$4
    shift 4
    local l a ipa b ipb spec=() ready=$E2E_DIR/relay.ready
    for l in "$@"; do
        read -r a ipa b ipb <<<"$l"
        spec+=("f${E2E_ID}$a$b@${E2E_NS[$a]}=f${E2E_ID}$b$a@${E2E_NS[$b]}")
    done
    rm -f "$ready"
    local sched=()
    [ "${E2E_RELAY_SCHED:-fifo}" = fifo ] && chrt -f 1 true 2>/dev/null && sched=(chrt -f 1)
    E2E_RELAY_HOW=${sched[*]:-ordinary scheduling}
    "${sched[@]}" python3 "$E2E_ROOT/tests/netns/netem_relay.py" --delay "$delay" --jitter "$jitter" \
        --loss "$loss" --seed "$seed" --ready "$ready" "${spec[@]}" 2> "$E2E_DIR/relay.log" &
    E2E_RELAY=$!
    E2E_BG+=($!)
    local deadline=$((SECONDS + 20))
    until [ -f "$ready" ]; do
        e2e_alive "$E2E_RELAY" || e2e_fail "netem_relay.py exited: $(cat "$E2E_DIR/relay.log")"
        [ $SECONDS -ge $deadline ] && e2e_fail "netem_relay.py not ready within 20 s"
        sleep 0.1
    done
    local n ip
    for l in "$@"; do
        read -r a ipa b ipb <<<"$l"
        ip -n "${E2E_NS[$a]}" addr add "$ipa/24" dev "f${E2E_ID}$a$b" || e2e_fail "address on f${E2E_ID}$a$b"
        ip -n "${E2E_NS[$b]}" addr add "$ipb/24" dev "f${E2E_ID}$b$a" || e2e_fail "address on f${E2E_ID}$b$a"
        ip -n "${E2E_NS[$a]}" link set "f${E2E_ID}$a$b" up
        ip -n "${E2E_NS[$b]}" link set "f${E2E_ID}$b$a" up
        for n in "$a:$ipa" "$b:$ipb"; do
            ip=${n#*:}; n=${n%%:*}
            if [ -n "${E2E_IP[$n]:-}" ]; then E2E_IP[$n]=0.0.0.0; else E2E_IP[$n]=$ip; fi
        done
    done
}

# e2e_relay_counters: stops the relay of e2e_relay_links (SIGTERM, up to 5 s) and prints its per-direction
# counters (frames read, lost, over the queue limit, not writable, sent).
e2e_relay_counters() {
    [ -n "${E2E_RELAY:-}" ] || return 0
    kill -TERM "$E2E_RELAY" 2>/dev/null
    local deadline=$((SECONDS + 5))
    while e2e_alive "$E2E_RELAY" && [ $SECONDS -lt $deadline ]; do sleep 0.1; done
    cat "$E2E_DIR/relay.log"
    E2E_RELAY=
}
