package net.fips.control.link;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import net.fips.control.crypto.Schnorr;
import net.fips.dataplane.LinkStats;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.Disconnect;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.MmpReceiverReport;
import net.fips.dataplane.wire.MmpSenderReport;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.dataplane.wire.WireResult;

/**
 * The link messages this layer itself sends and consumes: our TreeAnnounce (as root until a spanning tree module
 * replaces it), our FilterAnnounce, link MMP reports, Heartbeat and Disconnect; validation and storage of the peer's
 * TreeAnnounce and FilterAnnounce (routing-session.md §1.3 steps 1-7, §2.4-§2.5, §6.2-§6.4).
 */
public final class Announces {
    private static final System.Logger LOG = System.getLogger(Announces.class.getName());
    private static final long MS = 1_000_000L;
    private static final long SECOND = 1_000_000_000L;
    /** Anti-poison cap on an inbound filter's false-positive rate. */
    private static final double MAX_INBOUND_FPR = 0.20;
    private static final long REPORT_FLOOR_COLD_NANOS = 200 * MS;
    private static final long REPORT_FLOOR_NANOS = SECOND;
    private static final long REPORT_CEILING_NANOS = 5 * SECOND;
    private static final int COLD_SAMPLES = 5;

    private final LinkConductor c;
    private TreeAnnounce ownTree;
    private BloomFilter ownFilter;
    private long filterSequence;

    Announces(final LinkConductor conductor, final long unixSeconds) {
        this.c = conductor;
        // Start-up state: self-root, sequence 1, signed at once (routing-session §1.1).
        this.ownTree = signRoot(1, unixSeconds);
        final BloomFilter f = BloomFilter.create();
        f.insert(c.ourAddr);
        this.ownFilter = f;
    }

    private TreeAnnounce signRoot(final long sequence, final long timestamp) {
        final byte[] aux = new byte[Schnorr.AUX_LENGTH];
        c.random.nextBytes(aux);
        final byte[] sig = c.identity.sign(TreeAnnounce.signingBytes(c.ourAddr, c.ourAddr, sequence, timestamp),
                aux);
        return new TreeAnnounce(sequence, timestamp, c.ourAddr,
                List.of(new CoordEntry(c.ourAddr, sequence, timestamp)), sig);
    }

    /** @return the TreeAnnounce we send to peers */
    public TreeAnnounce ownTreeAnnounce() {
        return ownTree;
    }

    /**
     * Replaces our declaration (the spanning-tree module's job) and queues it for every peer (control thread only).
     *
     * @param announce our new signed TreeAnnounce
     */
    public void setOwnTreeAnnounce(final TreeAnnounce announce) {
        this.ownTree = Objects.requireNonNull(announce, "announce");
        for (final PeerLink p : c.peers.values()) {
            p.treeAnnouncePending = true;
        }
    }

