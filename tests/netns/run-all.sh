#!/usr/bin/env bash
# Runs every namespace end-to-end test (two-nodes, three-nodes, rekey, tcp-nodes, ethernet-nodes,
# ethernet-udp-nodes) one after another and prints a summary with each test's time. Exit status: 0 when every test
# passed or skipped, 1 when any failed. Each test skips by itself (exit 0, "SKIP: ...") when not root or when ip,
# ping, iperf3 or TUN are missing. The UDP tests (two-nodes, three-nodes, rekey) run twice: with the node's TUN
# offloads (tun.offload: auto) and without (E2E_TUN_OFFLOAD=off); the transport tests run once with auto. Set
# E2E_TUN_OFFLOAD to run one mode only. E2E_THREADING=compact (or dedicated) runs every test with that
# node.dataplane.threading (default: the node's, auto).
set -u
dir=$(cd "$(dirname "$0")" && pwd)
start=$SECONDS
log=$(mktemp /tmp/fips-netns-run.XXXXXX)
trap 'rm -f "$log"' EXIT
failed=()
summary=()
modes=${E2E_TUN_OFFLOAD:-auto off}
for run in two-nodes three-nodes rekey tcp-nodes ethernet-nodes ethernet-udp-nodes; do
  case $run in
    two-nodes|three-nodes|rekey) run_modes=$modes ;;
    *) run_modes=${E2E_TUN_OFFLOAD:-auto} ;;
  esac
  for mode in $run_modes; do
    t="$run (offload $mode)"
    echo "=== netns: $t"
    t0=$SECONDS
    E2E_TUN_OFFLOAD=$mode "$dir/$run.sh" 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    out=$(cat "$log")
    if [ $rc != 0 ]; then
        failed+=("$t")
        summary+=("FAIL $t ($((SECONDS - t0)) s, exit $rc)")
    elif grep -q '^SKIP: ' <<<"$out"; then
        summary+=("SKIP $t: $(sed -n 's/^SKIP: [^:]*: //p' <<<"$out" | head -n1)")
    else
        summary+=("PASS $t ($((SECONDS - t0)) s)")
    fi
  done
done
echo "=== netns summary ($((SECONDS - start)) s)"
printf '  %s\n' "${summary[@]}"
[ ${#failed[@]} = 0 ] || { echo "netns: FAILED: ${failed[*]}"; exit 1; }
