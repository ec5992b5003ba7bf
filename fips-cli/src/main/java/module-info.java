/** Command-line front ends: the {@code fips} daemon and {@code fipsctl}. Thin: parse, call, render. */
module net.fips.cli {
    requires net.fips.control;
    requires info.picocli;

    // picocli injects options into, and calls, the command classes reflectively.
    opens net.fips.cli to info.picocli;
}
