/** Command-line front ends: the {@code fips} daemon and {@code fipsctl}. Thin: parse, call, render. */
module net.fips.cli {
    requires net.fips.control;
    requires info.picocli;
    // fipsctl top: the JLine bundle, an automatic module (Automatic-Module-Name org.jline).
    requires org.jline;
    // The daemon logs through java.util.logging (System.Logger routes there when this module is present).
    requires java.logging;
    // sun.misc.Signal: SIGTERM/SIGINT stop the daemon cleanly with exit status 0 instead of 143/130.
    requires jdk.unsupported;
    // The opt-in start-up warm-up waits for the JIT's compile queue to drain (CompilationMXBean).
    requires java.management;

    // picocli injects options into, and calls, the command classes reflectively.
    opens net.fips.cli to info.picocli;
}
