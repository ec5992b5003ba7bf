#!/usr/bin/env bash
# Regenerates every jextract group found as jextract/<group>.args (+ jextract/<group>.h) into
# fips-ffm-bindings/src/main/java. The build never runs this: generated sources are committed.
# Needs `jextract` on PATH (see README.md). Usage: jextract/regenerate.sh [group ...]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
out="$root/fips-ffm-bindings/src/main/java"

if ! command -v jextract >/dev/null 2>&1; then
    echo "regenerate.sh: 'jextract' is not on PATH; put a jextract 22+ build's bin/ on PATH (see jextract/README.md)" >&2
    exit 2
fi

if [ "$#" -gt 0 ]; then
    groups=("$@")
else
    groups=()
    for args in "$here"/*.args; do
        [ -e "$args" ] || continue
        groups+=("$(basename "$args" .args)")
    done
fi
if [ "${#groups[@]}" -eq 0 ]; then
    echo "regenerate.sh: no jextract/*.args found" >&2
    exit 2
fi

for group in "${groups[@]}"; do
    args="$here/$group.args"
    header="$here/$group.h"
    [ -f "$args" ] || { echo "regenerate.sh: missing $args" >&2; exit 2; }
    [ -f "$header" ] || { echo "regenerate.sh: missing $header" >&2; exit 2; }
    # The target package is the value after -t / --target-package in the argfile.
    package="$(awk '/^(-t|--target-package)$/ { getline; print; exit } /^(-t|--target-package) / { print $2; exit }' "$args")"
    [ -n "$package" ] || { echo "regenerate.sh: $args names no -t <package>" >&2; exit 2; }
    pkgdir="$out/$(echo "$package" | tr . /)"
    echo "== $group -> $package"
    rm -rf "$pkgdir"
    # "Skipping ..." warnings concern declarations outside the allow-list (va_list, long double): harmless.
    (cd "$here" && jextract --output "$out" "@$group.args" "$group.h") 2>&1 | { grep -v ': warning: Skipping ' || true; }
    [ -d "$pkgdir" ] || { echo "regenerate.sh: jextract produced nothing for $group" >&2; exit 1; }
    echo "   $(find "$pkgdir" -name '*.java' | wc -l) files in $pkgdir"
done

# The manifest the build checks (GeneratedBindingsManifestTest): one sha256 per generated file of every group, so a
# hand edit, a stray file or a deleted one fails the tests until this script is run again.
"$here/manifest.sh" > "$here/generated.sha256"
echo "== wrote jextract/generated.sha256 ($(wc -l < "$here/generated.sha256") files)"

echo "== generated with:"
jextract --version 2>&1
