package net.fips.control.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.SessionStats;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.MmpReceiver;

/** Session MMP arithmetic on synthetic figures (routing-session §6.3): echo RTT, SRTT, delivery, loss, ETX. */
class SessionMmpTest {
    private static final long MS = 1_000_000L;

    /** Mutable figures standing in for the data plane's. */
    static final class Figures implements SessionStats {
        long messagesIn;
        long highestIn = -1;
        long peerTs = -1;
        long peerTsNanos;
        long genStart;
        long packetsOut;
        long sendCounter;

        @Override public long lastDataNanos() { return 0; }
        @Override public long sendCounter() { return sendCounter; }
        @Override public boolean keyEpoch() { return false; }
        @Override public long packetsOut() { return packetsOut; }
        @Override public long bytesOut() { return packetsOut * 100; }
        @Override public long packetsIn() { return messagesIn; }
        @Override public long bytesIn() { return messagesIn * 100; }
        @Override public int coordsWarmupRemaining() { return 0; }
        @Override public int pathMtu() { return 0xFFFF; }
        @Override public boolean draining() { return false; }
        @Override public long messagesIn() { return messagesIn; }
        @Override public long messageBytesIn() { return messagesIn * 120; }
        @Override public long highestCounterIn() { return highestIn; }
        @Override public long peerTimestampMs() { return peerTs; }
        @Override public long peerTimestampNanos() { return peerTsNanos; }
        @Override public long ceCount() { return 0; }
        @Override public long generationStartNanos() { return genStart; }
        @Override public long dropsIn() { return 0; }
        final MmpReceiver receiver = new MmpReceiver();
        @Override public MmpReceiver receiver() { return receiver; }
    }

    private static byte[] rr(final long highest, final long packets, final long echo, final int dwell) {
        return new MmpReceiverReport(highest, packets, packets * 100, echo, dwell, 0, 0, 0, 0, 0, 0, 0, 0, 0)
                .encodeSession();
    }

    @Test
    void rttLossAndEtxFromReceiverReports() {
        final SessionMmp m = new SessionMmp();
        final Figures ours = new Figures();
        ours.genStart = 0;
        assertNull(m.srttMs());
        assertNull(m.lossRate());
        // Our message stamped 1000 ms reached the peer, which answered 5 ms later; we read it at 1030 ms: RTT 25 ms.
        m.onReceiverReport(rr(99, 100, 1000, 5), 0, 66, ours, 1030 * MS);
        assertEquals(25.0, m.srttMs());
        assertNull(m.lossRate(), "one report: no interval yet");
        // 100 more counters, 90 arrived: 10 % loss. RTT 33 ms: srtt = 25 + (33-25)/8 = 26.
        ours.messagesIn = 10;
        ours.highestIn = 9;
        m.onReceiverReport(rr(199, 190, 2000, 2), 0, 66, ours, 2035 * MS);
        assertEquals(26.0, m.srttMs());
        assertEquals(0.1, m.lossRate(), 1e-9);
        assertNull(m.etx(), "the reverse ratio needs two of our own samples");
        ours.messagesIn = 20;
        ours.highestIn = 19;
        m.onReceiverReport(rr(299, 290, 0, 0), 0, 66, ours, 3000 * MS);
        assertEquals(0.0, m.lossRate(), 1e-9);
        assertEquals(1.0, m.deliveryRatioReverse());
        assertEquals(1.0, m.etx());
        // A stale (identical) report and a malformed one are ignored.
        m.onReceiverReport(rr(299, 290, 0, 0), 0, 66, ours, 3100 * MS);
        m.onReceiverReport(new byte[10], 0, 10, ours, 3200 * MS);
        assertEquals(3, m.reportsReceived());
        assertEquals(2, m.reportsIgnored());
    }

    @Test
    void reportsAreBuiltOnlyWhenThereIsSomethingNew() {
        final SessionMmp m = new SessionMmp();
        final Figures f = new Figures();
        assertNull(m.receiverReport(f, 0), "nothing received yet");
        f.messagesIn = 3;
        f.highestIn = 2;
        f.peerTs = 400;
        f.peerTsNanos = 10 * MS;
        final byte[] body = m.receiverReport(f, 17 * MS);
        assertNotNull(body);
        final MmpReceiverReport r = MmpReceiverReport.decodeSession(body, 0, body.length).valueOrNull();
        assertEquals(2, r.highestCounter());
        assertEquals(3, r.cumulativePacketsRecv());
        assertEquals(400, r.timestampEcho());
        assertEquals(7, r.dwellTime(), "ms between the last message and the report");
        assertNull(m.receiverReport(f, 20 * MS), "nothing new");
        assertNull(m.senderReport(f, 20 * MS), "nothing sent");
        f.packetsOut = 5;
        f.sendCounter = 5;
        assertNotNull(m.senderReport(f, 20 * MS));
        assertNull(m.senderReport(f, 21 * MS));
    }

    @Test
    void aMessageStampedAfterTheTicksClockGivesDwellZero() {
        // The data plane stamps each message with its own clock reading; the control tick reads the shared clock
        // once at its start, so a message that arrives during the tick is "newer" than the tick (caught by
        // tests/netns/chaos.sh: the control loop threw "dwell_time is u16" and skipped the rest of its tick).
        final SessionMmp m = new SessionMmp();
        final Figures f = new Figures();
        f.messagesIn = 1;
        f.highestIn = 0;
        f.peerTs = 400;
        f.peerTsNanos = 23 * MS;
        final byte[] body = m.receiverReport(f, 20 * MS);
        assertNotNull(body);
        final MmpReceiverReport r = MmpReceiverReport.decodeSession(body, 0, body.length).valueOrNull();
        assertEquals(400, r.timestampEcho(), "the echo stays: the message is as fresh as can be");
        assertEquals(0, r.dwellTime());
    }
}