    /**
     * Replaces the filter we announce and queues it for every peer (control thread only).
     *
     * @param filter a 1024-byte filter
     */
    public void setOwnFilter(final BloomFilter filter) {
        this.ownFilter = filter.copy();
        for (final PeerLink p : c.peers.values()) {
            p.filterPending = true;
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Sending

    void onPromoted(final PeerLink peer) {
        final LinkListener l = c.listener();
        if (l != null) {
            l.onPeerUp(peer.identity, peer.linkId, peer.transportId, c.now);
            return;
        }
        // A new link starts with no limiter history: the TreeAnnounce goes out now, the filter on the next tick.
        peer.treeAnnounceSent = false;
        sendTreeAnnounce(peer);
        peer.filterPending = true;
        peer.filterSent = false;
    }

    private void sendTreeAnnounce(final PeerLink peer) {
        if (peer.treeAnnounceSent && c.now - peer.lastTreeAnnounceNanos < c.config.treeAnnounceMinIntervalNanos()) {
            peer.treeAnnouncePending = true;
            return;
        }
        c.dataPlane.sendLinkMessage(peer.linkId, ownTree.encode());
        peer.treeAnnounceSent = true;
        peer.lastTreeAnnounceNanos = c.now;
        peer.treeAnnouncePending = false;
        c.count(LinkCounter.TREE_ANNOUNCES_SENT);
    }

    int sendPendingTreeAnnounces() {
        int work = 0;
        for (final PeerLink peer : c.peers.values()) {
            if (peer.treeAnnouncePending) {
                sendTreeAnnounce(peer);
                work += peer.treeAnnouncePending ? 0 : 1;
            }
        }
        return work;
    }

    int sendPendingFilters() {
        int work = 0;
        for (final PeerLink peer : c.peers.values()) {
            if (!peer.filterPending) {
                continue;
            }
            if (peer.filterSent && c.now - peer.lastFilterNanos < c.config.filterDebounceNanos()) {
                continue;
            }
            // One node-wide sequence, incremented for every announce built for any peer.
            final FilterAnnounce fa = FilterAnnounce.v1(++filterSequence, ownFilter);
            c.dataPlane.sendLinkMessage(peer.linkId, fa.encode());
            peer.filterPending = false;
            peer.filterSent = true;
            peer.lastFilterNanos = c.now;
            c.count(LinkCounter.FILTER_ANNOUNCES_SENT);
            work++;
        }
        return work;
    }

    int sendMmpReports() {
        int work = 0;
        for (final PeerLink peer : c.peers.values()) {
            final LinkStats s = c.statsOf(peer);
            if (s == null) {
                continue;
            }
            final PeerLink.Mmp m = peer.mmp;
            final long tsNow = sessionTimestamp(peer);
            if (s.packetsOut() != m.srLastPacketsOut
                    && (!m.srSent || c.now - m.lastSrNanos >= reportInterval(m, 2))) {
                final long counter = s.sendCounter();
                final MmpSenderReport sr = new MmpSenderReport(m.srStartCounter, Math.max(0, counter - 1),
                        m.srStartTimestampMs, tsNow, u32(s.bytesOut() - m.srLastBytesOut), s.packetsOut(),
                        s.bytesOut());
                c.dataPlane.sendLinkMessage(peer.linkId, sr.encodeLink());
                m.srSent = true;
                m.lastSrNanos = c.now;
                m.srStartCounter = counter;
                m.srStartTimestampMs = tsNow;
                m.srLastPacketsOut = s.packetsOut();
                m.srLastBytesOut = s.bytesOut();
                m.senderReportsOut++;
                c.count(LinkCounter.MMP_REPORTS_SENT);
                work++;
            }
            if (s.packetsIn() != m.rrLastPacketsIn
                    && (!m.rrSent || c.now - m.lastRrNanos >= reportInterval(m, 1))) {
                long echo = 0;
                long dwell = 0;
                if (m.hasPeerTimestamp) {
                    final long dwellMs = (c.now - m.peerTimestampAtNanos) / MS;
                    if (dwellMs > 0xFFFF) {
                        dwell = 0xFFFF;
                    } else {
                        echo = m.peerTimestampMs;
                        dwell = dwellMs;
                    }
                }
                final MmpReceiverReport rr = new MmpReceiverReport(s.highestCounterIn(), s.packetsIn(), s.bytesIn(),
                        echo, (int) dwell, 0, 0, 0, 0, 0, 0, 0, u32(s.packetsIn() - m.rrLastPacketsIn),
                        u32(s.bytesIn() - m.rrLastBytesIn));
                c.dataPlane.sendLinkMessage(peer.linkId, rr.encodeLink());
                m.rrSent = true;
                m.lastRrNanos = c.now;
                m.rrLastPacketsIn = s.packetsIn();
                m.rrLastBytesIn = s.bytesIn();
                m.receiverReportsOut++;
                c.count(LinkCounter.MMP_REPORTS_SENT);
                work++;
            }
        }
        return work;
    }

    /** Sender reports every 2·SRTT, receiver reports every SRTT, within [floor, 5 s]; 200 ms before any SRTT. */
    private static long reportInterval(final PeerLink.Mmp m, final int srttMultiple) {
        if (m.srttSamples == 0) {
            return REPORT_FLOOR_COLD_NANOS;
        }
        final long floor = m.srttSamples <= COLD_SAMPLES ? REPORT_FLOOR_COLD_NANOS : REPORT_FLOOR_NANOS;
        final long want = m.srttMicros * 1000L * srttMultiple;
        return Math.min(REPORT_CEILING_NANOS, Math.max(floor, want));
    }

    private long sessionTimestamp(final PeerLink peer) {
        return ((c.now - peer.sessionStartNanos) / MS) & 0xFFFF_FFFFL;
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
        // The peer's frame timestamp, echoed in our next ReceiverReport.
        peer.mmp.hasPeerTimestamp = true;
        peer.mmp.peerTimestampMs = timestampMs & 0xFFFF_FFFFL;
        peer.mmp.peerTimestampAtNanos = c.now;
        final LinkMessageType type = LinkMessageType.fromCode(msg[0] & 0xFF);
        if (type == null) {
            forward(peer, msg);
            return;
        }
        switch (type) {
            case HEARTBEAT -> c.count(LinkCounter.HEARTBEATS_RECEIVED);
            case DISCONNECT -> onDisconnect(peer, msg);
            case TREE_ANNOUNCE -> {
                if (c.listener() != null) {
                    forward(peer, msg);
                } else {
                    onTreeAnnounce(peer, msg);
                }
            }
            case FILTER_ANNOUNCE -> {
                if (c.listener() != null) {
                    forward(peer, msg);
                } else {
                    onFilterAnnounce(peer, msg);
                }
            }
            case SENDER_REPORT -> onSenderReport(peer, msg);
            case RECEIVER_REPORT -> onReceiverReport(peer, msg);
            default -> forward(peer, msg);
        }
    }

    private void forward(final PeerLink peer, final byte[] msg) {
        c.count(LinkCounter.OTHER_LINK_MESSAGES);
        final LinkListener l = c.listener();
        if (l != null) {
            l.onLinkMessage(peer.identity, msg, c.now);
        }
    }

    private void onDisconnect(final PeerLink peer, final byte[] msg) {
        final WireResult<Disconnect> r = Disconnect.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<Disconnect>(final Disconnect d))) {
            return; // an empty body is ignored, as the reference
        }
        LOG.log(System.Logger.Level.INFO, "Peer {0} sent Disconnect ({1})", peer.identity.shortNpub(), d.reason());
        c.count(LinkCounter.DISCONNECTS_RECEIVED);
        c.removePeer(peer);
        c.scheduleReconnect(peer.nodeAddr);
    }

