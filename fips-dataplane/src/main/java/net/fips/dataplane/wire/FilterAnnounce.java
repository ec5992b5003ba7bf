package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * FilterAnnounce link message (type 0x20):
 * <pre>
 *  0    1               9            10           11
 *  | 20 | sequence u64   | hash_count | size_class | filter bytes (512 &lt;&lt; size_class)
 * </pre>
 * v1 uses size_class 1 (1024 bytes, 1035 in all). Decoding refuses what the reference refuses: size_class &gt; 3 and
 * any size_class other than 1 ({@link WireError#INVALID_FIELD}), a remainder that is not exactly
 * {@code 512 << size_class} bytes ({@link WireError#TRUNCATED} / {@link WireError#TRAILING}), and hash_count 0
 * ({@link WireError#INVALID_FIELD}). Encoding accepts any size_class 0..3 that matches the filter size, so a
 * non-v1 message can still be produced (as the reference's encoder can).
 *
 * @param sequence  node-wide filter sequence (u64)
 * @param sizeClass filter size class (0..3)
 * @param filter    the filter; its hash_count is the announced hash_count
 */
public record FilterAnnounce(long sequence, int sizeClass, BloomFilter filter) {
    /** The size class v1 requires. */
    public static final int V1_SIZE_CLASS = 1;
    /** Largest size class the format can express. */
    public static final int MAX_SIZE_CLASS = 3;
    /** Bytes before the filter, including msg_type. */
    public static final int HEADER_SIZE = 11;

    /** Checks that the filter size matches the size class, and copies the filter. */
    public FilterAnnounce {
        Objects.requireNonNull(filter, "filter");
        if (sizeClass < 0 || sizeClass > MAX_SIZE_CLASS || filter.numBytes() != filterBytes(sizeClass)) {
            throw new IllegalArgumentException("filter size does not match size_class " + sizeClass);
        }
        filter = filter.copy();
    }

    /** A v1 announce (size_class 1) of {@code filter}, which must be 1024 bytes. */
    public static FilterAnnounce v1(final long sequence, final BloomFilter filter) {
        return new FilterAnnounce(sequence, V1_SIZE_CLASS, filter);
    }

    /** Filter size in bytes for a size class. */
    public static int filterBytes(final int sizeClass) {
        return 512 << sizeClass;
    }

    /** A copy of the filter. */
    @Override
    public BloomFilter filter() {
        return filter.copy();
    }

    /** The announced hash_count. */
    public int hashCount() {
        return filter.hashCount();
    }

    /** True for size_class 1, the only class a v1 receiver accepts. */
    public boolean isV1() {
        return sizeClass == V1_SIZE_CLASS;
    }

    /** The link message including msg_type. */
    public byte[] encode() {
        return new Writer(HEADER_SIZE + filter.numBytes()).u8(LinkMessageType.FILTER_ANNOUNCE.code()).u64(sequence)
                .u8(filter.hashCount()).u8(sizeClass).bytes(filter.toBytes()).done();
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<FilterAnnounce> decode(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.FILTER_ANNOUNCE);
            r.need(HEADER_SIZE - 1);
            final long seq = r.u64();
            final int hashCount = r.u8();
            final int sizeClass = r.u8();
            if (sizeClass != V1_SIZE_CLASS) {
                throw WireException.of(WireError.INVALID_FIELD);
            }
            final int size = filterBytes(sizeClass);
            r.need(size);
            if (r.remaining() != size) {
                throw WireException.of(WireError.TRAILING);
            }
            if (hashCount == 0) {
                throw WireException.of(WireError.INVALID_FIELD);
            }
            return new FilterAnnounce(seq, sizeClass, BloomFilter.fromBytes(r.bytes(size), hashCount));
        });
    }

    /** As {@link #decode(MemorySegment, long, long)} over a byte array. */
    public static WireResult<FilterAnnounce> decode(final byte[] b, final int off, final int len) {
        return decode(MemorySegment.ofArray(b), off, len);
    }
}
