package net.fips.cli;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.UnaryOperator;
import java.util.logging.Logger;

import net.fips.control.config.NodeConfig;
import net.fips.control.crypto.Secp256k1Backends;
import net.fips.control.link.LinkCounter;
import net.fips.control.node.NodeOptions;
import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.tun.StandInTcpStream;

/**
 * The daemon's warm-up before its node starts: inside the daemon's own JVM, before the real transports and
 * {@code fips0} are opened, it runs {@link DaemonTraining}'s two in-process nodes (UDP on {@code 127.0.0.1}, a
 * socket-pair stand-in for each TUN, the daemon's default threading mode, so compact on fewer than four CPUs, and
 * offload settings) with a TCP stream and pings through both TUN sides, until the JIT has stopped compiling while the
 * stream still runs, then {@value #LONE_PINGS} lone pings (one in flight at a time: the path of a small packet through
 * data planes that wake from their polls for it), then closes them and waits until the compile queue is drained
 * (all of it twice, see {@link #run}). So the real node's first packets
 * find the packet path compiled by C2 from a profile of the same code paths, and no compilation competes with them
 * for the CPUs afterwards (docs/benchmarks.md, "Cold and warm pings" and "A warm-up before the node starts").
 *
 * <p>Off unless the system property {@value #PROPERTY} gives a cap in seconds; the launchers ({@code bin/fips},
 * {@code /usr/bin/fips}) set it from {@code FIPS_DAEMON_WARMUP}, 10 by default (ADR 0068). The start is delayed by
 * at most that cap plus {@value #LINK_TIMEOUT_SECONDS} s for each pair of nodes to link and {@value #DRAIN_CAP_MS}
 * ms of draining; a stop signal ends it after the current slice. A failure (no loopback in the namespace, a port
 * taken) logs one line and the daemon starts without it.
 */
final class StartupWarmup {
    /** System property: the most seconds of stream (0 or unset: no warm-up). */
    static final String PROPERTY = "fips.warmup.start.seconds";
    /** The least stream time before compile quiet counts (the first slices run interpreted and queue compiles). */
    static final long MIN_STREAM_MS = 1000;
    /** The least payload each pair's stream moves before compile quiet counts. */
    static final long MIN_STREAM_MB = 16;
    /** Pairs of nodes run one after the other (see {@link #run}). */
    static final int GENERATIONS = 2;
    /** The stream runs in slices this long; between slices the compile time is read. */
    static final long SLICE_MS = 100;
    /** No compilation finished for this long: the queue counts as drained. */
    static final long QUIET_MS = 300;
    /** The poll interval of the drain. */
    static final long POLL_MS = 20;
    /** After the nodes closed, wait at most this long for the compile queue to drain. */
    static final long DRAIN_CAP_MS = 3000;
    /**
     * Lone pings after each pair's stream: a little above C2's invocation threshold (10,000 without tiered
     * compilation), so the path of a lone small packet through an idle data plane gets compiled too.
     */
    static final int LONE_PINGS = 12_000;
    /** The most time the lone pings of one pair may take (within the cap). */
    static final long LONE_PINGS_CAP_MS = 4000;
    /**
     * The loopback nodes' link rekey timing (minimum key age and dampening): a few seconds instead of the
     * reference's fixed 30, so the first pair's stream rekeys its link once, usually after part of its code is
     * compiled (the second pair's shorter stream mostly does not). A branch that a rekey takes (a pending key epoch,
     * frames under the previous one) and that traps here is recompiled here, not at the real node's first link
     * rekey, which otherwise sends the receive path back to the interpreter for the next 10,000 frames: at a ping's
     * rate, for good. Not every such trap is caught this way (docs/benchmarks.md, "The warm-up by default").
     */
    static final long LINK_REKEY_SECONDS = 3;
    /** How long the two nodes may take to link before the warm-up gives up. */
    static final int LINK_TIMEOUT_SECONDS = 5;
    private static final Logger LOG = Logger.getLogger(FipsDaemon.class.getName());

    /**
     * One pair of nodes' stream.
     *
     * @param stream      what the stream moved, null when the nodes did not link
     * @param streamNanos how long the stream ran
     * @param quiet       whether the stream ended because compilation had gone quiet (else the cap ended it)
     * @param pings       the lone pings answered after the stream
     * @param pingNanos   how long they took
     * @param linkRekeys  link key cutovers on the first node (its link rekeyed this often)
     */
    record Generation(StandInTcpStream.Result stream, long streamNanos, boolean quiet, long pings, long pingNanos,
                      long linkRekeys) {
    }

