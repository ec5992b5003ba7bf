package net.fips.control.nat;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import net.fips.dataplane.udp.TraversalSocket;

/**
 * Our public IP as STUN sees it, for the advert of a public UDP transport bound to a wildcard address without
 * {@code external_addr} (discovery-gateway.md §1.8, row 1 case 3): a fresh {@code 0.0.0.0:0} socket per
 * observation, {@code stun_servers} in order with the 5 s per-server wait; only the IP is used (the caller pairs it
 * with its bound listen port, assuming a 1:1 NAT, as the reference does). Cached per transport key: a learned IP for
 * {@code max(advert_refresh_secs, 60)} s, a failure for 60 s, as the reference's cache.
 *
 * <p>Unlike the reference, which awaits the STUN exchange inside its advert tick (ADR 0057), the observation runs
 * on its own thread ({@code fips-nat-public}, started on first use): {@link #lookup} never blocks. It answers from
 * the cache, and when the entry is missing or stale starts one observation and keeps answering the old entry (or
 * {@link State#PENDING} when there is none) until the result is in. The control thread calls {@link #lookup}; the
 * cache is touched only there (results come back through a queue), on the injected monotonic clock.
 */
public final class PublicAddressLearner implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(PublicAddressLearner.class.getName());
    /** How long a failed observation is remembered before the next try (the reference's 60 s). */
    public static final long FAILURE_TTL_MS = 60_000;
    /** The shortest time a learned address is kept (the reference's floor on {@code advert_refresh_secs}). */
    public static final long MIN_SUCCESS_TTL_MS = 60_000;
    private static final long CLOSE_WAIT_MS = 2_000;

    /** One STUN observation from a fresh socket (blocking). */
    @FunctionalInterface
    public interface Observation {
        /**
         * @param stopped true once the learner closes: the observation should give up soon
         * @return our reflexive IP, or null when no server answered
         */
        InetAddress observe(BooleanSupplier stopped);
    }

    /** What {@link #lookup} knows. */
    public enum State {
        /** The first observation runs: nothing known yet. */
        PENDING,
        /** An IP was learned. */
        LEARNED,
        /** The latest observation failed. */
        FAILED
    }

    /**
     * @param state what is known
     * @param ip    the learned IP ({@link State#LEARNED} only), else null
     */
    public record Lookup(State state, InetAddress ip) {
    }

    private record Entry(InetAddress ip, long atNanos) {
    }

    private record Result(String key, InetAddress ip, long atNanos) {
    }

    private final Observation observation;
    private final long successTtlNanos;
    private final LongSupplier nanoClock;
    private final Map<String, Entry> cache = new HashMap<>();
    private final Set<String> running = new HashSet<>();
    private final ConcurrentLinkedQueue<Result> results = new ConcurrentLinkedQueue<>();
    private ExecutorService executor;
    private volatile boolean closed;

    /**
     * @param observation  one STUN observation
     * @param successTtlMs how long a learned IP is kept ({@code advert_refresh_secs}, at least 60 s)
     * @param nanoClock    monotonic nanoseconds
     */
    public PublicAddressLearner(final Observation observation, final long successTtlMs, final LongSupplier nanoClock) {
        this.observation = observation;
        this.successTtlNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(MIN_SUCCESS_TTL_MS, successTtlMs));
        this.nanoClock = nanoClock;
    }

    /**
     * The node's: STUN from a fresh {@code bind} socket (IPv4 {@code 0.0.0.0:0} in the node) against
     * {@code stunServers}, {@link StunClient#ADVERT_TIMEOUT_MS} per server; no servers is a failure.
     *
     * @param bind              where each observation's socket binds
     * @param stunServers       {@code stun_servers}
     * @param advertRefreshSecs {@code advert_refresh_secs}
     * @return the learner, its thread not started yet
     */
    public static PublicAddressLearner stun(final InetSocketAddress bind, final List<String> stunServers,
            final long advertRefreshSecs) {
        final List<String> servers = List.copyOf(stunServers);
        final StunClient client = StunClient.system();
        return new PublicAddressLearner(stopped -> observe(bind, servers, client, stopped),
                TimeUnit.SECONDS.toMillis(advertRefreshSecs), System::nanoTime);
    }

    private static InetAddress observe(final InetSocketAddress bind, final List<String> servers,
            final StunClient client, final BooleanSupplier stopped) {
        if (servers.isEmpty()) {
            return null;
        }
        try (TraversalSocket socket = TraversalSocket.open(bind)) {
            final DatagramPort port = DatagramPort.of(socket);
            final DatagramPort stoppable = new DatagramPort() {
                @Override
                public int send(final byte[] data, final int length, final InetSocketAddress to) {
                    return port.send(data, length, to);
                }

                @Override
                public Received receive(final byte[] into, final int timeoutMs) {
                    // Short waits, so a close is noticed within 100 ms.
                    return stopped.getAsBoolean() ? null : port.receive(into, Math.min(timeoutMs, 100));
                }

                @Override
                public boolean isClosed() {
                    return stopped.getAsBoolean() || port.isClosed();
                }
            };
            final StunClient.Result r = client.discover(stoppable, servers, StunClient.ADVERT_TIMEOUT_MS);
            return r.reflexive() == null ? null : r.reflexive().getAddress();
        } catch (final IOException e) {
            LOG.log(Level.DEBUG, "public address: no socket for STUN: {0}", e.getMessage());
            return null;
        }
    }

    /**
     * @param key the transport (one cache entry each)
     * @return what is known now; starts an observation when the entry is missing or stale and none runs
     */
    public Lookup lookup(final String key) {
        for (Result r = results.poll(); r != null; r = results.poll()) {
            running.remove(r.key());
            cache.put(r.key(), new Entry(r.ip(), r.atNanos()));
        }
        final Entry e = cache.get(key);
        final long now = nanoClock.getAsLong();
        final boolean fresh = e != null
                && now - e.atNanos() < (e.ip() != null ? successTtlNanos : TimeUnit.MILLISECONDS.toNanos(
                        FAILURE_TTL_MS));
        if (!fresh && !closed && running.add(key)) {
            start(key);
        }
        if (e == null) {
            return new Lookup(State.PENDING, null);
        }
        return e.ip() == null ? new Lookup(State.FAILED, null) : new Lookup(State.LEARNED, e.ip());
    }

    private void start(final String key) {
        if (executor == null) {
            executor = Executors.newSingleThreadExecutor(Thread.ofPlatform().name("fips-nat-public").daemon()
                    .factory());
        }
        executor.execute(() -> {
            InetAddress ip = null;
            try {
                ip = observation.observe(() -> closed);
            } catch (final RuntimeException ex) {
                LOG.log(Level.WARNING, "public address: STUN observation failed: {0}", ex.toString());
            }
            results.add(new Result(key, ip, nanoClock.getAsLong()));
        });
    }

    /** Stops a running observation (within about 100 ms) and the thread. */
    @Override
    public void close() {
        closed = true;
        if (executor == null) {
            return;
        }
        executor.shutdown();
        try {
            if (!executor.awaitTermination(CLOSE_WAIT_MS, TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
