#!/usr/bin/env bash
# Builds the Debian package: packaging/target/fips_<version>_amd64.deb
#
#     packaging/build-deb.sh [--no-build] [--version VERSION] [--compress zstd|xz|gzip]
#
# 1. builds the jars when they are missing or older than the sources (as bin/fips does; tests skipped;
#    FIPS_REBUILD=1 forces it, --no-build refuses to build and needs them present);
# 2. jlinks one Java runtime holding the JDK modules our module graph requires (read from the JVM's resolution of
#    net.fips.cli: java.base, java.logging, jdk.unsupported for sun.misc.Signal, jdk.httpserver for the metrics
#    endpoint, and what Jackson, SnakeYAML, picocli and Bouncy Castle require), without debug data, headers or man
#    pages, with the JDK's default CDS archive; the application's jars go to /usr/lib/fips/lib (the Prometheus
#    client's are automatic modules, which jlink cannot link);
# 3. leaves fipsctl's class-data-sharing archive to postinst, which trains it on the installed runtime;
# 4. lays out the package tree (layout of the reference's cargo-deb package, operator.md §5) and writes it with
#    dpkg-deb, owned by root. Compression is zstd (level 9) by default: dpkg reads it from 1.21.18 on (Debian 12,
#    Ubuntu 22.04 and later), it takes seconds where xz takes minutes, for 29 MB instead of 23 MB; --compress xz
#    gives a package that older dpkg can read too.
#
# The target needs no JDK. The version is the Maven project version; a -SNAPSHOT version becomes
# <x.y.z>~SNAPSHOT+git<yyyymmdd>.<sha>[.dirty] so that successive dev builds upgrade each other and sort before the
# release. Needs a JDK 25 (found as bin/ finds it), dpkg-deb and gzip. Takes about 30 s when the jars are fresh.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out="$here/target"
stage="$out/stage"

no_build=0
version=
compress=zstd
while [ $# -gt 0 ]; do
    case "$1" in
        --no-build) no_build=1; shift ;;
        --version) version=${2:?--version needs a value}; shift 2 ;;
        --compress) compress=${2:?--compress needs a value}; shift 2 ;;
        -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-deb: unknown argument: $1 (see --help)" >&2; exit 64 ;;
    esac
done

case "$compress" in
    zstd) zopts=(-Zzstd -z9) ;;
    xz) zopts=(-Zxz) ;;
    gzip) zopts=(-Zgzip) ;;
    *) echo "build-deb: --compress takes zstd, xz or gzip" >&2; exit 64 ;;
esac

. "$root/bin/java-env.sh"
fips_find_java25
for tool in dpkg-deb gzip; do
    command -v "$tool" >/dev/null || { echo "build-deb: $tool is missing" >&2; exit 1; }
done

# 1. jars
if [ "$no_build" = 1 ]; then
    jar=$(ls "$root"/fips-cli/target/fips-cli-*.jar 2>/dev/null | head -n1 || true)
    [ -n "$jar" ] || { echo "build-deb: --no-build but no fips-cli jar; build first" >&2; exit 1; }
else
    jar=$(fips_fresh_jar 'fips-cli/target/fips-cli-*.jar' build-deb)
fi
lib="$root/fips-cli/target/lib"
# fips-gateway's jar goes beside the daemon's; the reactor build above built it too.
gwjar=$(ls "$root"/fips-gateway/target/fips-gateway-*.jar 2>/dev/null | head -n1 || true)
[ -n "$gwjar" ] || { echo "build-deb: no fips-gateway jar; build first" >&2; exit 1; }

# The Maven project version, as the compiler recorded it in the module descriptor.
mvn_version=$("$JAVA_HOME/bin/jar" --describe-module --file "$jar" | sed -n '1s/^net\.fips\.cli@\([^ ]*\) .*/\1/p')
[ -n "$mvn_version" ] || { echo "build-deb: no module version in $jar" >&2; exit 1; }
if [ -z "$version" ]; then
    version=$mvn_version
    case "$version" in
        *-SNAPSHOT)
            version="${version%-SNAPSHOT}~SNAPSHOT"
            if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
                version="$version+git$(git -C "$root" log -1 --format=%cs | tr -d -)"
                version="$version.$(git -C "$root" rev-parse --short HEAD)"
                [ -z "$(git -C "$root" status --porcelain -- . ':!packaging/target' 2>/dev/null)" ] \
                    || version="$version.dirty"
            fi
            ;;
    esac
fi
case "$version" in
    [0-9]*) ;;
    *) echo "build-deb: version '$version' must start with a digit" >&2; exit 1 ;;
esac
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
# One timestamp for every file (and the changelog): the last commit's, unless the caller sets one.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$root" log -1 --format=%ct 2>/dev/null || date +%s)}

deb="$out/fips_${version}_amd64.deb"
echo "build-deb: fips $version from $(basename "$jar")"
rm -rf "$stage"
mkdir -p "$stage/DEBIAN" "$stage/usr/lib/fips"

