#!/usr/bin/env bash
# Chaos: NODES daemons (default 6), each in its own namespace: source s, destination d and NODES-2 transits on two
# rails (a c f ... and b e g ...) with a rung between the transits at the same position, so s..d has two disjoint
# paths (s-a-c-d and s-b-e-d for six nodes) and more through the rungs. Every link is impaired in both directions
# with "delay DELAY jitter JITTER loss LOSS": by tc netem on both ends of a veth pair where the kernel has sch_netem;
# without it (e.g. a kernel built without CONFIG_NET_SCH_NETEM) by tests/netns/netem_relay.py, a userspace relay
# between two TAP devices per link (one in each node's namespace) that applies the same uniform delay/jitter and
# random loss per direction from a seeded generator (IMPAIR=auto|netem|relay picks; the run says which it applied).
# Before the daemons start, COUNT pings across the first link check that the impairment is there: the shortest round
# trip is at least 2 x (DELAY - JITTER) ms. The smallest node_addr (the tree root) is given to the first transit
# killed, so the root dies too.
# While s sends a checksummed TCP stream (python3 over fips0, paced at RATE bytes/s until the chaos ends) to d, the
# transits are killed with SIGKILL one by one (CHURN kills per minute, in the order a b c e ...), each restarted
# DOWN s after its kill; the next kill waits until the restarted one has its peers back, so at most one transit is
# down at a time. The first two kills (a, the root, then b on the other path) always happen; later ones only while
# they fit in DURATION. A ping every 200 ms s -> d and a 0.5 s survey of every daemon's root record, per kill and
# restart, the longest gap between ping replies (outage) and the time until all live daemons name one live root
# (reconvergence); benchmarks/chaos.sh runs this longer and records the table.
# Asserts:
#  1. the stream arrives whole: d's byte count and sha256 equal s's, and it still moves after the chaos: RATE more
#     bytes within 30 s of the last restart's peers being back, or, when it does not, within RESUME_LIMIT s (150: the
#     sender's TCP retransmission back-off reaches Linux's 120 s maximum after a long outage) while the run prints
#     the sender's TCP state (ss -ti: rto, backoff) and 20 pings s -> d: a stall that outlasts TCP's back-off is a
#     lock-out and fails;
#  2. within 30 s of the last restart every daemon answers and all name the same root, one of them;
#  3. no daemon log holds a Java stack trace ("\tat ..." frames, "Caused by:", a line starting with an exception).
# s and d log at SD_LOG_LEVEL (debug), the transits at info. On a failure the test keeps its directory (unless
# E2E_KEEP=) with every daemon's log and, per live daemon, state-<node>.txt: the control socket's show_status,
# show_peers, show_links, show_sessions, show_tree, show_routing and show_cache (what `fipsctl show` prints, asked
# by chaos.py: a fipsctl JVM per query took 30 s per node at load 20), plus fips0's addresses and routes and the
# interface counters, taken at the failure; relay.log holds the relay's counters per link and direction.
# The machine: the 1-minute load is sampled every 5 s into load.log and summarised at the end and on a failure;
# more than CAPACITY (3) daemons per CPU, or a machine already loaded above its CPUs at the start, gets a WARNING:
# on the 2-vCPU VM eight daemons at load 30+ starve (links' MMP SRTT of 100-600 ms on 2 ms links, ping s -> d
# losing 30-60 %), and a failure there says little about the node (docs/benchmarks.md, 2026-12-06 "Chaos at eight
# nodes: a black hole and a starved machine").
# Knobs (environment): NODES (>= 6), LOSS (%, 1), DELAY (ms, 2), JITTER (ms, 1), CHURN (kills/min, 4), DURATION
# (s, 60), DOWN (s, 3), RATE (bytes/s, 131072), START_LIMIT (s, 150), RESUME_LIMIT (s, 150), CAPACITY (3),
# IMPAIR (auto), SEED (relay's, 1),
# SD_LOG_LEVEL (debug), STARTUP_ONLY (1: pass once the mesh is up and s pings d; no stream, no kills), CHAOS_SAVE
# (a directory to copy the run's directory to after a pass). The
# defaults aim at a CI run of about 2 min on an idle 2-vCPU VM; on a loaded one the daemons' start-up dominates
# (4-5 min at load 20-38).
set -u
. "$(dirname "$0")/lib.sh"
NODES=${NODES:-6}
LOSS=${LOSS:-1}
DELAY=${DELAY:-2}
JITTER=${JITTER:-1}
CHURN=${CHURN:-4}
DURATION=${DURATION:-60}
DOWN=${DOWN:-3}
RATE=${RATE:-131072}
IMPAIR=${IMPAIR:-auto}
SEED=${SEED:-1}
SD_LOG_LEVEL=${SD_LOG_LEVEL:-debug}
STARTUP_ONLY=${STARTUP_ONLY:-}
export E2E_KEEP=${E2E_KEEP-1}
# How long a daemon may take to start, alone or the group at once: 60 s (e2e_start's) was not enough for one
# restarted JVM at load 38 on the 2-vCPU VM (67 s; the group took 95-116 s at load 19-38).
START_LIMIT=${START_LIMIT:-150}
RESUME_LIMIT=${RESUME_LIMIT:-150}
CAPACITY=${CAPACITY:-3}
PORT=5201
e2e_init chaos
command -v python3 >/dev/null 2>&1 || e2e_skip "python3 is not installed"
command -v tc >/dev/null 2>&1 || e2e_skip "tc is not installed"
[ "$NODES" -ge 6 ] && [ "$NODES" -le 18 ] || e2e_fail "NODES must be 6..18, not $NODES"
case $IMPAIR in
    auto) if e2e_netem_ok; then IMPAIR=netem; else IMPAIR=relay; fi ;;
    netem) e2e_netem_ok || e2e_skip "IMPAIR=netem but this kernel has no sch_netem" ;;
    relay) ;;
    *) e2e_fail "IMPAIR must be auto, netem or relay, not $IMPAIR" ;;
