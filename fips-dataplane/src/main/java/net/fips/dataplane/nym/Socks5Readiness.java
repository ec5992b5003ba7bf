package net.fips.dataplane.nym;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import net.fips.dataplane.tor.TorConnector;

/**
 * The Nym transport's start-up wait for {@code nym-socks5-client} (transports.md §6.7): plain TCP connects to the
 * proxy port, the first at once, then after 1 s, 2 s, 4 s, 8 s and every 10 s, until one succeeds or
 * {@code startup_timeout_secs} have passed since the first. The caller starts the transport either way (the
 * reference warns and goes on); this only says whether the proxy answered. Time comes from the injected clock
 * and waits go through the injected {@link Sleeper}, so tests run it without real time.
 */
public final class Socks5Readiness {
    /** The first retry delay. */
    public static final long FIRST_DELAY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The longest retry delay. */
    public static final long MAX_DELAY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** How long one probe connect may take. */
    static final int PROBE_CONNECT_MS = 2_000;

    /** Waits between probes. */
    @FunctionalInterface
    public interface Sleeper {
        /**
         * @param nanos how long
         * @throws InterruptedException when interrupted (the wait gives up)
         */
        void sleep(long nanos) throws InterruptedException;
    }

    /** One probe of the proxy port. */
    @FunctionalInterface
    public interface Probe {
        /**
         * @return true when a TCP connection to the proxy was made
         */
        boolean reachable();
    }

    private final Probe probe;
    private final LongSupplier nanoClock;
    private final Sleeper sleeper;

    /**
     * @param probe     one connect attempt
     * @param nanoClock monotonic nanoseconds
     * @param sleeper   the wait between attempts
     */
    public Socks5Readiness(final Probe probe, final LongSupplier nanoClock, final Sleeper sleeper) {
        this.probe = Objects.requireNonNull(probe, "probe");
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.sleeper = Objects.requireNonNull(sleeper, "sleeper");
    }

    /**
     * A probe that opens (and at once closes) a TCP connection to {@code host:port}, resolved at each attempt.
     *
     * @param socks5Addr {@code host:port} of the proxy
     * @return the probe
     */
    public static Probe tcpConnect(final String socks5Addr) {
        Objects.requireNonNull(socks5Addr, "socks5Addr");
        return () -> {
            final InetSocketAddress a = TorConnector.resolve(socks5Addr);
            if (a == null) {
                return false;
            }
            try (Socket s = new Socket()) {
                s.connect(a, PROBE_CONNECT_MS);
                return true;
            } catch (final IOException e) {
                return false;
            }
        };
    }

    /**
     * Probes until the proxy answers or {@code timeoutNanos} have passed.
     *
     * @param timeoutNanos {@code startup_timeout_secs} in nanoseconds (0: one attempt)
     * @return true when the proxy answered; false after the timeout or when interrupted (the interrupt flag is
     *         kept)
     */
    public boolean await(final long timeoutNanos) {
        final long start = nanoClock.getAsLong();
        long delay = FIRST_DELAY_NANOS;
        while (true) {
            if (probe.reachable()) {
                return true;
            }
            if (nanoClock.getAsLong() - start >= timeoutNanos) {
                return false;
            }
            try {
                sleeper.sleep(delay);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
            delay = Math.min(delay * 2, MAX_DELAY_NANOS);
        }
    }
}