    /**
     * What a warm-up did.
     *
     * @param generations   the pairs of nodes, in order (the last one null-streamed when it did not link)
     * @param drainNanos    how long the wait for the compile queue took after the last nodes closed
     * @param drained       whether the compile queue went quiet within {@value #DRAIN_CAP_MS} ms
     * @param compileMillis the JIT's total compilation time at the end, ms
     */
    record Outcome(List<Generation> generations, long drainNanos, boolean drained, long compileMillis) {
        /** @return whether every pair of nodes linked */
        boolean linked() {
            return generations.stream().allMatch(g -> g.stream() != null);
        }
    }

    private static final UnaryOperator<NodeOptions> LINK_REKEYS = o -> o.linkConfigTuner(c -> c.withRekeyTiming(
            TimeUnit.SECONDS.toNanos(LINK_REKEY_SECONDS), TimeUnit.SECONDS.toNanos(LINK_REKEY_SECONDS), 0));

    private final LongSupplier clock;
    private final LongSupplier compileMillis;
    private final long capNanos;
    private final BooleanSupplier stopRequested;

    StartupWarmup(final LongSupplier clock, final LongSupplier compileMillis, final long capNanos) {
        this(clock, compileMillis, capNanos, () -> false);
    }

    /**
     * @param stopRequested true once the daemon was asked to stop: the warm-up ends after the current slice
     *                      (or the current pair's link wait) and skips the drain
     */
    StartupWarmup(final LongSupplier clock, final LongSupplier compileMillis, final long capNanos,
                  final BooleanSupplier stopRequested) {
        this.clock = clock;
        this.compileMillis = compileMillis;
        this.capNanos = capNanos;
        this.stopRequested = stopRequested;
    }

    /** @return the cap in seconds the property asks for, 0 when it is unset, 0 or not a number */
    static int configuredSeconds() {
        final String v = System.getProperty(PROPERTY);
        if (v == null || v.isBlank()) {
            return 0;
        }
        try {
            return Math.max(0, Integer.parseInt(v.trim()));
        } catch (final NumberFormatException e) {
            LOG.warning("-D" + PROPERTY + "=" + v + " is not a number of seconds; no start-up warm-up");
            return 0;
        }
    }

