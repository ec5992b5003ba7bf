package net.fips.control.tree;

import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;

/**
 * One active peer as the spanning tree sees it: its key, its last accepted declaration with ancestry (which is also
 * its stored sequence), its last seen announce, its link cost once MMP has an RTT sample, and the per-peer announce
 * limiter. Mutable, confined to the control thread.
 */
final class TreePeer {
    final NodeAddr addr;
    byte[] publicKey;
    /** Last accepted declaration (the stored sequence); null until one is accepted. */
    TreeAnnounce declaration;
    /** Last valid announce seen, even when stale (display copy). */
    TreeAnnounce lastSeen;
    boolean hasCost;
    double cost = Double.NaN;
    /** The link stopped answering while we sent (fast failover): never a parent candidate until it answers. */
    boolean suspect;
    boolean announceSent;
    long lastAnnounceNanos;
    boolean announcePending;

    TreePeer(final NodeAddr addr, final byte[] publicKey) {
        this.addr = addr;
        this.publicKey = publicKey;
    }

    boolean containsInAncestry(final NodeAddr a) {
        for (final CoordEntry e : declaration.ancestry()) {
            if (e.nodeAddr().equals(a)) {
                return true;
            }
        }
        return false;
    }
}
