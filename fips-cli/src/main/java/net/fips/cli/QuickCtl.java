package net.fips.cli;

import java.io.PrintWriter;
import java.nio.file.Path;

import net.fips.control.config.ControlSocketPaths;

/**
 * fipsctl's launch path for the commands a script or a person runs most: a parameterless {@link Query} ({@code show
 * status}, {@code show peers}, ..., {@code acl show}, {@code stats list|metrics|peers}) in its plain spelling. It
 * parses that small grammar by hand and answers without touching picocli, whose annotation scan and model building
 * are most of what a call costs after the JVM's own start (docs/benchmarks.md, "fipsctl latency").
 *
 * <p>Anything else, and anything it is unsure of, is {@link #NOT_HANDLED} and goes to picocli, so the output and
 * exit status of every command line stay picocli's: help and version options, {@code --} and {@code @file}
 * arguments, attached short options, repeated or conflicting options, unknown words, values that look like options.
 * The accepted grammar is
 *
 * <pre>
 *   (-s PATH | --socket PATH | --socket=PATH | --hosts-file FILE | --hosts-file=FILE | --json | --table)*
 *   GROUP (--json | --table)* NAME (--json | --table)*
 * </pre>
 *
 * with each option at most once and not both {@code --json} and {@code --table}, as picocli reads the same line.
 */
final class QuickCtl {

    /** {@link #run} did nothing: hand the arguments to picocli. */
    static final int NOT_HANDLED = -1;

    private QuickCtl() {
    }

    /**
     * @param args the command line
     * @param out  standard output
     * @param err  standard error
     * @return the exit status, or {@link #NOT_HANDLED}
     */
    static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
        String socket = null;
        boolean hostsFile = false;
        boolean json = false;
        boolean table = false;
        String group = null;
        String name = null;
        int i = 0;
        while (i < args.length) {
            final String a = args[i++];
            if (a.equals("--json")) {
                if (json) {
                    return NOT_HANDLED;
                }
                json = true;
            } else if (a.equals("--table")) {
                if (table) {
                    return NOT_HANDLED;
                }
                table = true;
            } else if (group == null && (a.equals("-s") || a.equals("--socket") || a.startsWith("--socket="))) {
                final String v = a.startsWith("--socket=") ? a.substring("--socket=".length())
                        : i < args.length ? args[i++] : null;
                if (socket != null || !plainValue(v)) {
                    return NOT_HANDLED;
                }
                socket = v;
            } else if (group == null && (a.equals("--hosts-file") || a.startsWith("--hosts-file="))) {
                // Only commands that name a peer read the hosts file; a query needs no more than a well-formed value.
                final String v = a.startsWith("--hosts-file=") ? a.substring("--hosts-file=".length())
                        : i < args.length ? args[i++] : null;
                if (hostsFile || !plainValue(v)) {
                    return NOT_HANDLED;
                }
                hostsFile = true;
            } else if (a.isEmpty() || a.charAt(0) == '-' || a.charAt(0) == '@') {
                return NOT_HANDLED;
            } else if (group == null) {
                group = a;
            } else if (name == null) {
                name = a;
            } else {
                return NOT_HANDLED;
            }
        }
        if (name == null || json && table) {
            return NOT_HANDLED;
        }
        final Query q = Query.of(group, name);
        if (q == null) {
            return NOT_HANDLED;
        }
        final Path path;
        try {
            path = socket != null ? Path.of(socket) : ControlSocketPaths.defaultControlSocket();
        } catch (final RuntimeException e) {
            return NOT_HANDLED; // an invalid path: picocli's conversion error says so
        }
        final boolean asJson = json || !table && !FipsCtl.stdoutIsTerminal.getAsBoolean();
        return FipsCtl.exchange(path, q.command, null, q.table, !asJson, out, err);
    }

    // An option value picocli would take as is: present, not empty, not an option, not an @file.
    private static boolean plainValue(final String v) {
        return v != null && !v.isEmpty() && v.charAt(0) != '-' && v.charAt(0) != '@';
    }
}