    /**
     * Runs the warm-up when the property asks for it, with the log at WARN meanwhile (the two nodes' start and
     * stop lines are not the daemon's), then restores {@code level} and logs one line of what it did.
     *
     * @param level         the daemon's log level, restored afterwards
     * @param stopRequested true once the daemon was asked to stop (SIGTERM during the warm-up ends it early)
     */
    static void runIfConfigured(final NodeConfig.LogLevel level, final BooleanSupplier stopRequested) {
        final int seconds = configuredSeconds();
        if (seconds == 0) {
            return;
        }
        final CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            LOG.info("start-up warm-up skipped: this JVM does not report its compilation time");
            return;
        }
        LOG.info("start-up warm-up: compiling the packet path through two loopback nodes before the node starts"
                + " (at most " + seconds + " s of stream; FIPS_DAEMON_WARMUP=0 turns it off)");
        // The once-per-JVM backend choices log their INFO line at first use, which would otherwise fall inside the
        // warm-up's WARN-only stretch: made here, so the daemon's log still says which backends it runs.
        Secp256k1Backends.active();
        AeadCiphers.defaultBackend();
        final long t0 = System.nanoTime();
        if (level.ordinal() < NodeConfig.LogLevel.WARN.ordinal()) {
            LogSetup.setLevel(NodeConfig.LogLevel.WARN);
        }
        Outcome o = null;
        String failure = null;
        try {
            o = new StartupWarmup(System::nanoTime, jit::getTotalCompilationTime, TimeUnit.SECONDS.toNanos(seconds),
                    stopRequested).run();
        } catch (final Exception e) {
            // An expected condition (no loopback here, a port taken): the message, never a stack trace.
            failure = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        } finally {
            LogSetup.setLevel(level);
        }
        final double took = (System.nanoTime() - t0) / 1e9;
        if (stopRequested.getAsBoolean()) {
            LOG.info(String.format("start-up warm-up ended after %.1f s: the daemon was asked to stop", took));
        } else if (failure != null) {
            LOG.info(String.format("start-up warm-up failed after %.1f s (%s); starting without it", took, failure));
        } else if (!o.linked()) {
            LOG.info(String.format("start-up warm-up cut short after %.1f s: its two loopback nodes did not link",
                    took));
        } else {
            final StringBuilder gens = new StringBuilder();
            for (final Generation g : o.generations()) {
                gens.append(String.format("%s%d MB in %.1f s (%s, %d link rekeys) and %d lone pings in %.1f s",
                        gens.isEmpty() ? "" : ", then ", g.stream().bytesIn() >> 20, g.streamNanos() / 1e9,
                        g.quiet() ? "compiles quiet" : "cap", g.linkRekeys(), g.pings(), g.pingNanos() / 1e9));
            }
            LOG.info(String.format("start-up warm-up: %.1f s; TCP stream through two loopback nodes: %s; compile"
                    + " queue %s %.1f s later; JIT time %d ms", took, gens, o.drained() ? "drained" : "still busy",
                    o.drainNanos() / 1e9, o.compileMillis()));
        }
    }

    /**
     * Runs {@value #GENERATIONS} pairs of nodes one after the other, each streaming until compilation is quiet (or
     * the cap, which counts for all of them), then waits for the compile queue. The second pair replays a fresh
     * node's start (handshakes, session lookups that miss, the first packets of a session) against the code the
     * first pair's stream got compiled: its branches, which a steady stream never takes, trap there, and are
     * profiled and compiled again, instead of in the real node's first pings.
     *
     * @return what it did
     */
    Outcome run() throws Exception {
        final long start = clock.getAsLong();
        final List<Generation> gens = new ArrayList<>();
        for (int g = 0; g < GENERATIONS && clock.getAsLong() - start < capNanos && !stopRequested.getAsBoolean();
                g++) {
            final long[] streamed = new long[1];
            final long[] pinged = new long[2];
            final long[] rekeys = new long[1];
            final boolean[] quiet = new boolean[1];
            final StandInTcpStream.Result r = DaemonTraining.run(TimeUnit.SECONDS.toNanos(LINK_TIMEOUT_SECONDS),
                    DaemonTraining.REKEY_SECONDS, LINK_REKEYS, s -> {
                        final long t = clock.getAsLong();
                        final StandInTcpStream.Result res = stream(s, capNanos - (t - start), quiet);
                        final long p = clock.getAsLong();
                        streamed[0] = p - t;
                        final long left = Math.min(capNanos - (p - start),
                                TimeUnit.MILLISECONDS.toNanos(LONE_PINGS_CAP_MS));
                        if (left > 0 && !stopRequested.getAsBoolean()) {
                            pinged[0] = s.lonePings(LONE_PINGS, left, clock);
                            pinged[1] = clock.getAsLong() - p;
                        }
                        return res;
                    }, (a, b) -> rekeys[0] = a.linkSnapshot().counter(LinkCounter.CUTOVERS));
            gens.add(new Generation(r, streamed[0], quiet[0], pinged[0], pinged[1], rekeys[0]));
            if (r == null) {
                break;
            }
        }
        final long d0 = clock.getAsLong();
        if (stopRequested.getAsBoolean()) {
            return new Outcome(gens, 0, false, compileMillis.getAsLong());
        }
        final boolean drained = awaitQuiet(TimeUnit.MILLISECONDS.toNanos(DRAIN_CAP_MS),
                () -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(POLL_MS)), () -> true);
        return new Outcome(gens, clock.getAsLong() - d0, drained, compileMillis.getAsLong());
    }

    /**
     * Runs {@code stream} in slices of {@value #SLICE_MS} ms until it has run {@value #MIN_STREAM_MS} ms and moved
     * {@value #MIN_STREAM_MB} MB (enough packets for every per-packet method to pass C2's invocation threshold) and no
     * compilation has finished for {@value #QUIET_MS} ms (the stream's path is compiled), or {@code capNanos}.
     */
    private StandInTcpStream.Result stream(final StandInTcpStream stream, final long capNanos, final boolean[] quiet) {
        final long slice = TimeUnit.MILLISECONDS.toNanos(SLICE_MS);
        final long start = clock.getAsLong();
        final StandInTcpStream.Result[] last = {stream.run(Math.min(capNanos,
                TimeUnit.MILLISECONDS.toNanos(MIN_STREAM_MS)), clock)};
        if (clock.getAsLong() - start < capNanos) {
            quiet[0] = awaitQuiet(capNanos - (clock.getAsLong() - start), () -> last[0] = stream.run(slice, clock),
                    () -> last[0].bytesIn() >= MIN_STREAM_MB << 20);
        }
        return last[0];
    }

    /**
     * Calls {@code step} (a slice of stream, or a park of {@value #POLL_MS} ms) and reads the JIT's total compilation
     * time after each call, until it has not grown for {@value #QUIET_MS} ms and {@code ready} holds, or
     * {@code capNanos} passed, or the daemon was asked to stop.
     *
     * @return whether it went quiet before the cap
     */
    boolean awaitQuiet(final long capNanos, final Runnable step, final BooleanSupplier ready) {
        final long start = clock.getAsLong();
        final long quietNanos = TimeUnit.MILLISECONDS.toNanos(QUIET_MS);
        long seen = compileMillis.getAsLong();
        long since = start;
        while (true) {
            step.run();
            final long now = clock.getAsLong();
            final long ms = compileMillis.getAsLong();
            if (ms != seen) {
                seen = ms;
                since = now;
            } else if (now - since >= quietNanos && ready.getAsBoolean()) {
                return true;
            }
            if (now - start >= capNanos || stopRequested.getAsBoolean()) {
                return false;
            }
        }
    }
}
