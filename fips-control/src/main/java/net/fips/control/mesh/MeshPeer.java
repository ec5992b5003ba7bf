package net.fips.control.mesh;

import net.fips.control.identity.PeerIdentity;

/** A direct peer as the routing layers need it. */
final class MeshPeer {
    final PeerIdentity identity;
    long linkId;
    int transportId;
    int linkMtu;
    double cost = Double.NaN;
    /** ETX from the link's ReceiverReports; the initial 1.0 until measured. */
    double etx = 1.0;
    /** SRTT in µs, or -1 before the first sample. */
    long srttMicros = -1;
    /** A link message arrived on the current link since its promotion. */
    boolean heard;
    /** The link stopped answering while we sent (fast failover): no next hop, no parent. */
    boolean suspect;

    MeshPeer(final PeerIdentity identity) {
        this.identity = identity;
    }
}
