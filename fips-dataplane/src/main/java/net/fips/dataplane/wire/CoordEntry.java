package net.fips.dataplane.wire;

import java.util.Objects;

/**
 * One TreeAnnounce ancestry entry (32 bytes on the wire): {@code node_addr(16) ‖ sequence u64 LE ‖ timestamp u64 LE}.
 *
 * @param nodeAddr  the ancestor
 * @param sequence  its declaration sequence (u64)
 * @param timestamp its declaration time, Unix seconds (u64)
 */
public record CoordEntry(NodeAddr nodeAddr, long sequence, long timestamp) {
    /** Encoded size. */
    public static final int SIZE = 32;

    /** Requires an address. */
    public CoordEntry {
        Objects.requireNonNull(nodeAddr, "nodeAddr");
    }
}
