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
    ROUTE_CROSSLINK_ASCEND("forwards: crosslink ascend");

    private final String label;

    DataPlaneCounter(final String label) {
        this.label = label;
    }

    /** @return a human-readable description */
    public String label() {
        return label;
    }
}
