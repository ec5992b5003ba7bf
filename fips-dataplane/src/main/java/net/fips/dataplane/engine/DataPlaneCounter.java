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
    ADDRESS_CHANGES("roaming address changes");

    private final String label;

    DataPlaneCounter(final String label) {
        this.label = label;
    }

    /** @return a human-readable description */
    public String label() {
        return label;
    }
}
