package net.fips.dataplane;

import java.util.Objects;

import net.fips.dataplane.transport.TransportAddr;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * What the data plane reports to the control plane, through a bounded queue the control thread drains. Events
 * are rare (handshakes and link control messages, not data), so each is a small immutable record.
 */
public sealed interface DataPlaneEvent {

    /** A handshake packet (FMP phase 1 or 2) arrived; nothing about it has been checked beyond its prefix. */
    record HandshakeReceived(int transportId, TransportAddr from, byte[] packet) implements DataPlaneEvent {
    }

    /**
     * An authenticated link message other than a SessionDatagram ({@code message[0]} is the msg_type), with the
     * sender's 32-bit timestamp from the frame's inner header.
     */
    record LinkMessageReceived(long linkId, long timestampMs, byte[] message) implements DataPlaneEvent {
    }

    /**
     * A frame with the other K bit authenticated against the pending session, so the data plane cut over. The
     * control plane adopts {@code sessionStartNanos} as the start of the session it knows by {@code ourIndex}, so
     * both sides count that session's timestamps from one instant (see {@link DataPlaneCommands#cutover}).
     *
     * @param linkId            the link
     * @param ourIndex          our index of the session that became current
     * @param sessionStartNanos the data plane's clock reading at the cutover: its frame timestamps count from here
     */
    record CutOver(long linkId, int ourIndex, long sessionStartNanos) implements DataPlaneEvent {
    }

    /** An authenticated frame came from a new address; later sends go there (roaming). */
    record AddressChanged(long linkId, TransportAddr address) implements DataPlaneEvent {
    }

    /** The link reached the limit of consecutive decryption failures (reference: 20) and should be removed. */
    record TooManyDecryptFailures(long linkId) implements DataPlaneEvent {
    }

    /**
     * A packet whose FMP version is not ours arrived on a transport that carries only the links it was set up for
     * ({@link net.fips.dataplane.transport.Transport#bootstrapOnly()}: a socket adopted from NAT traversal): the peer
     * behind it speaks another protocol version (discovery-gateway.md §1.12). The packet itself is dropped and
     * counted as {@code DROP_BAD_VERSION} like any other; this report is raised at most once per
     * {@link #REPORT_INTERVAL_NANOS} per transport, so a flood cannot fill the event queue.
     *
     * @param transportId the transport it arrived on
     * @param version     the version nibble it carried
     */
    record ForeignVersionReceived(int transportId, int version) implements DataPlaneEvent {
        /** At most one report per transport in this interval. */
        public static final long REPORT_INTERVAL_NANOS = 1_000_000_000L;
    }

    /**
     * What the transit path reports for the routing layer (routing-session.md §4.2, §4.5): coordinates seen in
     * forwarded or delivered datagrams, and routing failures that call for an error signal. Only produced while a
     * {@link net.fips.dataplane.route.ForwardingTable} is installed.
     */
    sealed interface RoutingEvent extends DataPlaneEvent {
    }

    /**
     * Coordinate-cache warming (§4.2 step 3): a SessionDatagram, forwarded or for us, carried coordinates in
     * cleartext (a SessionSetup, a SessionAck, or an encrypted FSP message with the CP flag). The control plane
     * should insert the non-null ones into its coordinate cache and publish a new table.
     *
     * @param src        the datagram's src_addr
     * @param srcCoords  coordinates for {@code src}, or null if none were carried
     * @param dest       the datagram's dest_addr
     * @param destCoords coordinates for {@code dest}, or null if none were carried
     */
    record CoordsObserved(NodeAddr src, Coords srcCoords, NodeAddr dest, Coords destCoords) implements RoutingEvent {
        /** Requires the addresses. */
        public CoordsObserved {
            Objects.requireNonNull(src, "src");
            Objects.requireNonNull(dest, "dest");
        }
    }

    /** Which error signal a routing failure calls for (§4.5). */
    enum RoutingErrorKind {
        /** The transit had no coordinates for the destination. */
        COORDS_REQUIRED,
        /** The transit had coordinates but no peer closer to the destination (carry our cached coordinates). */
        PATH_BROKEN
    }

