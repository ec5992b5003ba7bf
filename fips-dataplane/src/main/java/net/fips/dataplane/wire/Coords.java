package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * A tree coordinate in its address-only wire form: {@code count u16 LE ‖ count × node_addr(16)}, ordered from the node
 * itself to the root. Used by LookupRequest/Response, SessionSetup/Ack, PathBroken and the CP (coords-present)
 * section of encrypted FSP messages. The value may be empty only where the wire allows it (PathBroken, CP).
 *
 * @param addrs the node addresses, self first, root last (unmodifiable)
 */
public record Coords(List<NodeAddr> addrs) {
    /** An empty coordinate (encoded as count 0). */
    public static final Coords EMPTY = new Coords(List.of());

    /** Copies {@code addrs} into an unmodifiable list. */
    public Coords {
        addrs = List.copyOf(addrs);
        if (addrs.size() > 0xFFFF) {
            throw new IllegalArgumentException("at most 65535 coordinate entries");
        }
    }

    /** A coordinate from the given addresses, self first. */
    public static Coords of(final NodeAddr... addrs) {
        return new Coords(Arrays.asList(addrs));
    }

    /** Number of entries. */
    public int size() {
        return addrs.size();
    }

    /** True when there are no entries. */
    public boolean isEmpty() {
        return addrs.isEmpty();
    }

    /** The root (last entry); only for a non-empty coordinate. */
    public NodeAddr root() {
        return addrs.getLast();
    }

    /** Tree depth: entries minus one (0 for the root itself). */
    public int depth() {
        return addrs.size() - 1;
    }

    /** Encoded size: 2 + 16 per entry. */
    public int encodedSize() {
        return 2 + NodeAddr.SIZE * addrs.size();
    }

    /** The wire encoding. */
    public byte[] encode() {
        return new Writer(encodedSize()).coords(this).done();
    }

    /**
     * Decodes exactly one non-empty coordinate filling the window (count 0 is refused like the reference does).
     */
    public static WireResult<Coords> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            final Coords c = r.coords(false);
            r.expectEnd();
            return c;
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<Coords> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
