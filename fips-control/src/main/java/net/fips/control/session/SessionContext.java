package net.fips.control.session;

import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Objects;
import java.util.Random;

import net.fips.control.identity.IdentityCache;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.NodeIdentity;
import net.fips.control.identity.PeerIdentity;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.NoiseException;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.SessionAck;
import net.fips.dataplane.wire.SessionDatagram;
import net.fips.dataplane.wire.SessionSetup;

/**
 * What the parts of the FSP session control plane share: the settings and collaborators {@link Sessions} was built
 * with, the table of {@link FspSession}s, the counters, and the XK building blocks used by both a first handshake
 * and a rekey (initiator Setup, responder Ack, the §10.3 identity binding, datagram routing). Owned by
 * {@link Sessions}; control thread only.
 */
final class SessionContext {
    private static final int PATH_MTU_START = 0xFFFF;

    final SessionConfig config;
    final SessionHost host;
    final IdentityCache identities;
    final SessionListener listener;
    final Random random;
    private final NodeIdentity identity;
    private final byte[] startupEpoch;
    private final EphemeralSource ephemerals;
    private final long[] counters = new long[SessionCounter.values().length];
    /** The sessions by remote node_addr (any state). */
    private final HashMap<NodeAddr, FspSession> table = new HashMap<>();

    SessionContext(final SessionConfig config, final NodeIdentity identity, final byte[] startupEpoch,
            final SessionHost host, final IdentityCache identities, final SessionListener listener,
            final EphemeralSource ephemerals, final Random random) {
        this.config = Objects.requireNonNull(config, "config");
        this.identity = Objects.requireNonNull(identity, "identity");
        if (startupEpoch == null || startupEpoch.length != HandshakeState.EPOCH_BYTES) {
            throw new IllegalArgumentException("startup epoch must be 8 bytes");
        }
        this.startupEpoch = startupEpoch.clone();
        this.host = Objects.requireNonNull(host, "host");
        this.identities = Objects.requireNonNull(identities, "identities");
        this.listener = Objects.requireNonNull(listener, "listener");
        this.ephemerals = Objects.requireNonNull(ephemerals, "ephemerals");
        this.random = Objects.requireNonNull(random, "random");
    }

    /** @return the session with {@code remote} in any state, or null */
    FspSession session(final NodeAddr remote) {
        return table.get(remote);
    }

    boolean hasSession(final NodeAddr remote) {
        return table.containsKey(remote);
    }

    void addSession(final FspSession s) {
        table.put(s.remote, s);
    }

    /** @return the removed session, or null when there was none */
    FspSession removeSession(final NodeAddr remote) {
        return table.remove(remote);
    }

    /** @return the sessions, for iteration that may remove the current one */
    Iterator<FspSession> sessionIterator() {
        return table.values().iterator();
    }

    /** @return a live, read-only view of the sessions */
    Collection<FspSession> sessions() {
        return Collections.unmodifiableCollection(table.values());
    }

    /** @return the remote addresses of every session (a copy) */
    List<NodeAddr> remotes() {
        return List.copyOf(table.keySet());
    }

    int sessionCount() {
        return table.size();
    }

    /** @return the established session with {@code remote}, or null */
    FspSession established(final NodeAddr remote) {
        final FspSession s = table.get(remote);
        return s != null && s.established() ? s : null;
    }

    void count(final SessionCounter c) {
        counters[c.ordinal()]++;
    }

    void count(final SessionCounter c, final long n) {
        counters[c.ordinal()] += n;
    }

    long counter(final SessionCounter c) {
        return counters[c.ordinal()];
    }

    /** @return the destination's cached coordinate, or ours when none is cached */
    Coords destCoords(final NodeAddr dest) {
        final Coords c = host.coordsOf(dest);
        return c == null || c.isEmpty() ? host.selfCoords() : c;
    }

    /** Routes an FSP message we originate to {@code dest}; a missing route is counted. */
    boolean route(final NodeAddr dest, final byte[] fsp) {
        final boolean ok = host.route(new SessionDatagram(config.datagramTtl(), PATH_MTU_START, host.self(), dest,
                fsp));
        if (!ok) {
            count(SessionCounter.NO_ROUTE);
        }
        return ok;
    }

    /** An XK initiator and the SessionSetup carrying its msg1. */
    record Setup(HandshakeState hs, byte[] setup) {
    }

    /**
     * Builds an XK initiator toward {@code peerKey} and the SessionSetup (our coordinate, the destination's cached
     * one) carrying its msg1; shared by a new session and a rekey. Sends nothing.
     *
     * @return the initiator and encoded Setup, or null when the handshake could not be built (counted)
     */
    Setup newSetup(final byte[] peerKey, final NodeAddr dest) {
        try {
            final HandshakeState hs = HandshakeState.initiator(HandshakeState.Pattern.XK, identity.secretKey(),
                    peerKey, startupEpoch, ephemerals);
            return new Setup(hs, new SessionSetup(0, host.selfCoords(), destCoords(dest), hs.writeMessage1())
                    .encode());
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return null;
        }
    }

    /** A responder's reading of msg1 and the SessionAck that answers it. */
    record Answer(HandshakeState hs, byte[] ack) {
    }

    /**
     * Reads a SessionSetup's msg1 as XK responder, writes msg2 into a SessionAck (our coordinates, the initiator's
     * copied back) and routes it to {@code src}; shared by a new session and a rekey.
     *
     * @return the handshake and the ack sent, or null when the handshake failed (counted) or the ack had no route
     */
    Answer answerSetup(final NodeAddr src, final SessionSetup setup, final byte[] msg1) {
        final HandshakeState hs;
        final byte[] ack;
        try {
            hs = HandshakeState.responder(HandshakeState.Pattern.XK, identity.secretKey(), startupEpoch, ephemerals);
            hs.readMessage1(msg1);
            ack = new SessionAck(0, host.selfCoords(), setup.srcCoords(), hs.writeMessage2()).encode();
        } catch (final NoiseException | RuntimeException ex) {
            count(SessionCounter.HANDSHAKE_FAILED);
            return null;
        }
        return route(src, ack) ? new Answer(hs, ack) : null;
    }

    /** §10.3: the key the initiator proved must be the one its src_addr is derived from. */
    PeerIdentity boundIdentity(final byte[] remoteStatic, final NodeAddr src) {
        try {
            final PeerIdentity p = PeerIdentity.fromCompressed(remoteStatic);
            if (p.nodeAddr().equals(src)) {
                return p;
            }
        } catch (final IdentityFormatException ex) {
            // counted below
        }
        count(SessionCounter.IDENTITY_MISMATCH);
        return null;
    }
}
