package net.fips.cli;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.logging.Logger;

import net.fips.dataplane.crypto.AeadCiphers;
import net.fips.dataplane.engine.PathExercise;

/**
 * The daemon's start-up warm-up: right after the node is running, one background thread drives synthetic packets
 * through the real session path ({@link PathExercise}: two private data planes on {@code 127.0.0.1}, never the
 * node's own transports, peers or TUN device) so that the JIT has compiled seal, open and route before the first
 * real packets need them, instead of interpreting the first few hundred pings of a fresh daemon.
 *
 * <p>Off by default (it costs about 4 MiB of idle RSS, against issue 10's 100 MB, for a first-ping gain that does
 * not reach issue 9's RTT target: docs/benchmarks.md, "First pings after start"); the system property
 * {@value #PROPERTY} asks for a number of rounds (six packets each; 1000 is what was measured). Bounded: at most
 * {@value #MAX_SECONDS} s, paced to half a core (after each slice of work it parks as long as the slice ran), and it
 * stops early once the node carries real session traffic (from then on the real packets keep the JIT busy, and the
 * warm-up would only compete with them for the CPU). It does not delay the start, and logs one line when it ends.
 */
final class PathWarmup implements Runnable {
    /** System property: how many rounds to run (0: none). */
    static final String PROPERTY = "fips.warmup.rounds";
    /**
     * Rounds when the property is not set: none (1000 rounds give C1 for every per-packet method, C2 for the
     * hottest).
     */
    static final int ROUNDS_DEFAULT = 0;
    /** The wall-clock cap, whatever is left of the rounds. */
    static final int MAX_SECONDS = 30;
    private static final int SLICE_ROUNDS = 25;
    private static final Logger LOG = Logger.getLogger(FipsDaemon.class.getName());

    private final int rounds;
    private final LongSupplier clock;
    private final BooleanSupplier realTraffic;

    PathWarmup(final int rounds, final LongSupplier clock, final BooleanSupplier realTraffic) {
        this.rounds = rounds;
        this.clock = clock;
        this.realTraffic = realTraffic;
    }

    /** @return the rounds the property asks for, the default when it is unset or not a number */
    static int configuredRounds() {
        final String v = System.getProperty(PROPERTY);
        if (v == null) {
            return ROUNDS_DEFAULT;
        }
        try {
            return Math.max(0, Integer.parseInt(v.trim()));
        } catch (final NumberFormatException e) {
            LOG.warning("-D" + PROPERTY + "=" + v + " is not a number; using " + ROUNDS_DEFAULT);
            return ROUNDS_DEFAULT;
        }
    }

    /**
     * Starts the warm-up on a daemon thread of its own unless it is turned off; returns at once.
     *
     * @param realTraffic true once the node's own session path has carried a packet (polled between slices)
     */
    static void startInBackground(final BooleanSupplier realTraffic) {
        final int rounds = configuredRounds();
        if (rounds == 0) {
            return;
        }
        Thread.ofPlatform().name("fips-warmup").daemon().start(new PathWarmup(rounds, System::nanoTime, realTraffic));
    }

    @Override
    public void run() {
        final long t0 = clock.getAsLong();
        final long deadline = t0 + TimeUnit.SECONDS.toNanos(MAX_SECONDS);
        long delivered = 0;
        int done = 0;
        try (PathExercise ex = PathExercise.open(AeadCiphers::create)) {
            boolean traffic = false;
            while (done < rounds && clock.getAsLong() - deadline < 0) {
                traffic = realTraffic.getAsBoolean();
                if (traffic) {
                    break;
                }
                final int n = Math.min(SLICE_ROUNDS, rounds - done);
                final long s = clock.getAsLong();
                delivered += ex.run(n);
                done += n;
                LockSupport.parkNanos(clock.getAsLong() - s);
            }
            LOG.info(String.format("data path warm-up: %d synthetic packets through the session path on 127.0.0.1"
                    + " in %.1f s (%d rounds of %d%s)", delivered, (clock.getAsLong() - t0) / 1e9, done, rounds,
                    traffic ? "; stopped early by real traffic" : ""));
        } catch (final IOException | RuntimeException e) {
            // An expected condition (e.g. no loopback in this namespace): the message, never the exception class.
            LOG.info("data path warm-up skipped: "
                    + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
        }
    }
}
