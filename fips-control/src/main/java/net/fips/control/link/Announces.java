package net.fips.control.link;

import java.util.function.LongFunction;

import net.fips.dataplane.DataPlaneCommands;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.WireResult;

/**
 * The link messages this layer itself sends and consumes: link MMP reports (and the RTT they yield), Heartbeat and
 * Disconnect. Every other link message (TreeAnnounce, FilterAnnounce, LookupRequest, LookupResponse, unknown types)
 * is counted as {@link LinkCounter#OTHER_LINK_MESSAGES} and handed to the {@link LinkListener}; without a listener
 * it is only counted. The spanning tree and bloom filters live above this layer (net.fips.control.tree,
 * net.fips.control.bloom).
 */
final class Announces {
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;
    private static final long REPORT_FLOOR_COLD_NANOS = 200 * MS;
    private static final long REPORT_FLOOR_NANOS = SECOND;
    private static final long REPORT_CEILING_NANOS = 5 * SECOND;
    private static final int COLD_SAMPLES = 5;

    private final LinkTables t;
    private final DataPlaneCommands dataPlane;
    private final LongFunction<LinkStats> stats;
    private final PeerLifecycle life;
    private final Redials redials;

    Announces(final LinkTables tables, final DataPlaneCommands dataPlane, final LongFunction<LinkStats> stats,
              final PeerLifecycle life, final Redials redials) {
        this.t = tables;
        this.dataPlane = dataPlane;
        this.stats = stats;
        this.life = life;
        this.redials = redials;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending

    int sendMmpReports() {
        int work = 0;
        for (final PeerLink peer : t.peers()) {
            final LinkStats s = stats.apply(peer.linkId);
            if (s == null) {
                continue;
            }
            final PeerLink.Mmp m = peer.mmp;
            final long tsNow = linkTimestamp(peer);
            if (s.packetsOut() != m.srLastPacketsOut
                    && (!m.srSent || t.now() - m.lastSrNanos >= reportInterval(m, 2))) {
                final long counter = s.sendCounter();
                final MmpSenderReport sr = new MmpSenderReport(m.srStartCounter, Math.max(0, counter - 1),
                        m.srStartTimestampMs, tsNow, u32(s.bytesOut() - m.srLastBytesOut), s.packetsOut(),
                        s.bytesOut());
                dataPlane.sendLinkMessage(peer.linkId, sr.encodeLink());
                m.srSent = true;
                m.lastSrNanos = t.now();
                m.srStartCounter = counter;
                m.srStartTimestampMs = tsNow;
                m.srLastPacketsOut = s.packetsOut();
                m.srLastBytesOut = s.bytesOut();
                m.senderReportsOut++;
                t.count(LinkCounter.MMP_REPORTS_SENT);
                work++;
            }
            if (s.packetsIn() != m.rrLastPacketsIn
                    && (!m.rrSent || t.now() - m.lastRrNanos >= reportInterval(m, 1))) {
                // Echo the last frame's timestamp, dwell since its arrival (both from the data plane, per frame).
                long echo = 0;
                long dwell = 0;
                final long last = s.receiver().lastFrame();
                if (last != -1) {
                    final long dwellMs = (t.now() / MS - (last & 0xFFFF_FFFFL)) & 0xFFFF_FFFFL;
                    if (dwellMs > 0xFFFF) {
                        dwell = 0xFFFF;
                    } else {
                        echo = last >>> 32;
                        dwell = dwellMs;
                    }
                }
                final MmpReceiverReport rr = m.receiverReports.next(s.receiver(), s.highestCounterIn(),
                        s.packetsIn(), s.bytesIn(), echo, (int) dwell, s.packetsIn() - m.rrLastPacketsIn,
                        s.bytesIn() - m.rrLastBytesIn);
                dataPlane.sendLinkMessage(peer.linkId, rr.encodeLink());
                m.rrSent = true;
                m.lastRrNanos = t.now();
                m.rrLastPacketsIn = s.packetsIn();
                m.rrLastBytesIn = s.bytesIn();
                m.receiverReportsOut++;
                t.count(LinkCounter.MMP_REPORTS_SENT);
                work++;
            }
        }
        return work;
    }

    /** Sender reports every 2·SRTT, receiver reports every SRTT, within [floor, 5 s]; 200 ms before any SRTT. */
    private static long reportInterval(final PeerLink.Mmp m, final int srttMultiple) {
        if (m.rtt.samples() == 0) {
            return REPORT_FLOOR_COLD_NANOS;
        }
        final long floor = m.rtt.samples() <= COLD_SAMPLES ? REPORT_FLOOR_COLD_NANOS : REPORT_FLOOR_NANOS;
        final long want = m.rtt.srttMicros() * 1000L * srttMultiple;
        return Math.min(REPORT_CEILING_NANOS, Math.max(floor, want));
    }

    private long linkTimestamp(final PeerLink peer) {
        return ((t.now() - peer.keyEpochStartNanos) / MS) & 0xFFFF_FFFFL;
    }

    private static long u32(final long v) {
        return Math.max(0, Math.min(v, 0xFFFF_FFFFL));
    }

    // ------------------------------------------------------------------------------------------------------------
    // Receiving

    void onLinkMessage(final PeerLink peer, final long timestampMs, final byte[] msg) {
        if (msg.length == 0) {
            return;
        }
        final LinkMessageType type = LinkMessageType.fromCode(msg[0] & 0xFF);
        if (type == null) {
            forward(peer, msg);
            return;
        }
        switch (type) {
            case HEARTBEAT -> t.count(LinkCounter.HEARTBEATS_RECEIVED);
            case DISCONNECT -> onDisconnect(peer, msg);
            case SENDER_REPORT -> onSenderReport(peer, msg);
            case RECEIVER_REPORT -> onReceiverReport(peer, msg);
            default -> forward(peer, msg);
        }
    }

    private void forward(final PeerLink peer, final byte[] msg) {
        t.count(LinkCounter.OTHER_LINK_MESSAGES);
        final LinkListener l = life.listener();
        if (l != null) {
            l.onLinkMessage(peer.identity, msg, t.now());
        }
    }

    private void onDisconnect(final PeerLink peer, final byte[] msg) {
        final WireResult<Disconnect> r = Disconnect.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<Disconnect>(final Disconnect d))) {
            return; // an empty body is ignored, as the reference
        }
        final String reason = "peer sent Disconnect (" + d.reason() + ")";
        t.count(LinkCounter.DISCONNECTS_RECEIVED);
        life.remove(peer, reason);
        redials.scheduleReconnect(peer.nodeAddr);
    }

    private void onSenderReport(final PeerLink peer, final byte[] msg) {
        if (MmpSenderReport.decodeLink(msg, 0, msg.length).isOk()) {
            peer.mmp.senderReportsIn++;
            t.count(LinkCounter.MMP_REPORTS_RECEIVED);
        } else {
            t.count(LinkCounter.MMP_REPORTS_INVALID);
        }
    }

    private void onReceiverReport(final PeerLink peer, final byte[] msg) {
        final WireResult<MmpReceiverReport> r = MmpReceiverReport.decodeLink(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<MmpReceiverReport>(final MmpReceiverReport rr))) {
            t.count(LinkCounter.MMP_REPORTS_INVALID);
            return;
        }
        peer.mmp.receiverReportsIn++;
        t.count(LinkCounter.MMP_REPORTS_RECEIVED);
        final PeerLink.Mmp mm = peer.mmp;
        final LinkStats s = stats.apply(peer.linkId);
        if (mm.delivery.onReport(rr.highestCounter(), rr.cumulativePacketsRecv(), rr.cumulativeBytesRecv(),
                s == null ? -1 : s.packetsIn(), s == null ? -1 : s.highestCounterIn(), t.now())) {
            mm.peerReport.onReport(rr);
            final Double etx = mm.delivery.etx();
            final LinkListener ll = life.listener();
            if (etx != null && ll != null) {
                ll.onEtx(peer.identity, etx, t.now());
            }
        }
        if (rr.timestampEcho() == 0) {
            return;
        }
        // RTT = our key-epoch time now - (the timestamp it echoes + how long the peer held it).
        final long rttMs = linkTimestamp(peer) - (rr.timestampEcho() + rr.dwellTime());
        if (rttMs <= 0) {
            return;
        }
        mm.rtt.sample(rttMs * 1000);
        final LinkListener l = life.listener();
        if (l != null) {
            l.onRttSample(peer.identity, mm.rtt.srttMicros(), mm.rtt.samples(), t.now());
        }
    }
}