esac

# On a failure, first the state of every live daemon and its namespace (see the head); then lib.sh's e2e_fail.
eval "lib_$(declare -f e2e_fail)"
e2e_fail() {
    local n
    for n in "${!E2E_PID[@]}"; do
        [ -n "${E2E_PID[$n]}" ] && e2e_alive "${E2E_PID[$n]}" || continue
        {
            echo "== $(date +%T.%N) node $n (${E2E_NPUB[$n]:-})"
            python3 "$tool" dump "${E2E_SOCK[$n]}"
            echo "-- ip -6 addr/route fips0, ip -s link"
            ip -n "${E2E_NS[$n]}" -6 addr show dev fips0 2>&1
            ip -n "${E2E_NS[$n]}" -6 route show 2>&1
            ip -n "${E2E_NS[$n]}" -s link 2>&1
        } > "$E2E_DIR/state-$n.txt" 2>&1
    done
    declare -F load_summary >/dev/null && load_summary
    lib_e2e_fail "$@"
}
tool=$E2E_ROOT/tests/netns/chaos.py
e2e_log "nodes $NODES, loss $LOSS %, delay $DELAY ms, jitter $JITTER ms, churn $CHURN kills/min, duration" \
    "$DURATION s, down $DOWN s, rate $RATE B/s; $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
# The machine's share: a 1-minute load sample every 5 s (load.log: unix time, load1, runnable/threads).
while :; do echo "$(date +%s) $(cut -d' ' -f1,4 /proc/loadavg)"; sleep 5; done > "$E2E_DIR/load.log" 2>/dev/null &
E2E_BG+=($!)
load_summary() {
    [ -s "$E2E_DIR/load.log" ] || return 0
    e2e_log "load (1 min) during the run: $(sort -n -k2 "$E2E_DIR/load.log" | awk -v c="$(nproc)" '{ v[NR] = $2 }
        END { printf "min %.1f, median %.1f, max %.1f on %d CPUs (%d samples)", v[1], v[int((NR + 1) / 2)], v[NR],
        c, NR }')"
}
if [ "$NODES" -gt $((CAPACITY * $(nproc))) ]; then
    e2e_log "WARNING: $NODES daemons on $(nproc) CPUs is more than $CAPACITY per CPU: under load they starve, and a" \
        "stall then says more about the machine than about the node (see the load summary at the end)"
fi
if awk -v l="$(cut -d' ' -f1 /proc/loadavg)" -v c="$(nproc)" 'BEGIN { exit !(l > c) }'; then
    e2e_log "WARNING: the machine is already loaded (1-min load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs)"
fi

