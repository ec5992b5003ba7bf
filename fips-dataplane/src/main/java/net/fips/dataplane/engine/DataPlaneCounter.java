package net.fips.dataplane.engine;

/**
 * The data plane's counters: every dropped packet lands in exactly one of the drop counters, so a test or an
 * operator can tell why a packet vanished without any logging on the packet path.
 */
public enum DataPlaneCounter {
    /** Datagrams shorter than the 4-byte FMP prefix. */
    DROP_RUNT("runt datagrams (< 4 bytes)"),
    /** FMP version other than 0. */
    DROP_BAD_VERSION("FMP version not 0"),
    /** Phase other than 0, 1 or 2. */
    DROP_BAD_PHASE("unknown FMP phase"),
    /** Established frames shorter than header + tag (32 bytes). */
    DROP_TRUNCATED("established frames < 32 bytes"),
    /** Established frames whose receiver index is not registered: dropped without crypto. */
    DROP_UNKNOWN_INDEX("unknown receiver index"),
    /** A frame for a link that went away between dispatch and processing, or a session index no longer held. */
    DROP_NO_SESSION("no session for the frame's index"),
    /** A receive-to-worker ring was full. */
    DROP_WORKER_RING_FULL("worker ring full"),
    /** A worker-to-transmit ring was full. */
    DROP_TX_RING_FULL("transmit ring full"),
    /** Counter seen before or older than the replay window (silent, not a decrypt failure). */
    DROP_REPLAY("replayed or too old counter"),
    /** AEAD authentication failed. */
    DROP_AUTH_FAILED("authentication failed"),
    /** Authenticated plaintext shorter than the 5-byte inner header. */
    DROP_SHORT_PLAINTEXT("plaintext < 5 bytes"),
    /** An outbound message would exceed the transport MTU after framing. */
    DROP_MTU("outbound frame above MTU"),
    /**
     * A transit SessionDatagram that would exceed the outbound transport's MTU once framed (routing-session §4.2
     * step 8; answered with MtuExceeded, rate-limited); not also counted in {@link #DROP_MTU}.
     */
    DROP_FORWARD_MTU_EXCEEDED("transit datagram above the next hop's MTU"),
    /** Bytes of the {@link #DROP_FORWARD_MTU_EXCEEDED} datagrams, without the link message type byte. */
    FORWARD_MTU_EXCEEDED_BYTES("bytes of transit datagrams above the next hop's MTU"),
    /** A send on a link that does not exist (or has no session). */
    DROP_NO_LINK("send on unknown link"),
    /** No free packet slot. */
    DROP_POOL_EXHAUSTED("packet pool exhausted"),
    /** The send counter reached 2^64 - 1 (never in practice; the session must be rekeyed). */
    DROP_COUNTER_EXHAUSTED("send counter exhausted"),
    /** Events lost because the control plane did not drain the queue. */
    DROP_EVENT_QUEUE_FULL("event queue full"),
    /** Frames that authenticated. */
    FRAMES_IN("frames authenticated"),
    /** Frames sealed and handed to a transport. */
    FRAMES_OUT("frames sealed"),
    /** SessionDatagrams handed to the local delivery hook. */
    DATAGRAMS_DELIVERED("datagrams delivered locally"),
    /** Handshake packets surfaced as events. */
    HANDSHAKES_IN("handshake packets received"),
    /** Cutovers triggered by a K-bit trial decryption. */
    KBIT_CUTOVERS("cutovers by K-bit trial"),
    /** Authenticated frames from a new source address. */
    ADDRESS_CHANGES("roaming address changes"),
    /** Established frames whose payload_len is not the frame length minus 32 (checked before decryption). */
    DROP_BAD_PAYLOAD_LEN("payload_len does not match the frame"),
    /** SessionDatagrams shorter than the 36-byte header (with a forwarding table). */
    DROP_MALFORMED_DATAGRAM("malformed SessionDatagram"),
    /** SessionDatagrams received with ttl 0, dropped even when addressed to us. */
    DROP_TTL_EXHAUSTED("SessionDatagram ttl exhausted"),
    /** Transit SessionDatagrams with no next hop. */
    DROP_NO_ROUTE("no route for a transit SessionDatagram"),
    /** A forwarded datagram found the ring to the outbound link's worker full. */
    DROP_HANDOFF_RING_FULL("cross-worker handoff ring full"),
    /** Routing-error events not raised because one was raised for the destination within 100 ms. */
    ROUTING_ERRORS_SUPPRESSED("routing errors rate-limited"),
    /** Routing-error events raised. */
    ROUTING_ERRORS_REPORTED("routing errors reported"),
    /** Coordinate warming events raised (SessionSetup, SessionAck, CP). */
    COORDS_OBSERVED("coordinates seen in datagrams"),
    /** SessionDatagrams handed to another worker because the outbound link is pinned there. */
    HANDOFFS("cross-worker handoffs"),
    /** Transit SessionDatagrams re-sealed towards the next hop. */
    FORWARDED("SessionDatagrams forwarded"),
    /** Forwards sealed with the FMP CE flag (relayed from the incoming frame or set for local congestion). */
    CE_FORWARDED("forwards marked CE"),
    /** Forwards whose next hop's link the control plane flagged as congested (routing-session §6.6). */
    CONGESTION_DETECTED("forwards towards a congested link"),
    /** IPv6 packets delivered from a CE-marked FMP frame (ECN-capable ones were marked CE, §5.6). */
    CE_RECEIVED("IPv6 packets received with CE"),
    /** Forwards whose next hop is the destination. */
    ROUTE_DIRECT_PEER("forwards: direct peer"),
    /** Forwards up the tree. */
    ROUTE_TREE_UP("forwards: tree up"),
    /** Forwards down the tree into the destination's subtree. */
    ROUTE_TREE_DOWN("forwards: tree down"),
    /** Forwards to a child whose subtree does not hold the destination. */
    ROUTE_TREE_DOWN_CROSS("forwards: tree down, cross"),
    /** Lateral forwards into the destination's subtree. */
    ROUTE_CROSSLINK_DESCEND("forwards: crosslink descend"),
    /** Lateral forwards not into the destination's subtree. */
    ROUTE_CROSSLINK_ASCEND("forwards: crosslink ascend"),
    /** IPv6 packets sealed into a session and handed to routing. */
    SESSION_PACKETS_OUT("IPv6 packets sent through a session"),
    /** IPv6 packets opened from a session and written to the IPv6 side. */
    SESSION_PACKETS_IN("IPv6 packets received through a session"),
    /** Session key generations promoted (by a pending-key frame or the control plane's cutover). */
    SESSION_CUTOVERS("session rekey cutovers"),
    /** Session-layer messages other than DataPackets sealed (CoordsWarmup, reports, notifications). */
    SESSION_MESSAGES_OUT("session control messages sent"),
    /** IPv6 packets for which the worker had no session: passed to the control plane. */
    SESSION_PACKETS_TO_CONTROL("IPv6 packets waiting for a session"),
    /** FSP handshake messages and error signals addressed to us, passed to the control plane. */
    SESSION_MESSAGES_TO_CONTROL("FSP handshake/error messages received"),
    /** Outbound IPv6 packets that are not IPv6, too short, or for a non-FIPS or multicast destination. */
    DROP_IPV6_NOT_ROUTABLE("IPv6 packets not for the mesh"),
    /** Outbound IPv6 packets longer than the path allows: answered with ICMPv6 Packet Too Big. */
    DROP_IPV6_TOO_BIG("IPv6 packets too big (PTB sent or rate-limited)"),
    /** Outbound session packets with no next hop. */
    DROP_SESSION_NO_ROUTE("session packets without a route"),
    /** Encrypted FSP messages for which no session exists. */
    DROP_SESSION_UNKNOWN("FSP messages for an unknown session"),
    /** Encrypted FSP messages that no key generation authenticated. */
    DROP_SESSION_AUTH_FAILED("FSP authentication failed"),
    /** Encrypted FSP messages replayed or older than the window. */
    DROP_SESSION_REPLAY("FSP replayed or too old counter"),
    /** FSP messages too short or with bad coordinates, DataPackets not for port 256 or with a bad shim. */
    DROP_SESSION_MALFORMED("malformed FSP message"),
    /** Decrypted IPv6 packets with nowhere to go (no TUN) or refused by it. */
    DROP_IPV6_SINK("IPv6 packets the TUN side refused"),
    /** ICMPv6 errors written to the IPv6 side (Packet Too Big, Destination Unreachable). */
    ICMPV6_ERRORS_SENT("ICMPv6 errors sent to TUN"),
    /** TCP SYNs whose MSS was lowered. */
    MSS_CLAMPED("TCP MSS clamped"),
    /**
     * TUN frames in virtio-net header mode we cannot pass on: a super-segment that is not IPv6 TCP without extension
     * headers (TCPv4 is never routed into the mesh), a partial checksum outside the packet, or a segment that would
     * not fit a slot.
     */
    DROP_TUN_OFFLOAD("TUN offload frames we cannot split"),
    /** TCP super-segments read from TUN and split into MTU-sized segments. */
    TUN_SUPER_SEGMENTS("TUN super-segments split"),
    /** Receive cycles skipped because a worker ring had no room for a whole batch (no drop; the socket buffers). */
    RX_BACKPRESSURE("receive batches held back by a full worker ring"),
    /** Times the TUN reader found its worker's ring full and held the packet back (no drop; it stops reading). */
    TUN_BACKPRESSURE("TUN reads held back by a full worker ring"),
    /** Decrypted TCP segments written to TUN inside a coalesced super-segment. */
    TUN_COALESCED("TCP segments coalesced into TUN super-segment writes"),
    /** Established frames held for a link index whose msg2 had just gone up to the control plane. */
    LINK_FRAMES_HELD("frames held for link keys being installed"),
    /** Held frames handed to their link's worker once the control plane installed the index. */
    LINK_FRAMES_RELEASED("held frames delivered once their link keys were in"),
    /** Held frames dropped because no link took their index within the hold time. */
    DROP_HELD_FRAME_EXPIRED("held frames whose link keys never came"),
    /** Frames for an expected link index dropped because the hold was full. */
    DROP_HELD_FRAME_OVERFLOW("frames beyond the link hold's bounds"),
    /** FSP messages held for a session whose SessionAck or SessionMsg3 had just gone up to the control plane. */
    SESSION_MESSAGES_HELD("FSP messages held for session keys being installed"),
    /** Held FSP messages opened once the control plane installed the session's keys. */
    SESSION_MESSAGES_RELEASED("held FSP messages delivered once their session keys were in"),
    /** Held FSP messages dropped because no keys came for them within the hold time. */
    DROP_SESSION_HELD_EXPIRED("held FSP messages whose session keys never came"),
    /** FSP messages for an expected session dropped because the hold was full. */
    DROP_SESSION_HELD_OVERFLOW("FSP messages beyond the session hold's bounds"),
    /** msg1 dropped in the receive thread: its source address had no token left. */
    DROP_MSG1_SOURCE_BUDGET("msg1 over its source address's budget"),
    /** msg1 dropped in the receive thread: its source's /24 or /64 had no token left. */
    DROP_MSG1_NETWORK_BUDGET("msg1 over its source network's budget"),
    /** msg1 dropped in the receive thread: the transport's msg1 budget was spent. */
    DROP_MSG1_TRANSPORT_BUDGET("msg1 over the transport's budget");

    private final String label;

    DataPlaneCounter(final String label) {
        this.label = label;
    }

    /** @return a human-readable description */
    public String label() {
        return label;
    }
}
