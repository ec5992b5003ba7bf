#!/usr/bin/env bash
# Two nodes with short rekey timers (node.rekey: enabled, after_secs 3; both the link and the end-to-end session
# rekey on it) carry continuous iperf3 UDP streams both ways (--bidir, 2 Mbit/s each, 1000-byte datagrams, 12 s)
# through the tunnel across several rekeys. Asserts: each receiver saw every datagram (0 lost) in order (0 out of
# order), and both daemons' debug logs show at least 2 "session rekey" cut-overs during the stream.
# Both ways because a session's responder only moves to the new keys when a frame on them arrives (§5.7), and
# our node sends no session-layer MMP reports yet: with a one-way stream from the responder a rekey stays pending
# until the peer sends something, so a 12 s one-way stream sees only one rekey.
set -u
. "$(dirname "$0")/lib.sh"
e2e_init rekey

E2E_NODE_EXTRA='  rekey:\n    enabled: true\n    after_secs: 3'
e2e_node a
e2e_node b
e2e_veth a 10.201.1.1 b 10.201.1.2
e2e_config a b:10.201.1.2
e2e_config b a:10.201.1.1
e2e_start a debug
e2e_start b debug
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]}"

t=$SECONDS
e2e_wait 30 e2e_ping_ok a b || e2e_fail "no ping reply from b within 30 s"
e2e_log "first ping reply after $((SECONDS - t)) s"

rekeys() { grep -c 'session rekey' "${E2E_LOG[$1]}"; }
before_a=$(rekeys a); before_b=$(rekeys b)

# A one-shot server writing JSON, so each side reports what it received.
e2e_in b iperf3 -s -1 -p 5201 -J > "$E2E_DIR/iperf-server.json" 2>&1 &
E2E_BG+=($!)
e2e_wait 10 sh -c "ip netns exec '${E2E_NS[b]}' ss -Htln | grep -q ':5201\\b'" \
    || e2e_fail "iperf3 server in b did not listen on port 5201"
e2e_in a timeout 40 iperf3 -c "${E2E_NPUB[b]}.fips" -p 5201 -u --bidir -b 2M -l 1000 -t 12 -J \
    > "$E2E_DIR/iperf-client.json" 2>&1 || e2e_fail "iperf3 UDP failed: $(tail -n 20 "$E2E_DIR/iperf-client.json")"
e2e_wait 10 sh -c "grep -q '\"sum_received\"' '$E2E_DIR/iperf-server.json'" \
    || e2e_fail "iperf3 server wrote no results: $(tail -n 20 "$E2E_DIR/iperf-server.json")"
after_a=$(rekeys a); after_b=$(rekeys b)

# "packets lost out_of_order" of the stream FILE's side received (the stream whose "sender" is false in the
# "end" object of iperf3 -J, one key per line).
received() {
    awk '/^\t"end":/ {e = 1} e && /"sum/ {exit}
         e { k = $1; v = $2; gsub(/[",:]/, "", k); gsub(/,/, "", v); f[k] = v }
         e && k == "sender" { if (v == "false") { print f["packets"], f["lost_packets"], f["out_of_order"]; exit } }' "$1"
}
check() { # FILE DIRECTION
    local r packets lost ooo
    r=$(received "$1")
    read -r packets lost ooo <<<"$r"
    [ -n "$ooo" ] || e2e_fail "cannot read iperf3's receiver totals ($2) from $1: $(tail -n 40 "$1")"
    e2e_log "iperf3 UDP $2, 12 s at 2 Mbit/s: $packets datagrams received, $lost lost, $ooo out of order"
    [ "$packets" -gt 2000 ] || e2e_fail "$2: only $packets datagrams arrived"
    [ "$lost" = 0 ] || e2e_fail "$2: $lost datagrams lost across rekeys"
    [ "$ooo" = 0 ] || e2e_fail "$2: $ooo datagrams out of order across rekeys"
}
e2e_log "session rekeys (cut-overs) during the stream: a $((after_a - before_a)), b $((after_b - before_b))"
grep -h 'session rekey' "${E2E_LOG[a]}" "${E2E_LOG[b]}" | sort | sed 's/^/  /'
check "$E2E_DIR/iperf-server.json" "a->b"
check "$E2E_DIR/iperf-client.json" "b->a"
[ $((after_a - before_a)) -ge 2 ] && [ $((after_b - before_b)) -ge 2 ] \
    || e2e_fail "fewer than 2 session rekeys on a node during the 12 s stream (a: $((after_a - before_a)), b: $((after_b - before_b)))"

e2e_pass
