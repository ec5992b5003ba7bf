#!/usr/bin/env bash
# Runs every namespace end-to-end test (two-nodes, three-nodes, rekey, tcp-nodes) one after another and prints a
# summary with each test's time. Exit status: 0 when every test passed or skipped, 1 when any failed. Each test skips
# by itself (exit 0, "SKIP: ...") when not root or when ip, ping, iperf3 or TUN are missing.
set -u
dir=$(cd "$(dirname "$0")" && pwd)
start=$SECONDS
log=$(mktemp /tmp/fips-netns-run.XXXXXX)
trap 'rm -f "$log"' EXIT
failed=()
summary=()
for t in two-nodes three-nodes rekey tcp-nodes; do
    echo "=== netns: $t"
    t0=$SECONDS
    "$dir/$t.sh" 2>&1 | tee "$log"
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
echo "=== netns summary ($((SECONDS - start)) s)"
printf '  %s\n' "${summary[@]}"
[ ${#failed[@]} = 0 ] || { echo "netns: FAILED: ${failed[*]}"; exit 1; }