    private void onTreeAnnounce(final PeerLink peer, final byte[] msg) {
        final WireResult<TreeAnnounce> r = TreeAnnounce.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<TreeAnnounce>(final TreeAnnounce ta))) {
            invalidTree(peer, "undecodable");
            return;
        }
        if (!ta.nodeAddr().equals(peer.nodeAddr)) {
            invalidTree(peer, "declared by another node");
            return;
        }
        if (!Schnorr.verify(peer.identity.publicKey(), ta.signingDigest(), ta.signature())) {
            invalidTree(peer, "bad signature");
            return;
        }
        final Optional<TreeAnnounce.Violation> v = ta.semanticViolation();
        if (v.isPresent()) {
            invalidTree(peer, v.get().toString());
            return;
        }
        // Stored for display even when stale, as the reference.
        peer.peerTree = ta;
        if (peer.hasPeerTreeSequence && Long.compareUnsigned(ta.sequence(), peer.peerTreeSequence) <= 0) {
            c.count(LinkCounter.TREE_ANNOUNCES_STALE);
            return;
        }
        peer.hasPeerTreeSequence = true;
        peer.peerTreeSequence = ta.sequence();
        c.count(LinkCounter.TREE_ANNOUNCES_ACCEPTED);
        // Root-disagreement echo: the announcer believes in a larger root than ours, so tell it about ours.
        if (ta.root().compareTo(ownTree.root()) > 0) {
            sendTreeAnnounce(peer);
        }
    }

    private void invalidTree(final PeerLink peer, final String why) {
        c.count(LinkCounter.TREE_ANNOUNCES_INVALID);
        LOG.log(System.Logger.Level.DEBUG, "Dropped TreeAnnounce from {0}: {1}", peer.identity.shortNpub(), why);
    }

    private void onFilterAnnounce(final PeerLink peer, final byte[] msg) {
        final WireResult<FilterAnnounce> r = FilterAnnounce.decode(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<FilterAnnounce>(final FilterAnnounce fa))) {
            c.count(LinkCounter.FILTER_ANNOUNCES_INVALID);
            LOG.log(System.Logger.Level.DEBUG, "Dropped FilterAnnounce from {0}: {1}", peer.identity.shortNpub(),
                    r.errorOrNull());
            return;
        }
        if (Long.compareUnsigned(fa.sequence(), peer.peerFilterSequence) <= 0) {
            c.count(LinkCounter.FILTER_ANNOUNCES_STALE);
            return;
        }
        final BloomFilter f = fa.filter();
        if (Math.pow(f.fillRatio(), fa.hashCount()) > MAX_INBOUND_FPR) {
            c.count(LinkCounter.FILTER_ANNOUNCES_POISONED);
            return;
        }
        peer.peerFilter = fa;
        peer.peerFilterSequence = fa.sequence();
        c.count(LinkCounter.FILTER_ANNOUNCES_ACCEPTED);
    }

    private void onSenderReport(final PeerLink peer, final byte[] msg) {
        if (MmpSenderReport.decodeLink(msg, 0, msg.length).isOk()) {
            peer.mmp.senderReportsIn++;
            c.count(LinkCounter.MMP_REPORTS_RECEIVED);
        } else {
            c.count(LinkCounter.MMP_REPORTS_INVALID);
        }
    }

    private void onReceiverReport(final PeerLink peer, final byte[] msg) {
        final WireResult<MmpReceiverReport> r = MmpReceiverReport.decodeLink(msg, 0, msg.length);
        if (!(r instanceof WireResult.Ok<MmpReceiverReport>(final MmpReceiverReport rr))) {
            c.count(LinkCounter.MMP_REPORTS_INVALID);
            return;
        }
        peer.mmp.receiverReportsIn++;
        c.count(LinkCounter.MMP_REPORTS_RECEIVED);
        if (rr.timestampEcho() == 0) {
            return;
        }
        // RTT = our session time now - (the timestamp it echoes + how long the peer held it).
        final long rttMs = sessionTimestamp(peer) - (rr.timestampEcho() + rr.dwellTime());
        if (rttMs <= 0) {
            return;
        }
        final long sample = rttMs * 1000;
        final PeerLink.Mmp m = peer.mmp;
        if (m.srttSamples == 0) {
            m.srttMicros = sample;
            m.rttvarMicros = sample / 2;
        } else {
            m.rttvarMicros += (Math.abs(m.srttMicros - sample) - m.rttvarMicros) >> 2;
            m.srttMicros += (sample - m.srttMicros) >> 3;
        }
        m.srttSamples++;
        final LinkListener l = c.listener();
        if (l != null) {
            l.onRttSample(peer.identity, m.srttMicros, m.srttSamples, c.now);
        }
    }
}
