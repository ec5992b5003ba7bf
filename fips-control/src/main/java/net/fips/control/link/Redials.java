package net.fips.control.link;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import net.fips.control.identity.PeerIdentity;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The configured peers and the redial schedule (reference {@code src/node/retry.rs}): a failed dial of a configured
 * peer is retried with exponential backoff up to {@code max_retries}, and a lost link of an auto-reconnect peer is
 * redialled forever. Failures are logged at WARN on the 1st, 2nd, 4th, 8th, ... in a row. Owned by
 * {@link LinkConductor}; dials go through the {@link Dialer} it gives. Control thread only.
 */
final class Redials {
    /** The conductor's logger: these lines kept their logger name when they moved here. */
    private static final System.Logger LOG = System.getLogger(LinkConductor.class.getName());

    /** Starts a dial (the conductor's {@code initiate}). */
    @FunctionalInterface
    interface Dialer {
        /** @return what happened */
        LinkConductor.ConnectResult dial(PeerIdentity peer, int transportId, TransportAddr address);
    }

    /** A peer from the configuration (or added at runtime) that we dial and, if asked, redial. */
    record ConfiguredPeer(PeerIdentity identity, int transportId, TransportAddr address, boolean autoReconnect) {
    }

    /** Backoff state of a peer to be redialled. */
    static final class RetryState {
        final ConfiguredPeer peer;
        int retryCount;
        long retryAfterNanos;
        boolean reconnect;
        /** Dials that failed since the peer was last up; the WARN line is written at 1, 2, 4, 8, ... of them. */
        int failures;

        RetryState(final ConfiguredPeer peer) {
            this.peer = peer;
        }
    }

    private final LinkTables tables;
    private final LinkConfig config;
    private final Dialer dialer;
    private final Map<NodeAddr, ConfiguredPeer> configured = new LinkedHashMap<>();
    private final Map<NodeAddr, RetryState> retries = new LinkedHashMap<>();

    Redials(final LinkTables tables, final LinkConfig config, final Dialer dialer) {
        this.tables = tables;
        this.config = config;
        this.dialer = dialer;
    }

    /** Remembers a configured peer (replacing an earlier entry for it). */
    void configure(final PeerIdentity peer, final int transportId, final TransportAddr address,
                   final boolean autoReconnect) {
        configured.put(peer.nodeAddr(), new ConfiguredPeer(peer, transportId, address, autoReconnect));
    }

    /** Cancels any redial of {@code addr}. */
    void cancel(final NodeAddr addr) {
        retries.remove(addr);
    }

    /** Forgets one configured peer and its redial. */
    void forget(final NodeAddr addr) {
        retries.remove(addr);
        configured.remove(addr);
    }

    /** Forgets every configured peer and redial (shutdown). */
    void clear() {
        retries.clear();
        configured.clear();
    }

    /**
     * The peer came up: its redial ends.
     *
     * @return the dials that had failed in a row before it, 0 when none
     */
    int onPeerUp(final NodeAddr addr) {
        final RetryState retry = retries.remove(addr);
        return retry == null ? 0 : retry.failures;
    }

    /** @return whether dials to {@code addr} failed since it was last up */
    boolean failing(final NodeAddr addr) {
        final RetryState retry = retries.get(addr);
        return retry != null && retry.failures > 0;
    }

    /** @return peers with a redial scheduled */
    int pending() {
        return retries.size();
    }

    /** @return the redials for the snapshot */
    List<RetrySnapshot> snapshot() {
        final List<RetrySnapshot> list = new ArrayList<>(retries.size());
        for (final Map.Entry<NodeAddr, RetryState> e : retries.entrySet()) {
            final RetryState r = e.getValue();
            list.add(new RetrySnapshot(e.getKey().toString(), r.peer.identity().npub(), r.retryCount,
                    (r.retryAfterNanos - tables.now()) / 1_000_000L, r.peer.autoReconnect()));
        }
        return list;
    }