    /**
     * A transit datagram was dropped for lack of a route; the control plane should send {@code kind} from us to
     * {@code src} about {@code dest}. The data plane rate-limits these per destination (100 ms, per worker), so
     * the control plane need not. For PATH_BROKEN the coordinates to carry are the control plane's cached ones for
     * {@code dest}: when they came from the dropped packet itself, the {@link CoordsObserved} reporting them was
     * queued before this event.
     *
     * {@code arrivalLinkId} names the link the dropped datagram came in on, so that a transit with no route back
     * to {@code src} can hand the signal to the previous hop instead of dropping it (ADR 0064).
     *
     * @param src           the dropped datagram's src_addr (the error's destination)
     * @param dest          the dropped datagram's dest_addr
     * @param kind          which signal
     * @param arrivalLinkId the link the dropped datagram arrived on, or {@link #NO_LINK} when not known
     */
    record RoutingError(NodeAddr src, NodeAddr dest, RoutingErrorKind kind, long arrivalLinkId)
            implements RoutingEvent {
        /** The arrival link is not known. */
        public static final long NO_LINK = -1L;

        /** Requires every field. */
        public RoutingError {
            Objects.requireNonNull(src, "src");
            Objects.requireNonNull(dest, "dest");
            Objects.requireNonNull(kind, "kind");
        }

        /** A routing error whose arrival link is not known ({@link #NO_LINK}). */
        public RoutingError(final NodeAddr src, final NodeAddr dest, final RoutingErrorKind kind) {
            this(src, dest, kind, NO_LINK);
        }
    }

    /**
     * A transit datagram was dropped because, framed, it exceeds the MTU of the transport toward the next hop
     * (routing-session §4.2 step 8); the control plane should send MtuExceeded from us to {@code src} about
     * {@code dest} carrying {@code mtu}. Rate-limited in the data plane with {@link RoutingError} (one per
     * destination per 100 ms whatever the kind, per worker).
     *
     * @param src  the dropped datagram's src_addr (the error's destination)
     * @param dest the dropped datagram's dest_addr
     * @param mtu  the outbound transport's MTU (the whole FMP frame, as the reference's transport reports it)
     */
    record ForwardMtuExceeded(NodeAddr src, NodeAddr dest, int mtu) implements RoutingEvent {
        /** Requires the addresses and an MTU in 1..65535. */
        public ForwardMtuExceeded {
            Objects.requireNonNull(src, "src");
            Objects.requireNonNull(dest, "dest");
            if (mtu < 1 || mtu > 0xFFFF) {
                throw new IllegalArgumentException("mtu " + mtu);
            }
        }
    }

    /** What the session path reports for the session layer (routing-session.md §5); only with the path on. */
    sealed interface SessionEvent extends DataPlaneEvent {
    }

    /**
     * An IPv6 packet for a FIPS address for which the worker holds no established session (routing-session.md
     * §5.2 steps 1, 3, 4): the control plane looks the destination up, starts or continues the handshake and
     * queues the packet, or answers with ICMPv6 Destination Unreachable.
     *
     * @param packet the whole IPv6 packet
     */
    record OutboundWithoutSession(byte[] packet) implements SessionEvent {
    }

    /**
     * An FSP message addressed to us that the data plane does not handle itself: a handshake message (SessionSetup,
     * SessionAck, SessionMsg3) or a plaintext error signal (CoordsRequired, PathBroken, MtuExceeded).
     *
     * @param src the datagram's src_addr
     * @param fsp the FSP message (the datagram's payload)
     */
    record SessionMessageReceived(NodeAddr src, byte[] fsp) implements SessionEvent {
    }

    /**
     * A decrypted session message other than a DataPacket (MMP reports, PathMtuNotification, CoordsWarmup).
     *
     * @param src       the remote node
     * @param plaintext {@code ts u32 ‖ msg_type ‖ inner_flags ‖ body}
     */
    record SessionInnerReceived(NodeAddr src, byte[] plaintext) implements SessionEvent {
    }

    /**
     * A frame from {@code remote} authenticated with keys the control plane is waiting to hear about: the pending
     * generation (the data plane cut over at {@code sessionStartNanos}: {@code cutOver} true) or, first after a
     * cutover the control plane ordered, the new current generation ({@code cutOver} false).
     */
    record SessionKeysAuthenticated(NodeAddr remote, boolean cutOver, long sessionStartNanos)
            implements SessionEvent {
    }

    /** A frame authenticated with the previous generation (at most one event per session per second). */
    record SessionPreviousKeysUsed(NodeAddr remote) implements SessionEvent {
    }

    /**
     * An established session's packet found no route (at most one event per session per 100 ms): the control
     * plane starts discovery for {@code remote}.
     */
    record SessionNoRoute(NodeAddr remote) implements SessionEvent {
    }
}
