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
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test's node or server in a child JVM inside a network namespace ({@code ip netns exec}), on the test JVM's whole
 * class and module path plus the module's build folders, driven line by line: its stdout lines are queued by a
 * daemon thread so every wait is bounded, its stderr goes to a log file whose tail goes into every failure message.
 * A line starting with {@code failed} fails the wait for any other prefix at once.
 */
public final class ChildJvm {
    private static final int LOG_TAIL_LINES = 40;

    private final Process process;
    private final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final Path log;

    private ChildJvm(final Process process, final Path log) {
        this.process = process;
        this.log = log;
        Thread.ofPlatform().daemon().name("child-jvm-output").start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String l = r.readLine(); l != null; l = r.readLine()) {
                    lines.add(l);
                }
            } catch (final IOException e) {
                lines.add("io " + e.getMessage());
            }
        });
    }

    /**
     * Starts {@code main} with {@code args} in namespace {@code ns} (C1 only, 128 MiB heap, native access on).
     *
     * @param ns   the network namespace
     * @param log  where the child's stderr goes
     * @param main the child's main class
     * @param args its arguments
     * @return the running child
     * @throws IOException when the process cannot start
     */
    public static ChildJvm start(final String ns, final Path log, final Class<?> main, final String... args)
            throws IOException {
        final Set<String> cp = new LinkedHashSet<>();
        for (final String prop : List.of("jdk.module.path", "java.class.path")) {
            final String v = System.getProperty(prop);
            if (v != null && !v.isEmpty()) {
                cp.addAll(List.of(v.split(File.pathSeparator)));
            }
        }
        cp.add(Path.of(System.getProperty("user.dir"), "target", "test-classes").toString());
        cp.add(Path.of(System.getProperty("user.dir"), "target", "classes").toString());
        final List<String> cmd = new ArrayList<>(List.of("ip", "netns", "exec", ns,
                ProcessHandle.current().info().command().orElse("java"), "--enable-native-access=ALL-UNNAMED",
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", String.join(File.pathSeparator, cp), main.getName()));
        cmd.addAll(List.of(args));
        return new ChildJvm(new ProcessBuilder(cmd).redirectError(log.toFile()).start(), log);
    }

    /** @return the child process, for the caller's clean-up */
    public Process process() {
        return process;
    }

    /**
     * Waits, at most {@code seconds}, for the next stdout line starting with {@code prefix}; earlier lines are
     * skipped.
     *
     * @param prefix  what the line starts with
     * @param seconds the bound
     * @return the line
     * @throws InterruptedException when interrupted
     * @throws AssertionError       on no such line in time, or a {@code failed} line first, with the log's tail
     */
    public String expect(final String prefix, final int seconds) throws InterruptedException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            final String l = lines.poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (l == null) {
                throw new AssertionError("no '" + prefix + "' line within " + seconds + " s\n" + log());
            }
            if (l.startsWith(prefix)) {
                return l;
            }
            if (l.startsWith("failed")) {
                throw new AssertionError(l + "\n" + log());
            }
        }
    }

    /**
     * Writes one line to the child's stdin.
     *
     * @param line the line, without its newline
     * @throws IOException when the child is gone
     */
    public void say(final String line) throws IOException {
        final OutputStream out = process.getOutputStream();
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    /** @return the last lines of the child's stderr log, for failure messages */
    public String log() {
        try {
            final List<String> all = Files.readAllLines(log);
            return String.join("\n", all.subList(Math.max(0, all.size() - LOG_TAIL_LINES), all.size()));
        } catch (final IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }
}
