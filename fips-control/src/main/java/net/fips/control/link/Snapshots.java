package net.fips.control.link;

import java.util.HexFormat;

import net.fips.dataplane.LinkStats;
import net.fips.dataplane.transport.TransportAddr;
import net.fips.control.mmp.ReceiverFigures;

/** Builds {@link PeerSnapshot}s from the control thread's state. */
final class Snapshots {
    private static final long MS = 1_000_000L;

    private Snapshots() {
    }

    /**
     * @param s        the data plane's figures of its link, or null
     * @param restarts restarts detected of the peer
     * @param now      the control clock
     */
    static PeerSnapshot peer(final PeerLink p, final LinkStats s, final long restarts, final long now) {
        long lastRx = p.keyEpochStartNanos;
        if (s != null && s.lastAuthenticatedNanos() - lastRx > 0) {
            lastRx = s.lastAuthenticatedNanos();
        }
        return new PeerSnapshot(p.identity.npub(), p.nodeAddr.toString(), "connected",
                p.outbound ? "outbound" : "inbound", p.linkId, p.transportId, format(p.address),
                Integer.toUnsignedLong(p.ourIndex), Integer.toUnsignedLong(p.theirIndex), p.kBit,
                p.hasPending ? Integer.toUnsignedLong(p.pendingOurIndex) : -1, p.rekeyInProgress, p.draining,
                p.rekeys, (now - p.promotedNanos) / MS, (now - p.keyEpochEstablishedNanos) / MS,
                p.heartbeatSent ? (now - p.lastHeartbeatNanos) / MS : -1, (now - lastRx) / MS,
                s == null ? 0 : s.packetsIn(), s == null ? 0 : s.bytesIn(), s == null ? 0 : s.packetsOut(),
                s == null ? 0 : s.bytesOut(), s == null ? 0 : s.dropsIn(), s == null ? 0 : s.sendCounter(),
                s == null ? 0 : s.highestCounterIn(),
                p.mmp.rtt.samples() == 0 ? -1 : p.mmp.rtt.srttMicros(), s == null ? 0 : s.replayDrops(),
                s == null ? 0 : s.consecutiveDecryptFailures(), restarts,
                s == null ? 0 : Math.max(0, s.dropsIn() - s.replayDrops()), p.mmp.delivery.forward(),
                p.mmp.delivery.reverse(), p.mmp.delivery.etx(), p.mmp.delivery.goodputBps(),
                s == null ? null : ReceiverFigures.of(s.receiver(), s.packetsIn()),
                p.mmp.peerReport.snapshot());
    }

    static DialSnapshot dial(final OutboundHandshake ob, final long now) {
        return new DialSnapshot(ob.peer.npub(), ob.transportId, format(ob.address),
                Integer.toUnsignedLong(ob.ourIndex), (now - ob.createdNanos) / MS, ob.resends);
    }

    /**
     * {@code ip:port} or {@code [ipv6]:port}, as the reference prints addresses; an Ethernet MAC as
     * {@code aa:bb:cc:dd:ee:ff} even when its 6 bytes happen to be valid UTF-8 (the reference's rule would print
     * {@code 02:00:5e:00:00:0a} as control characters), i.e. whenever a 6-byte address is not printable ASCII.
     */
    static String format(final TransportAddr a) {
        if (a == null) {
            return "-";
        }
        if (a.isMacSized()) {
            for (final byte b : a.bytes()) {
                if (b < 0x20 || b > 0x7e) {
                    return HexFormat.ofDelimiter(":").formatHex(a.bytes());
                }
            }
        }
        return a.toString();
    }
}
