#!/usr/bin/env bash
# Prints "sha256  path" for every file of every jextract group's output package (path relative to the repository
# root, sorted), the format of jextract/generated.sha256. regenerate.sh writes that file with it after a
# regeneration; GeneratedBindingsManifestTest recomputes the same list in the build and compares.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(dirname "$here")"
cd "$root"
for args in "$here"/*.args; do
    package="$(awk '/^(-t|--target-package)$/ { getline; print; exit } /^(-t|--target-package) / { print $2; exit }' "$args")"
    find "fips-ffm-bindings/src/main/java/$(echo "$package" | tr . /)" -type f
done | LC_ALL=C sort | xargs sha256sum
