#!/usr/bin/env bash
# The nft baseline (packaging/common/fips.nft, spec discovery-gateway.md §6) in force on a real fips0: two
# namespaces joined by a veth, a fips daemon in each (TUN fips0), A's namespace loads the shipped fips.nft (only its
# drop-in include path is pointed at this test's directory) with a few drop-in rules, and listeners in A on ports the
# rules open, drop or leave to the default. Asserts, from B over the mesh: unsolicited TCP and UDP to a port no rule
# opens is dropped (the connect times out, no echo, the baseline's drop counter rises), to a port a drop-in opens
# (single port, set, range, source-limited) passes, an explicit drop-in drop is dropped, ping6 passes; from A:
# replies to A's own connection to B and to A's ping pass (conntrack established). The file loads twice in a row and
# passes nft's check mode with the drop-in directory missing. And `fipsctl show listening-sockets` on A, which reads
# the rules back (nft -j), agrees with what got through: accept where the port was reachable, drop where it was not,
# unknown for the source-limited rule; after `nft delete table inet fips` (the unit's ExecStop) every socket is
# no_firewall and the blocked port is reachable. Skips without nft or python3 (and as the other namespace tests do).
set -u
. "$(dirname "$0")/lib.sh"
e2e_init firewall
command -v nft >/dev/null 2>&1 || e2e_skip "nft is not installed (apt-get install nftables)"
command -v python3 >/dev/null 2>&1 || e2e_skip "python3 is not installed"

nft_src="$E2E_ROOT/packaging/common/fips.nft"
dropins="$E2E_DIR/fips.d"
rules="$E2E_DIR/fips.nft"
# The shipped file, byte for byte, except that its include reads this test's drop-ins instead of /etc/fips/fips.d.
sed "s|\"/etc/fips/fips.d/\\*.nft\"|\"$dropins/*.nft\"|" "$nft_src" > "$rules"
[ "$(diff "$nft_src" "$rules" | grep -c '^>')" = 1 ] || e2e_fail "expected exactly one include line in $nft_src"

e2e_node a
e2e_node b
e2e_veth a 10.203.1.1 b 10.203.1.2
e2e_config a b:10.203.1.2
e2e_config b a:10.203.1.1
e2e_start a
e2e_start b
e2e_log "nodes up: a=${E2E_ADDR[a]} b=${E2E_ADDR[b]}"
e2e_wait 30 e2e_ping_ok a b || e2e_fail "no ping reply from b within 30 s (before any firewall)"

# Helpers in python3: listeners (TCP accept-and-close, UDP echo) and probes (TCP connect, UDP round trip).
cat > "$E2E_DIR/net.py" <<'EOF_PY'
import socket, sys, threading
def listen(specs):
    for spec in specs:
        proto, port = spec.split(':')
        if proto == 'tcp':
            s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            s.bind(('::', int(port))); s.listen(16)
            def serve(s=s):
                while True:
                    c, _ = s.accept(); c.close()
        else:
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.bind(('::', int(port)))
            def serve(s=s):
                while True:
                    d, a = s.recvfrom(2048); s.sendto(d, a)
        threading.Thread(target=serve, daemon=True).start()
    print('listening', flush=True)
    threading.Event().wait()
def probe(proto, addr, port):
    if proto == 'tcp':
        s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM); s.settimeout(2)
        try:
            s.connect((addr, int(port))); return 'open'
        except socket.timeout:
            return 'timeout'
        except ConnectionRefusedError:
            return 'refused'
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.settimeout(2)
    s.sendto(b'fips-firewall-test', (addr, int(port)))
    try:
        s.recvfrom(2048); return 'reply'
    except socket.timeout:
        return 'timeout'
if sys.argv[1] == 'listen':
    listen(sys.argv[2:])
else:
    print(probe(sys.argv[2], sys.argv[3], sys.argv[4]))
EOF_PY
probe() { e2e_in "$1" python3 "$E2E_DIR/net.py" probe "$2" "$3" "$4"; }
ports=(tcp:7001 tcp:7002 tcp:7205 tcp:7301 tcp:7401 udp:7101 udp:7103)
e2e_in a python3 "$E2E_DIR/net.py" listen "${ports[@]}" > "$E2E_DIR/listen-a.log" 2>&1 &
E2E_BG+=($!)
e2e_in b python3 "$E2E_DIR/net.py" listen tcp:7500 > "$E2E_DIR/listen-b.log" 2>&1 &
E2E_BG+=($!)
e2e_wait 10 grep -q listening "$E2E_DIR/listen-a.log" || e2e_fail "listeners in a did not start"
e2e_wait 10 grep -q listening "$E2E_DIR/listen-b.log" || e2e_fail "listener in b did not start"

# Before the firewall everything is reachable, and the classifier says so.
[ "$(probe b tcp "${E2E_ADDR[a]}" 7002)" = open ] || e2e_fail "tcp 7002 not reachable before the firewall"