    /**
     * After a failed or timed-out dial (reference {@code schedule_retry}). A configured peer's failures are logged
     * at WARN on the 1st, 2nd, 4th, 8th, ... failure in a row, with the count and the next attempt's delay, so a
     * peer that stays unreachable costs a few lines, not one per attempt.
     *
     * @param why what went wrong, for the log
     */
    void scheduleRetry(final NodeAddr addr, final String why) {
        if (config.maxRetries() == 0 || tables.peer(addr) != null) {
            return;
        }
        final long now = tables.now();
        final RetryState state = retries.get(addr);
        if (state != null) {
            state.retryCount++;
            state.failures++;
            if (!state.reconnect && state.retryCount > config.maxRetries()) {
                retries.remove(addr);
                LOG.log(System.Logger.Level.WARNING, "Peer {0} at {1}: giving up after {2} failed attempts ({3})",
                        state.peer.identity().shortNpub(), format(state.peer.address()),
                        String.valueOf(state.failures), why);
                return;
            }
            state.retryAfterNanos = now + backoff(state.retryCount);
            logFailure(state, why);
            return;
        }
        final ConfiguredPeer cp = configured.get(addr);
        if (cp != null) {
            final RetryState s = new RetryState(cp);
            s.retryCount = 1;
            s.reconnect = true;
            s.retryAfterNanos = now + backoff(1);
            s.failures = 1;
            retries.put(addr, s);
            logFailure(s, why);
        }
    }

    private void logFailure(final RetryState s, final String why) {
        if (Integer.bitCount(s.failures) != 1) {
            return;
        }
        final long nextSecs = Math.max(0, s.retryAfterNanos - tables.now()) / 1_000_000_000L;
        if (s.failures == 1) {
            LOG.log(System.Logger.Level.WARNING, "Peer {0} at {1}: cannot connect ({2}); retrying in {3} s",
                    s.peer.identity().shortNpub(), format(s.peer.address()), why, String.valueOf(nextSecs));
        } else {
            LOG.log(System.Logger.Level.WARNING,
                    "Peer {0} at {1}: still cannot connect after {2} attempts ({3}); retrying in {4} s,"
                    + " next report after {5} failures", s.peer.identity().shortNpub(), format(s.peer.address()),
                    String.valueOf(s.failures), why, String.valueOf(nextSecs), String.valueOf(2 * s.failures));
        }
    }

    static String format(final TransportAddr a) {
        return a == null ? "?" : a.toString();
    }

    /** After a link-dead, Disconnect, restart or decrypt-failure removal (reference {@code schedule_reconnect}). */
    void scheduleReconnect(final NodeAddr addr) {
        final ConfiguredPeer cp = configured.get(addr);
        if (cp == null || !cp.autoReconnect()) {
            return;
        }
        final RetryState state = retries.get(addr);
        if (state != null) {
            state.reconnect = true;
            state.retryCount++;
            state.retryAfterNanos = tables.now() + backoff(state.retryCount);
            return;
        }
        final RetryState s = new RetryState(cp);
        s.reconnect = true;
        s.retryAfterNanos = tables.now() + backoff(0);
        retries.put(addr, s);
    }

    private long backoff(final int retryCount) {
        final long mult = retryCount >= 62 ? Long.MAX_VALUE : 1L << retryCount;
        final long base = config.retryBaseNanos();
        final long delay = mult > Long.MAX_VALUE / Math.max(1, base) ? Long.MAX_VALUE : base * mult;
        return Math.min(delay, config.retryMaxBackoffNanos());
    }

    /** The tick's redials: at most {@code max_retries_per_tick} due dials, none while at {@code max_peers}. */
    int process() {
        if (retries.isEmpty() || tables.peerCount() >= config.maxPeers()) {
            return 0;
        }
        final long now = tables.now();
        int started = 0;
        final List<NodeAddr> due = new ArrayList<>();
        for (final Map.Entry<NodeAddr, RetryState> e : retries.entrySet()) {
            if (now - e.getValue().retryAfterNanos >= 0) {
                due.add(e.getKey());
            }
        }
        for (final NodeAddr addr : due) {
            if (started >= config.maxRetriesPerTick()) {
                break;
            }
            if (tables.peer(addr) != null) {
                retries.remove(addr);
                continue;
            }
            final RetryState state = retries.get(addr);
            final ConfiguredPeer cp = state.peer;
            final LinkConductor.ConnectResult r = dialer.dial(cp.identity(), cp.transportId(), cp.address());
            started++;
            tables.count(LinkCounter.RETRIES_STARTED);
            if (r == LinkConductor.ConnectResult.STARTED || r == LinkConductor.ConnectResult.IN_PROGRESS) {
                state.retryAfterNanos = tables.now() + config.handshakeTimeoutNanos();
            } else if (r == LinkConductor.ConnectResult.ALREADY_CONNECTED) {
                retries.remove(addr);
            } else {
                scheduleRetry(addr, "dial not started: " + r.name().toLowerCase(Locale.ROOT));
            }
        }
        return started;
    }
}
