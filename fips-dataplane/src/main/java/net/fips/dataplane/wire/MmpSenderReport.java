package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/**
 * MMP SenderReport, in both of its carriers. Link layer (type 0x01, 48 bytes): {@code 01 ‖ 3 reserved ‖ fields};
 * session layer (inner msg_type 0x11, 46-byte body): {@code 2 reserved ‖ fields}. Fields, all LE:
 * <pre>
 *  interval_start_counter u64 | interval_end_counter u64 | interval_start_ts u32 | interval_end_ts u32
 *  interval_bytes_sent u32    | cumulative_packets_sent u64 | cumulative_bytes_sent u64      (44 bytes)
 * </pre>
 * Reserved bytes are written as zero and ignored on decode; bytes beyond the layout are ignored (reference rule).
 *
 * @param intervalStartCounter   first counter of the interval (u64)
 * @param intervalEndCounter     last counter of the interval (u64)
 * @param intervalStartTimestamp interval start (u32 ms)
 * @param intervalEndTimestamp   interval end (u32 ms)
 * @param intervalBytesSent      bytes in the interval (u32)
 * @param cumulativePacketsSent  packets since start (u64)
 * @param cumulativeBytesSent    bytes since start (u64)
 */
public record MmpSenderReport(long intervalStartCounter, long intervalEndCounter, long intervalStartTimestamp,
        long intervalEndTimestamp, long intervalBytesSent, long cumulativePacketsSent, long cumulativeBytesSent) {
    /** Link message size including msg_type. */
    public static final int LINK_SIZE = 48;
    /** Session body size (after the FSP inner header). */
    public static final int SESSION_SIZE = 46;
    /** Session inner msg_type. */
    public static final int SESSION_MSG_TYPE = 0x11;
    private static final int FIELDS = 44;

    /** Checks the u32 fields. */
    public MmpSenderReport {
        Links.u32(intervalStartTimestamp, "interval_start_timestamp");
        Links.u32(intervalEndTimestamp, "interval_end_timestamp");
        Links.u32(intervalBytesSent, "interval_bytes_sent");
    }

    /** The 48-byte link message. */
    public byte[] encodeLink() {
        return fields(new Writer(LINK_SIZE).u8(LinkMessageType.SENDER_REPORT.code()).u8(0).u16(0)).done();
    }

    /** The 46-byte session body. */
    public byte[] encodeSession() {
        return fields(new Writer(SESSION_SIZE).u16(0)).done();
    }

    private Writer fields(final Writer w) {
        return w.u64(intervalStartCounter).u64(intervalEndCounter).u32(intervalStartTimestamp)
                .u32(intervalEndTimestamp).u32(intervalBytesSent).u64(cumulativePacketsSent)
                .u64(cumulativeBytesSent);
    }

    private static MmpSenderReport read(final Reader r) throws WireException {
        r.need(FIELDS);
        return new MmpSenderReport(r.u64(), r.u64(), r.u32(), r.u32(), r.u32(), r.u64(), r.u64());
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<MmpSenderReport> decodeLink(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.SENDER_REPORT);
            r.need(LINK_SIZE - 1);
            r.skip(3);
            return read(r);
        });
    }

    /** As {@link #decodeLink(MemorySegment, long, long)} over a byte array. */
    public static WireResult<MmpSenderReport> decodeLink(final byte[] b, final int off, final int len) {
        return decodeLink(MemorySegment.ofArray(b), off, len);
    }

    /** Decodes a session body (after the FSP inner header). */
    public static WireResult<MmpSenderReport> decodeSession(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            r.need(SESSION_SIZE);
            r.skip(2);
            return read(r);
        });
    }

    /** As {@link #decodeSession(MemorySegment, long, long)} over a byte array. */
    public static WireResult<MmpSenderReport> decodeSession(final byte[] b, final int off, final int len) {
        return decodeSession(MemorySegment.ofArray(b), off, len);
    }
}
