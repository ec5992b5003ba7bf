package net.fips.dataplane.wire;

import java.lang.foreign.MemorySegment;

/**
 * MMP ReceiverReport, in both carriers. Link layer (type 0x02, 68 bytes): {@code 02 ‖ 3 reserved ‖ fields}; session
 * layer (inner msg_type 0x12, 66-byte body): {@code 2 reserved ‖ fields}. Fields, all LE (64 bytes):
 * <pre>
 *  highest_counter u64 | cumulative_packets_recv u64 | cumulative_bytes_recv u64 | timestamp_echo u32
 *  dwell_time u16 | max_burst_loss u16 | mean_burst_loss u16 (u8.8) | 2 reserved | jitter u32 (µs)
 *  ecn_ce_count u32 | owd_trend i32 | burst_loss_count u32 | cumulative_reorder_count u32
 *  interval_packets_recv u32 | interval_bytes_recv u32
 * </pre>
 *
 * @param highestCounter         highest counter received (u64)
 * @param cumulativePacketsRecv  packets received since start (u64)
 * @param cumulativeBytesRecv    bytes received since start (u64)
 * @param timestampEcho          echoed sender timestamp (u32)
 * @param dwellTime              ms between receipt and this report (u16)
 * @param maxBurstLoss           longest loss burst (u16)
 * @param meanBurstLoss          mean loss burst, u8.8 fixed point (u16)
 * @param jitter                 jitter in µs (u32)
 * @param ecnCeCount             CE-marked frames (u32)
 * @param owdTrend               one-way-delay trend (i32)
 * @param burstLossCount         loss bursts (u32)
 * @param cumulativeReorderCount reordered frames (u32)
 * @param intervalPacketsRecv    packets in the interval (u32)
 * @param intervalBytesRecv      bytes in the interval (u32)
 */
public record MmpReceiverReport(long highestCounter, long cumulativePacketsRecv, long cumulativeBytesRecv,
        long timestampEcho, int dwellTime, int maxBurstLoss, int meanBurstLoss, long jitter, long ecnCeCount,
        int owdTrend, long burstLossCount, long cumulativeReorderCount, long intervalPacketsRecv,
        long intervalBytesRecv) {
    /** Link message size including msg_type. */
    public static final int LINK_SIZE = 68;
    /** Session body size. */
    public static final int SESSION_SIZE = 66;
    /** Session inner msg_type. */
    public static final int SESSION_MSG_TYPE = 0x12;
    private static final int FIELDS = 64;

    /** Checks the u16 and u32 fields. */
    public MmpReceiverReport {
        Links.u32(timestampEcho, "timestamp_echo");
        Links.u16(dwellTime, "dwell_time");
        Links.u16(maxBurstLoss, "max_burst_loss");
        Links.u16(meanBurstLoss, "mean_burst_loss");
        Links.u32(jitter, "jitter");
        Links.u32(ecnCeCount, "ecn_ce_count");
        Links.u32(burstLossCount, "burst_loss_count");
        Links.u32(cumulativeReorderCount, "cumulative_reorder_count");
        Links.u32(intervalPacketsRecv, "interval_packets_recv");
        Links.u32(intervalBytesRecv, "interval_bytes_recv");
    }

    /** The 68-byte link message. */
    public byte[] encodeLink() {
        return fields(new Writer(LINK_SIZE).u8(LinkMessageType.RECEIVER_REPORT.code()).u8(0).u16(0)).done();
    }

    /** The 66-byte session body. */
    public byte[] encodeSession() {
        return fields(new Writer(SESSION_SIZE).u16(0)).done();
    }

    private Writer fields(final Writer w) {
        return w.u64(highestCounter).u64(cumulativePacketsRecv).u64(cumulativeBytesRecv).u32(timestampEcho)
                .u16(dwellTime).u16(maxBurstLoss).u16(meanBurstLoss).u16(0).u32(jitter).u32(ecnCeCount)
                .u32(Integer.toUnsignedLong(owdTrend)).u32(burstLossCount).u32(cumulativeReorderCount)
                .u32(intervalPacketsRecv).u32(intervalBytesRecv);
    }

    private static MmpReceiverReport read(final Reader r) throws WireException {
        r.need(FIELDS);
        final long highest = r.u64();
        final long packets = r.u64();
        final long bytes = r.u64();
        final long echo = r.u32();
        final int dwell = r.u16();
        final int maxBurst = r.u16();
        final int meanBurst = r.u16();
        r.skip(2);
        return new MmpReceiverReport(highest, packets, bytes, echo, dwell, maxBurst, meanBurst, r.u32(), r.u32(),
                r.i32(), r.u32(), r.u32(), r.u32(), r.u32());
    }

    /** Decodes a link message starting at its msg_type byte. */
    public static WireResult<MmpReceiverReport> decodeLink(final MemorySegment seg, final long off, final long len) {
        return Reader.run(seg, off, len, r -> {
            Links.expectType(r, LinkMessageType.RECEIVER_REPORT);
            r.need(LINK_SIZE - 1);
            r.skip(3);
            return read(r);
        });
    }

    /** As {@link #decodeLink(MemorySegment, long, long)} over a byte array. */
    public static WireResult<MmpReceiverReport> decodeLink(final byte[] b, final int off, final int len) {
        return decodeLink(MemorySegment.ofArray(b), off, len);
    }

    /** Decodes a session body (after the FSP inner header). */
    public static WireResult<MmpReceiverReport> decodeSession(final MemorySegment seg, final long off,
            final long len) {
        return Reader.run(seg, off, len, r -> {
            r.need(SESSION_SIZE);
            r.skip(2);
            return read(r);
        });
    }

    /** As {@link #decodeSession(MemorySegment, long, long)} over a byte array. */
    public static WireResult<MmpReceiverReport> decodeSession(final byte[] b, final int off, final int len) {
        return decodeSession(MemorySegment.ofArray(b), off, len);
    }
}
