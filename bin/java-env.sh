# Sourced by the launchers and .ci/run: points JAVA_HOME at a JDK 25 (JAVA_HOME if it is one, else
# /usr/lib/jvm/*25*), or explains what is missing.
fips_find_java25() {
    local cand v
    for cand in "${JAVA_HOME:-}" /usr/lib/jvm/*25* /usr/lib/jvm/*; do
        [ -n "$cand" ] && [ -x "$cand/bin/java" ] && [ -x "$cand/bin/javac" ] || continue
        v=$("$cand/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
        if [ "$v" = "25" ]; then
            export JAVA_HOME="$cand"
            export PATH="$JAVA_HOME/bin:$PATH"
            return 0
        fi
    done
    echo "error: FIPS needs a JDK 25 (FFM is final there). Install one (e.g. Temurin 25 under /usr/lib/jvm)" \
         "or set JAVA_HOME to it." >&2
    return 1
}