# Transit tags: single letters (veth names stay short), d and s excluded. Rail = index % 2, position = index / 2.
letters=(a b c e f g h i j k l m n o p q)
transits=("${letters[@]:0:NODES-2}")
tags=(s d "${transits[@]}")
for n in "${tags[@]}"; do e2e_node "$n"; done

# The smallest node_addr becomes the tree root: give that identity to transit a, the first one killed.
declare -A addr
for n in "${tags[@]}"; do addr[$n]=$(python3 "$tool" nodeaddr "${E2E_NPUB[$n]}") || e2e_fail "nodeaddr"; done
min=s
for n in "${tags[@]}"; do [[ ${addr[$n]} < ${addr[$min]} ]] && min=$n; done
if [ "$min" != a ]; then
    for v in E2E_NSEC E2E_NPUB addr; do
        declare -n arr=$v
        t=${arr[a]}; arr[a]=${arr[$min]}; arr[$min]=$t
        unset -n arr
    done
fi

# Links: s to both rails' first transits, along each rail, rungs, both rails' last transits to d.
links=()
rail() {
    local i out=()
    for ((i = $1; i < ${#transits[@]}; i += 2)); do out+=("${transits[i]}"); done
    echo "${out[@]}"
}
read -r -a rail0 <<<"$(rail 0)"
read -r -a rail1 <<<"$(rail 1)"
for r in 0 1; do
    declare -n rl=rail$r
    links+=("s ${rl[0]}")
    for ((i = 1; i < ${#rl[@]}; i++)); do links+=("${rl[i-1]} ${rl[i]}"); done
    links+=("${rl[-1]} d")
    unset -n rl
done
for ((i = 0; i < ${#rail1[@]}; i++)); do links+=("${rail0[i]} ${rail1[i]}"); done
declare -A peers degree
k=0
specs=()
for l in "${links[@]}"; do
    read -r x y <<<"$l"
    k=$((k + 1))
    specs+=("$x 10.207.$k.1 $y 10.207.$k.2")
    peers[$x]+=" $y:10.207.$k.2"
    peers[$y]+=" $x:10.207.$k.1"
    degree[$x]=$((${degree[$x]:-0} + 1))
    degree[$y]=$((${degree[$y]:-0} + 1))
done
if [ "$IMPAIR" = netem ]; then
    for spec in "${specs[@]}"; do
        read -r x ipx y ipy <<<"$spec"
        e2e_veth "$x" "$ipx" "$y" "$ipy"
        for end in "$x$y" "$y$x"; do
            e2e_in "${end:0:1}" tc qdisc add dev "f${E2E_ID}$end" root netem delay "${DELAY}ms" "${JITTER}ms" \
                loss "${LOSS}%" || e2e_fail "tc netem on f${E2E_ID}$end"
        done
    done
    e2e_log "impairment: netem delay ${DELAY}ms jitter ${JITTER}ms loss ${LOSS}% on both ends of ${#links[@]} veths"
else
    e2e_relay_links "$DELAY" "$JITTER" "$LOSS" "$SEED" "${specs[@]}"
    e2e_log "impairment: kernel has no sch_netem (or IMPAIR=relay): netem_relay.py, delay ${DELAY}ms jitter" \
        "${JITTER}ms (uniform) loss ${LOSS}% per direction on ${#links[@]} TAP pairs (seed $SEED; $E2E_RELAY_HOW)"
fi
# The impairment is there: the shortest of 20 round trips over the first link is at least 2 x (DELAY - JITTER) ms
# (a lower bound only: a loaded machine adds to it, never takes away).
read -r x ipx y ipy <<<"${specs[0]}"
rtt=$(e2e_in "$x" ping -n -q -c 20 -i 0.05 -w 10 "$ipy" | sed -n 's|^rtt [^=]*= \([0-9.]*\)/\([0-9.]*\)/.*|\1 \2|p')
[ -n "$rtt" ] || e2e_fail "no ping reply over the link $x-$y"
e2e_log "link $x-$y: 20 pings, rtt min/avg ${rtt/ //} ms"
awk -v m="${rtt% *}" -v d="$DELAY" -v j="$JITTER" 'BEGIN { exit !(m + 0.05 >= 2 * (d - j)) }' \
    || e2e_fail "link $x-$y: shortest rtt ${rtt% *} ms < 2 x ($DELAY - $JITTER) ms: impairment not applied"
e2e_log "links: ${links[*]}"
for n in "${tags[@]}"; do
    # shellcheck disable=SC2086
    e2e_config "$n" ${peers[$n]}
done
t=$SECONDS
for n in "${tags[@]}"; do
    case $n in s | d) e2e_launch "$n" "$SD_LOG_LEVEL" ;; *) e2e_launch "$n" ;; esac
done
# All JVMs start side by side and share the CPUs: START_LIMIT s for the group.
for n in "${tags[@]}"; do e2e_await "$n" "$START_LIMIT"; done
e2e_log "$NODES daemons up in $((SECONDS - t)) s; root will be a (${addr[a]})"
socks=()
for n in "${tags[@]}"; do socks+=("${E2E_SOCK[$n]}"); done

# Mesh up: every node has its peers and s reaches d by name.
for n in "${tags[@]}"; do
    e2e_wait 60 python3 "$tool" peers "${E2E_SOCK[$n]}" "${degree[$n]}" \
        || e2e_fail "node $n did not get its ${degree[$n]} peers within 60 s"
done
e2e_wait 60 e2e_ping_ok s d || e2e_fail "no ping reply s -> d within 60 s"
e2e_log "mesh up after $((SECONDS - t)) s"
[ -n "$STARTUP_ONLY" ] && e2e_pass

events=$E2E_DIR/events
: > "$events"
e2e_in s ping -6 -D -n -i 0.2 -W 1 "${E2E_ADDR[d]}" > "$E2E_DIR/ping.log" 2>&1 &
E2E_BG+=($!)
python3 "$tool" monitor "$E2E_DIR/monitor.log" 0.5 "${socks[@]}" &
E2E_BG+=($!)

# The transfer: d receives, s sends at RATE until the chaos is over (the file $stop).
stop=$E2E_DIR/stop
limit=$((DURATION + 4 * (START_LIMIT + 60)))
e2e_in d python3 "$tool" recv $PORT $limit "$E2E_DIR/progress" > "$E2E_DIR/recv.out" 2> "$E2E_DIR/recv.err" &
rpid=$!
E2E_BG+=($rpid)
e2e_wait 10 sh -c "ip netns exec '${E2E_NS[d]}' ss -Htln | grep -q ':$PORT\\b'" || e2e_fail "receiver not listening"
e2e_in s python3 "$tool" send "${E2E_ADDR[d]}" $PORT "$RATE" "$stop" $limit \
    > "$E2E_DIR/send.out" 2> "$E2E_DIR/send.err" &
spid=$!
E2E_BG+=($spid)
e2e_log "transfer s -> d started ($RATE B/s)"

# The chaos: kills on schedule (every 60/CHURN s from 5 s in); after the first two, only while a kill and its DOWN s
# still fit before DURATION - 5 s: a schedule that fell behind (slow restarts on a loaded machine) drops the kills
# that no longer fit rather than stretching the run.
t0=$SECONDS
interval=$(awk -v c="$CHURN" 'BEGIN { printf "%.3f", 60 / c }')
kills=0
slot=0
while :; do
    at=$(awk -v i="$interval" -v k=$slot 'BEGIN { printf "%d", 5 + k * i }')
    slot=$((slot + 1))
    if [ $kills -ge 2 ]; then
        [ $((at + DOWN + 5)) -le "$DURATION" ] || break
        [ $((SECONDS - t0 + DOWN + 5)) -le "$DURATION" ] || break
    fi
    while [ $((SECONDS - t0)) -lt "$at" ]; do sleep 0.2; done   # the schedule itself, not a synchronisation
    v=${transits[kills % ${#transits[@]}]}
    kills=$((kills + 1))
    echo "$(date +%s.%N) kill $v" >> "$events"
    e2e_stop "$v" KILL
    killed=$SECONDS
    e2e_log "kill $kills: $v (SIGKILL) at +$((SECONDS - t0)) s"
    while [ $((SECONDS - killed)) -lt "$DOWN" ]; do sleep 0.2; done   # down time, part of the chaos
    e2e_launch "$v"
    echo "$(date +%s.%N) restart $v" >> "$events"
    e2e_await "$v" "$START_LIMIT"
    e2e_wait 30 python3 "$tool" peers "${E2E_SOCK[$v]}" "${degree[$v]}" \
        || e2e_fail "restarted $v did not get its ${degree[$v]} peers back within 30 s"
    e2e_log "  $v back with its ${degree[$v]} peers at +$((SECONDS - t0)) s"
done
# The stream moves again after the chaos: d receives RATE more bytes (a second's worth) within 30 s; else, with the
# sender's TCP state and the path on record, within RESUME_LIMIT s (TCP's back-off), or it is a lock-out.
progress=$E2E_DIR/progress
got() { local v; v=$(tail -n 1 "$progress" 2>/dev/null | cut -d' ' -f2); echo "${v:-0}"; }
moved() { [ "$(got)" -ge "$1" ]; }
n0=$(got)
t_end=$SECONDS
if ! e2e_wait 30 moved $((n0 + RATE)); then
    e2e_log "stream stalled 30 s after the chaos; s's TCP socket: $(e2e_in s ss -Hti dst "[${E2E_ADDR[d]}]:$PORT" \
        | tr -s ' \t\n' ' ' | grep -oE '(rto|backoff|retrans|unacked|lastsnd|lastack):[^ ]*' | tr '\n' ' ')"
    e2e_log "path s -> d now: $(e2e_in s ping -6 -n -q -c 20 -i 0.2 -W 1 "${E2E_ADDR[d]}" | grep -E 'loss|rtt' \
        | tr '\n' ' ')"
    e2e_wait "$RESUME_LIMIT" moved $((n0 + RATE)) \
        || e2e_fail "the stream is stuck: d received $(($(got) - n0)) bytes in $((SECONDS - t_end)) s after the chaos"
    e2e_log "stream moved again $((SECONDS - t_end)) s after the chaos (within TCP's back-off)"
fi
touch "$stop"

# 1. The stream arrives whole.
wait $spid || e2e_fail "sender failed: $(cat "$E2E_DIR/send.err")"
wait $rpid || e2e_fail "receiver failed: $(cat "$E2E_DIR/recv.err")"
read -r sent_n sent_h < "$E2E_DIR/send.out"
read -r recv_n recv_h < "$E2E_DIR/recv.out"
e2e_log "sent $sent_n bytes sha256 $sent_h; received $recv_n bytes sha256 $recv_h ($((SECONDS - t0)) s," \
    "$(awk -v n="${recv_n:-0}" -v t=$((SECONDS - t0)) -v r="$RATE" 'BEGIN { printf "%.0f", 100 * n / (t * r) }') %" \
    "of RATE)"
[ "${sent_n:-0}" -gt 0 ] && [ "$sent_n" = "$recv_n" ] && [ "$sent_h" = "$recv_h" ] \
    || e2e_fail "the stream did not arrive whole"

# 2. One root, agreed by every daemon.
e2e_wait 30 python3 "$tool" agree "${socks[@]}" \
    || e2e_fail "daemons do not agree on one root within 30 s: $(python3 "$tool" roots "${socks[@]}")"
e2e_log "all $NODES daemons name root $(python3 "$tool" roots "${E2E_SOCK[s]}" | cut -d' ' -f3)"
if [ "$IMPAIR" = relay ]; then
    # What the relay applied: frames read and lost, summed over all links and directions.
    e2e_relay_counters > "$E2E_DIR/relay.counters"
    awk '{ r += $4; l += $6; o += $8; w += $10 } END { printf "relay: %d frames, %d lost (%.2f %%), %d over the" \
        " queue limit, %d not writable\n", r, l, r ? 100 * l / r : 0, o, w }' "$E2E_DIR/relay.counters"
fi

# Per event: outage and reconvergence.
echo "$(date +%s.%N) end -" >> "$events"
python3 "$tool" report "$events" "$E2E_DIR/ping.log" "$E2E_DIR/monitor.log" "$E2E_DIR/progress"
load_summary

# 3. No stack trace in any daemon log: frames, causes, or a line that starts with an exception's name.
trace_re=$'^\tat |^[[:space:]]+at [[:alnum:]_$.]+\\(|^Caused by: |^Exception in thread'
trace_re+='|^[[:alnum:]_$.]*(Exception|Error)(: |$)'
for n in "${tags[@]}"; do
    if grep -nE "$trace_re" "${E2E_LOG[$n]}" > "$E2E_DIR/trace" 2>&1; then
        e2e_fail "node $n logged a stack trace: $(head -n 20 "$E2E_DIR/trace")"
    fi
done
if [ -n "${CHAOS_SAVE:-}" ]; then
    cp -r "$E2E_DIR" "$CHAOS_SAVE" && e2e_log "run directory copied to $CHAOS_SAVE"
fi
e2e_pass
