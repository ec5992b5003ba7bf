package net.fips.control.session;

import java.util.List;

import net.fips.dataplane.wire.NodeAddr;

/**
 * Effects of the session layer. Called synchronously on the control thread from inside {@link Sessions}' methods;
 * implementations must not call back into the same {@link Sessions} instance.
 */
public interface SessionListener {
    /** A listener that ignores everything. */
    SessionListener NONE = new SessionListener() {
    };

    /** A session became established: install {@code keys} in the data plane (both counters from 0). */
    default void onEstablished(final SessionKeys keys, final long nowNanos) {
    }

    /**
     * A rekey handshake completed: install {@code keys} as the pending generation, which the receive side must try
     * alongside the current one (trial decryption); the send side switches on {@link #onRekeyCutover}.
     */
    default void onRekeyPending(final SessionKeys keys, final long nowNanos) {
    }

    /**
     * Promote the pending generation of {@code remote} to current (send with it and its K bit); the old current
     * becomes the previous generation, still accepted on receive until {@link #onPreviousKeysExpired}.
     */
    default void onRekeyCutover(final NodeAddr remote, final long nowNanos) {
    }

    /** The drain period ended: forget the previous key generation of {@code remote}. */
    default void onPreviousKeysExpired(final NodeAddr remote, final long nowNanos) {
    }

    /** The session entry for {@code remote} was deleted: drop its keys; queued packets were discarded. */
    default void onClosed(final NodeAddr remote, final CloseReason reason, final long nowNanos) {
    }

    /** The session to {@code remote} is established: send these queued packets through it, in order. */
    default void onFlush(final NodeAddr remote, final List<byte[]> packets, final long nowNanos) {
    }

    /** Start a coordinate lookup for {@code dest} (no route, CoordsRequired or PathBroken). */
    default void onLookupNeeded(final NodeAddr dest, final long nowNanos) {
    }

    /** Send a standalone CoordsWarmup to {@code remote} through the data plane (already rate-limited). */
    default void onCoordsWarmupNeeded(final NodeAddr remote, final long nowNanos) {
    }

    /**
     * The coordinate warm-up counter of the established session with {@code remote} was (re)armed to {@code packets}
     * (establishment, CoordsRequired, PathBroken, a verified LookupResponse): the data plane should carry our and
     * the destination's current coordinates on that many DataPackets.
     */
    default void onWarmupReset(final NodeAddr remote, final int packets, final long nowNanos) {
    }

    /**
     * A smaller path MTU toward {@code dest} was reported (MtuExceeded or PathMtuNotification): lower the session's
     * estimate and tighten the MSS-clamp entry (never loosen).
     */
    default void onPathMtu(final NodeAddr dest, final int mtu, final long nowNanos) {
    }
}