# 2. runtime. --strip-debug drops the class files' debug attributes; the native libraries keep their symbol tables
#    (there is no separate debug data in them to strip, and the symbols make a crash log readable). bcprov is a
#    signed jar; jlink drops the signature (only checked when Bouncy Castle is a JCE provider, and we use its curve
#    arithmetic directly).
rt="$stage/usr/lib/fips/runtime"
# Some libraries (the Prometheus client) are automatic modules, which jlink refuses to link, so the runtime holds
# only the JDK modules the application's module graph requires, and the application's jars go beside it in
# /usr/lib/fips/lib (the launchers put them on the module path). The set is read from the JVM's own resolution of
# the graph, following "requires" edges from net.fips.cli only (service bindings would pull in javac and jlink).
jdk_modules=$("$JAVA_HOME/bin/java" --enable-native-access=net.fips.ffm -p "$jar:$lib" --show-module-resolution \
    -m net.fips.cli/net.fips.cli.FipsDaemon --version 2>&1 | awk '
    $2 == "requires" { edge[$1] = edge[$1] " " $3; if ($4 ~ /^jrt:/) jdk[$3] = 1 }
    END {
        q[1] = "net.fips.cli"; n = 1; seen["net.fips.cli"] = 1; i = 1
        while (i <= n) { m = q[i++]; k = split(edge[m], a, " "); for (j = 1; j <= k; j++) if (!(a[j] in seen)) { seen[a[j]] = 1; q[++n] = a[j] } }
        out = "java.base"; for (m in seen) if (m in jdk) out = out "," m; print out
    }')
case "$jdk_modules" in
    *jdk.unsupported*) ;;
    *) echo "build-deb: could not read the module graph (got: $jdk_modules)" >&2; exit 1 ;;
esac
"$JAVA_HOME/bin/jlink" --add-modules "$jdk_modules" \
    --strip-debug --no-header-files --no-man-pages \
    --generate-cds-archive --output "$rt" >/dev/null
mkdir -p "$stage/usr/lib/fips/lib"
cp "$jar" "$gwjar" "$lib"/*.jar "$stage/usr/lib/fips/lib/"
modpath=/usr/lib/fips/lib
# The archive for heaps over 32 GiB (uncompressed oops) would add 14 MB for a case a mesh node never has.
rm -f "$rt/lib/server/classes_nocoops.jsa"

# 3. fipsctl's class-data-sharing archive is trained by postinst on the installed runtime and module path (an
#    archive records the module path it was made with, so one made here, under the staging directory, would not
#    map at /usr/lib/fips/lib).

# 4. the package tree
inst() { # mode source destination
    install -D -m "$1" "$2" "$stage/$3"
}
inst 755 "$here/common/fips.launcher" usr/bin/fips
# The daemon's JVM options are bin/fips's (bin/java-env.sh), written in so the two cannot drift apart.
daemon_opts=$(unset FIPS_JAVA_OPTS; fips_daemon_java_opts)
sed -i "s|@FIPS_DAEMON_JAVA_OPTS@|$daemon_opts|" "$stage/usr/bin/fips"
grep -q '@FIPS_DAEMON_JAVA_OPTS@' "$stage/usr/bin/fips" && { echo "build-deb: daemon options not written in" >&2; exit 1; }
inst 755 "$here/common/fipsctl.launcher" usr/bin/fipsctl
inst 755 "$here/common/fips-gateway.launcher" usr/bin/fips-gateway
inst 755 "$here/common/fips-dns-setup" usr/lib/fips/fips-dns-setup
inst 755 "$here/common/fips-dns-teardown" usr/lib/fips/fips-dns-teardown
inst 644 "$here/common/fips.yaml" usr/share/fips/fips.yaml.example
inst 644 "$here/common/hosts" etc/fips/hosts
inst 644 "$here/common/fips.nft" etc/fips/fips.nft
inst 644 "$here/common/fips.tmpfiles" usr/lib/tmpfiles.d/fips.conf
for unit in fips.service fips-dns.service fips-firewall.service fips-gateway.service; do
    inst 644 "$here/systemd/$unit" "usr/lib/systemd/system/$unit"
done
doc=usr/share/doc/fips
inst 644 "$here/debian/copyright" "$doc/copyright"
inst 644 "$root/docs/operator-guide.md" "$doc/operator-guide.md"
# The licence notices the libraries carry in their jars (only Jackson's do).
for j in "$lib"/*.jar; do
    name=$(basename "$j" .jar)
    case "$name" in fips-*) continue ;; esac
    tmp="$out/notices/$name"
    rm -rf "$tmp" && mkdir -p "$tmp"
    (cd "$tmp" && "$JAVA_HOME/bin/jar" xf "$j" META-INF/LICENSE META-INF/NOTICE)
    if [ -d "$tmp/META-INF" ]; then
        mkdir -p "$stage/$doc/licenses/$name"
        cp "$tmp"/META-INF/* "$stage/$doc/licenses/$name/"
    fi
done
rm -rf "$out/notices"
changelog_date=$(date -u -R -d "@$SOURCE_DATE_EPOCH")
sed -e "s/@VERSION@/$version/" -e "s/@COMMIT@/$commit/" -e "s/@DATE@/$changelog_date/" \
    "$here/debian/changelog.in" | gzip -9n > "$stage/$doc/changelog.Debian.gz"

for s in postinst prerm postrm; do
    install -m 755 "$here/debian/$s" "$stage/DEBIAN/$s"
done
printf '%s\n' /etc/fips/hosts /etc/fips/fips.nft > "$stage/DEBIAN/conffiles"

# Modes as lintian expects them (jlink leaves its legal files read-only), then md5sums of everything but conffiles.
find "$stage" -type d -exec chmod 755 {} +
find "$stage" -type f ! -perm -u+x -exec chmod 644 {} +
find "$stage" -type f -perm -u+x -exec chmod 755 {} +
(cd "$stage" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' \
    | LC_ALL=C sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/md5sums" "$stage/DEBIAN/conffiles"

installed_kb=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@INSTALLED_SIZE@/$installed_kb/" "$here/debian/control.in" \
    > "$stage/DEBIAN/control"
find "$stage" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

rm -f "$out"/fips_*_amd64.deb
dpkg-deb --root-owner-group "${zopts[@]}" --build "$stage" "$deb" >/dev/null
echo "build-deb: wrote $deb ($(du -k "$deb" | cut -f1) KiB, installs $((installed_kb / 1024)) MiB)"
