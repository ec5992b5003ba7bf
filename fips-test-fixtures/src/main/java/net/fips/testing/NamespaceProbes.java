package net.fips.testing;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.net.URISyntaxException;

/**
 * What the root-only namespace tests share: running a command (bounded), telling whether we are root, and child
 * JVM "probes" run inside a network namespace ({@code ip netns exec}) and driven line by line over their stdin and
 * stdout, with every wait bounded.
 */
public final class NamespaceProbes {
    /** How long any wait for a probe's line or a command takes at most. */
    public static final long LINE_WAIT_S = 20;

    private NamespaceProbes() {
    }

    /** A finished command: exit status (124 timed out, 127 could not start) and its output. */
    public record Run(int rc, String out) {
    }

    /** Runs {@code cmd} with stdout and stderr together, for at most {@link #LINE_WAIT_S}. */
    public static Run run(final List<String> cmd) throws Exception {
        final Process p;
        try {
            p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        } catch (final IOException e) {
            return new Run(127, e.getMessage());
        }
        final byte[] out = p.getInputStream().readAllBytes();
        if (!p.waitFor(LINE_WAIT_S, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Run(124, new String(out, StandardCharsets.UTF_8));
        }
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** @return whether this process runs as uid 0 */
    public static boolean isRoot() throws IOException {
        for (final String l : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (l.startsWith("Uid:")) {
                return l.split("\\s+")[1].equals("0");
            }
        }
        return false;
    }

    /**
     * Starts {@code main} in a child JVM inside namespace {@code ns}, behind {@code wrapper} (e.g. setpriv), on a
     * class path of the code sources of {@code main}, {@code codeOf} and the build's test classes.
     */
    public static Process startProbe(final String ns, final List<String> wrapper, final Class<?> main,
                                     final List<Class<?>> codeOf, final String... args) throws IOException {
        final Set<String> cp = new LinkedHashSet<>();
        cp.add(codeSource(main));
        for (final Class<?> c : codeOf) {
            cp.add(codeSource(c));
        }
        // Test classes patched into the module may report the module's location; add the build's own folder.
        final Path testClasses = Path.of(System.getProperty("user.dir"), "target", "test-classes");
        if (Files.isDirectory(testClasses)) {
            cp.add(testClasses.toString());
        }
        final List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns));
        cmd.addAll(wrapper);
        cmd.addAll(List.of(ProcessHandle.current().info().command().orElse("java"),
                "--enable-native-access=ALL-UNNAMED", "-Xshare:auto", "-XX:TieredStopAtLevel=1", "-Xmx64m",
                "-cp", String.join(File.pathSeparator, cp), main.getName()));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd).redirectErrorStream(true).start();
    }

    private static String codeSource(final Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (final URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The child's output lines, collected by a daemon thread so every wait can be bounded; "<EOF>" last. */
    public static BlockingQueue<String> lines(final Process p) {
        final BlockingQueue<String> q = new LinkedBlockingQueue<>();
        final Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String l;
                while ((l = r.readLine()) != null) {
                    q.add(l);
                }
            } catch (final IOException ignored) {
                // The process went away; the waiting side reports what it saw.
            }
            q.add("<EOF>");
        }, "probe-output");
        t.setDaemon(true);
        t.start();
        return q;
    }

    /** Waits (bounded) for the next line starting with {@code prefix}; other lines (JVM warnings) are kept. */
    public static String expect(final BlockingQueue<String> q, final String prefix) throws InterruptedException {
        final StringBuilder seen = new StringBuilder();
        while (true) {
            final String l = q.poll(LINE_WAIT_S, TimeUnit.SECONDS);
            if (l == null) {
                throw new AssertionError("no line starting with '" + prefix + "' within " + LINE_WAIT_S
                        + " s; output:\n" + seen);
            }
            if (l.equals("<EOF>")) {
                throw new AssertionError("probe ended before '" + prefix + "'; output:\n" + seen);
            }
            if (l.startsWith(prefix)) {
                return l;
            }
            seen.append(l).append('\n');
        }
    }

    /** Writes one command line to the probe. */
    public static void send(final Process p, final String line) throws IOException {
        final OutputStream o = p.getOutputStream();
        o.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
        o.flush();
    }
}
