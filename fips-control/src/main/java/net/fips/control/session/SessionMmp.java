package net.fips.control.session;

import net.fips.dataplane.SessionStats;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.WireResult;
import net.fips.control.mmp.DeliveryRatios;
import net.fips.control.mmp.PeerReport;
import net.fips.control.mmp.ReceiverReports;
import net.fips.control.mmp.SmoothedRtt;

/**
 * The session-layer MMP instance of one established session (routing-session.md §6): builds the reports we send
 * from the data plane's live figures ({@link SessionStats}) and computes, from the peer's ReceiverReports about our
 * traffic, SRTT on the timestamp echo ({@link net.fips.control.mmp.SmoothedRtt}) and the delivery ratios, loss and
 * ETX and goodput ({@link net.fips.control.mmp.DeliveryRatios}), as the link layer does. Control thread; time is the
 * caller's.
 *
 * <p>The ReceiverReports we send carry the data plane's per-message receiver figures (jitter, OWD trend, loss
 * bursts, reorder and CE counts, {@link net.fips.control.mmp.ReceiverReports}); those of the peer about our traffic
 * are kept as reported ({@link net.fips.control.mmp.PeerReport}).
 */
public final class SessionMmp {
    private static final long NANOS_PER_MS = 1_000_000L;
    /** RTT samples above this are discarded (a timestamp from another key generation). */
    private static final long MAX_RTT_MS = 60_000;

    // what we last reported, to send only when something changed
    private long reportedMessagesIn = -1;
    private long reportedMessagesInBase;
    private long reportedBytesIn;
    private final ReceiverReports receiverReports = new ReceiverReports();
    private final PeerReport peerReport = new PeerReport();
    private long reportedPacketsOut = -1;
    private long srIntervalStartCounter;
    private long srIntervalStartTs;
    private long srIntervalStartBytes;
    private final DeliveryRatios delivery = new DeliveryRatios();
    private final SmoothedRtt rtt = new SmoothedRtt();
    private long reportsReceived;
    private long reportsIgnored;

    /**
     * The ReceiverReport body we send now, or null when nothing arrived since the last one.
     *
     * @param stats    the session's live figures
     * @param nowNanos the shared clock
     */
    public byte[] receiverReport(final SessionStats stats, final long nowNanos) {
        final long in = stats.messagesIn();
        if (in == reportedMessagesIn || in == 0) {
            return null;
        }
        final long intervalPackets = in - reportedMessagesInBase;
        final long intervalBytes = stats.messageBytesIn() - reportedBytesIn;
        reportedMessagesIn = in;
        reportedMessagesInBase = in;
        reportedBytesIn = stats.messageBytesIn();
        long echo = stats.peerTimestampMs();
        long dwellMs = (nowNanos - stats.peerTimestampNanos()) / NANOS_PER_MS;
        if (echo < 0) {
            echo = 0;
            dwellMs = 0;
        } else if (dwellMs < 0) {
            // The data plane stamped the message after this tick read the clock: it arrived during the tick.
            dwellMs = 0;
        } else if (dwellMs > 0xFFFF) {
            echo = 0;
            dwellMs = 0xFFFF;
        }
        final long highest = Math.max(0, stats.highestCounterIn());
        return receiverReports.next(stats.receiver(), highest, in, stats.messageBytesIn(), echo & 0xFFFF_FFFFL,
                (int) dwellMs, intervalPackets, intervalBytes).encodeSession();
    }

    /**
     * The SenderReport body we send now (mode full), or null when nothing was sent since the last one.
     */
    public byte[] senderReport(final SessionStats stats, final long nowNanos) {
        final long out = stats.packetsOut();
        if (out == reportedPacketsOut || out == 0) {
            return null;
        }
        final long counter = stats.sendCounter();
        final long ts = Math.max(0, (nowNanos - stats.generationStartNanos()) / NANOS_PER_MS);
        final long bytes = stats.bytesOut();
        if (counter < srIntervalStartCounter) {
            srIntervalStartCounter = 0;   // a rekey restarted the counter
        }
        final byte[] body = new MmpSenderReport(srIntervalStartCounter, counter, srIntervalStartTs & 0xFFFF_FFFFL,
                ts & 0xFFFF_FFFFL, (bytes - srIntervalStartBytes) & 0xFFFF_FFFFL, out, bytes).encodeSession();
        reportedPacketsOut = out;
        srIntervalStartCounter = counter;
        srIntervalStartTs = ts;
        srIntervalStartBytes = bytes;
        return body;
    }

    /**
     * A ReceiverReport from the peer about our traffic ({@code body} after the inner header).
     *
     * @param ours our own live figures (our timestamps for the RTT; our receiver state for the reverse ratio)
     */
    public void onReceiverReport(final byte[] body, final int off, final int len, final SessionStats ours,
                                 final long nowNanos) {
        final WireResult<MmpReceiverReport> r = MmpReceiverReport.decodeSession(body, off, len);
        if (!(r instanceof WireResult.Ok<MmpReceiverReport>(final MmpReceiverReport rr))) {
            reportsIgnored++;
            return;
        }
        if (!delivery.onReport(rr.highestCounter(), rr.cumulativePacketsRecv(), rr.cumulativeBytesRecv(),
                ours.messagesIn(), ours.highestCounterIn(), nowNanos)) {
            reportsIgnored++;   // stale: regressed or identical (§6.3)
            return;
        }
        reportsReceived++;
        peerReport.onReport(rr);
        if (rr.timestampEcho() != 0) {
            final long ourNowMs = (nowNanos - ours.generationStartNanos()) / NANOS_PER_MS;
            final long rttMs = ourNowMs - (rr.timestampEcho() + rr.dwellTime());
            if (rttMs > 0 && rttMs < MAX_RTT_MS) {
                rtt.sample(rttMs * 1000);
            }
        }
    }

    /** @return SRTT in ms, or null before the first sample */
    public Double srttMs() {
        return rtt.samples() == 0 ? null : rtt.srttMicros() / 1000.0;
    }

    /** @return smoothed goodput of our traffic in bytes per second, or null before two reports */
    public Double goodputBps() {
        return delivery.goodputBps();
    }

    /** @return the loss rate of our traffic (1 − forward delivery), or null before two reports */
    public Double lossRate() {
        return delivery.lossRate();
    }

    /** @return forward delivery ratio, or null */
    public Double deliveryRatioForward() {
        return delivery.forward();
    }

    /** @return reverse delivery ratio (our receiver's view), or null */
    public Double deliveryRatioReverse() {
        return delivery.reverse();
    }

    /** @return ETX = clamp(1/(df·dr), 1, 100), or null until both ratios are measured */
    public Double etx() {
        return delivery.etx();
    }

    /** @return the jitter, OWD, burst, reorder and CE figures of the peer's last accepted report, or null */
    public PeerReport.Figures peerReport() {
        return peerReport.snapshot();
    }

    /** @return ReceiverReports accepted */
    public long reportsReceived() {
        return reportsReceived;
    }

    /** @return ReceiverReports dropped as malformed or stale */
    public long reportsIgnored() {
        return reportsIgnored;
    }
}