# Check mode with the drop-in directory missing: an empty include glob is fine.
e2e_in a nft -c -f "$rules" || e2e_fail "nft -c rejects fips.nft with no drop-in directory"
mkdir -p "$dropins"
cat > "$dropins/services.nft" <<EOF_RULES
tcp dport 7001 accept
udp dport { 7101, 7102 } accept
tcp dport 7200-7210 accept
ip6 saddr ${E2E_ADDR[b]}/128 tcp dport 7301 accept
tcp dport 7401 drop
EOF_RULES
e2e_in a nft -f "$rules" || e2e_fail "nft -f fips.nft failed"
e2e_in a nft -f "$rules" || e2e_fail "nft -f fips.nft failed the second time (must be idempotent)"
[ "$(e2e_in a nft list table inet fips | grep -c 'dport')" = 5 ] || e2e_fail "reloading duplicated the rules: \
$(e2e_in a nft list table inet fips)"
drops() { e2e_in a nft -j list table inet fips | python3 -c '
import json, sys
for item in json.load(sys.stdin)["nftables"]:
    r = item.get("rule")
    if r and r["chain"] == "inbound" and sorted(k for e in r["expr"] for k in e) == ["counter", "drop"]:
        print(next(e["counter"]["packets"] for e in r["expr"] if "counter" in e))'; }
drops_before=$(drops)
[ -n "$drops_before" ] || e2e_fail "no baseline 'counter drop' rule in the loaded table"

# What B reaches now, per port (the answer the rules give in force).
declare -A reach
for p in "${ports[@]}"; do
    reach[$p]=$(probe b "${p%%:*}" "${E2E_ADDR[a]}" "${p#*:}")
    e2e_log "from b: ${p} -> ${reach[$p]}"
done
want() { [ "${reach[$1]}" = "$2" ] || e2e_fail "$1 from b: expected $2, got ${reach[$1]} ($3)"; }
want tcp:7001 open "a drop-in opens it"
want tcp:7002 timeout "no rule opens it: the baseline drops it"
want tcp:7205 open "in a drop-in range"
want tcp:7301 open "a drop-in opens it for b's address"
want tcp:7401 timeout "a drop-in drops it"
want udp:7101 reply "in a drop-in set"
want udp:7103 timeout "no rule opens it"
drops_after=$(drops)
[ "$drops_after" -gt "$drops_before" ] \
    || e2e_fail "the baseline drop counter did not rise ($drops_before -> $drops_after)"
e2e_in b ping -6 -n -c 1 -W 2 "${E2E_ADDR[a]}" >/dev/null || e2e_fail "ping6 b->a (echo-request) was dropped"
# Return traffic of A's own flows: a TCP connect to B (its SYN-ACK enters A on fips0) and a ping's reply.
[ "$(probe a tcp "${E2E_ADDR[b]}" 7500)" = open ] || e2e_fail "a->b TCP: the reply was dropped (ct established)"
e2e_in a ping -6 -n -c 1 -W 2 "${E2E_ADDR[b]}" >/dev/null || e2e_fail "ping6 a->b: the echo reply was dropped"
e2e_log "baseline: unsolicited drops counted ($drops_before -> $drops_after), drop-ins, ping6 and replies pass"

# The classifier (show_listening_sockets reads the rules back with nft -j) agrees with what got through. Its nft
# answer is cached for 5 s, so poll until it sees the table.
filters() { e2e_ctl a show listening-sockets | python3 -c '
import json, sys
d = json.load(sys.stdin)
print("active", d["firewall_active"])
for s in d["sockets"]:
    print("%s:%d %s" % (s["proto"], s["port"], s["filter"]))'; }
active_is() { e2e_ctl a show listening-sockets | grep -q "\"firewall_active\" *: *$1"; }
e2e_wait 15 active_is true \
    || e2e_fail "show listening-sockets never saw the firewall: $(filters)"
f=$(filters)
for p in "${ports[@]}"; do
    got=$(awk -v p="$p" '$1 == p {print $2}' <<<"$f")
    case ${reach[$p]} in
        open|reply) expect=accept ;;
        *) expect=drop ;;
    esac
    [ "$p" = tcp:7301 ] && expect=unknown   # opened for one source address only
    [ "$got" = "$expect" ] || e2e_fail "classifier says $p is '$got', the rules in force gave ${reach[$p]}: $f"
done
e2e_log "show listening-sockets agrees with the rules in force for ${#ports[@]} sockets"

# The unit's ExecStop: the table goes, the classifier says no_firewall, the blocked port is open again.
e2e_in a nft delete table inet fips || e2e_fail "nft delete table inet fips failed"
e2e_wait 15 active_is false \
    || e2e_fail "show listening-sockets still sees a firewall: $(filters)"
f=$(filters)
[ "$(awk '$1 == "tcp:7002" {print $2}' <<<"$f")" = no_firewall ] || e2e_fail "expected no_firewall for tcp:7002: $f"
[ "$(probe b tcp "${E2E_ADDR[a]}" 7002)" = open ] || e2e_fail "tcp 7002 not reachable after the table was deleted"

e2e_pass
