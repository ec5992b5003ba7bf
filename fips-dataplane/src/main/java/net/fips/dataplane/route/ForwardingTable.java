package net.fips.dataplane.route;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * An immutable routing snapshot: everything {@link NextHop} needs to choose the next hop for a destination. The
 * control plane builds one whenever its tree, peer set, bloom filters, link costs or coordinate cache change, and
 * publishes it ({@code DataPlaneCommands.setForwardingTable}); data-plane workers read it concurrently without
 * locks. It is never modified after {@link Builder#build()}; only the shared cache entries' last-used times move.
 *
 * <p>Building one:
 * <pre>{@code
 * ForwardingTable t = ForwardingTable.builder(myAddr, myCoords)        // myCoords: self first, root last
 *         .peer(new ForwardingTable.Peer(peerAddr, linkId,
 *                 peerCoords,          // the peer's coordinate from its accepted TreeAnnounce, or null
 *                 filterBytes, 5,      // its inbound bloom filter (FilterAnnounce bytes) and hash_count, or null, 0
 *                 linkCost,            // MMP link cost (1.0 before measurements)
 *                 1280,                // link MTU (the transport's MTU for UDP)
 *                 true,                // can send (Connected or Stale)
 *                 ForwardingTable.TreeRole.PARENT))
 *         .cache(coordCache.view())
 *         .build();
 * }</pre>
 *
 * Peers are numbered in the order they were added; {@link NextHop} returns that index, and {@link #peer(int)},
 * {@link #linkId(int)} and {@link #linkMtu(int)} resolve it. Per-peer data is held in parallel arrays (addresses
 * as halves, coordinates as arrays, filters as {@code long[]}) behind an allocation-free address index.
 */
public final class ForwardingTable {
    /** A peer's place in our spanning tree (for route classes and display; routing uses coordinates). */
    public enum TreeRole {
        /** Our parent. */
        PARENT,
        /** Our child (its accepted TreeAnnounce names us as parent). */
        CHILD,
        /** Not a tree edge (a cross-link). */
        NONE
    }

    /**
     * One peer as the control plane sees it.
     *
     * @param addr            the peer's node address
     * @param linkId          the data-plane link to it
     * @param coords          its coordinate (self first), or null when it has no accepted TreeAnnounce
     * @param filterBits      its inbound bloom filter bytes (LSB-first bit order, as on the wire), or null
     * @param filterHashCount the hash_count it announced with the filter (ignored without a filter)
     * @param linkCost        link cost (lower is better; compared exactly)
     * @param linkMtu         link MTU, folded into forwarded datagrams' path_mtu
     * @param canSend         whether the link may carry traffic (the reference's Connected or Stale)
     * @param role            tree role
     */
    public record Peer(NodeAddr addr, long linkId, Coords coords, byte[] filterBits, int filterHashCount,
                       double linkCost, int linkMtu, boolean canSend, TreeRole role) {
        /** Checks the values; the filter is copied. */
        public Peer {
            Objects.requireNonNull(addr, "addr");
            Objects.requireNonNull(role, "role");
            if (coords != null && coords.isEmpty()) {
                throw new IllegalArgumentException("peer coordinates must be null or non-empty");
            }
            if (filterBits != null) {
                if (filterBits.length == 0) {
                    throw new IllegalArgumentException("empty bloom filter");
                }
                if (filterHashCount < 1 || filterHashCount > 255) {
                    throw new IllegalArgumentException("hash_count " + filterHashCount);
                }
                filterBits = filterBits.clone();
            }
            if (linkMtu < 1) {
                throw new IllegalArgumentException("link MTU " + linkMtu);
            }
        }

        /** A peer without a filter. */
        public Peer(final NodeAddr addr, final long linkId, final Coords coords, final double linkCost,
                    final int linkMtu, final boolean canSend, final TreeRole role) {
            this(addr, linkId, coords, null, 0, linkCost, linkMtu, canSend, role);
        }

        /** @return a copy of the filter bytes, or null */
        @Override
        public byte[] filterBits() {
            return filterBits == null ? null : filterBits.clone();
        }
    }

    /** @return a builder for a node at {@code self} with coordinate {@code selfCoords} (self first, non-empty) */
    public static Builder builder(final NodeAddr self, final Coords selfCoords) {
        return new Builder(self, selfCoords);
    }

    /** Collects peers and the cache view; {@link #build()} freezes them. Not thread-safe. */
    public static final class Builder {
        private final NodeAddr self;
        private final Coords selfCoords;
        private final List<Peer> peers = new ArrayList<>();
        private CoordCache.View cache = CoordCache.View.EMPTY;

        private Builder(final NodeAddr self, final Coords selfCoords) {
            this.self = Objects.requireNonNull(self, "self");
            if (selfCoords == null || selfCoords.isEmpty() || !selfCoords.addrs().getFirst().equals(self)) {
                throw new IllegalArgumentException("own coordinate must start with own address");
            }
            this.selfCoords = selfCoords;
        }

        /** Adds a peer (its index is the number of peers added before it). */
        public Builder peer(final Peer peer) {
            peers.add(Objects.requireNonNull(peer));
            return this;
        }

        /** Sets the coordinate-cache view (default: empty). */
        public Builder cache(final CoordCache.View view) {
            this.cache = Objects.requireNonNull(view);
            return this;
        }

        /** @return the table; throws IllegalArgumentException on a duplicate peer address */
        public ForwardingTable build() {
            return new ForwardingTable(this);
        }
    }

    final NodeAddr self;
    final long selfHi;
    final long selfLo;
    final Coords selfCoords;
    final long[] selfCoordHi;
    final long[] selfCoordLo;
    final CoordCache.View cache;
    final int peerCount;
    final Peer[] peers;
    final long[] peerHi;
    final long[] peerLo;
    final long[] linkIds;
    final long[][] coordHi;
    final long[][] coordLo;
    final long[][] filters;
    final long[] filterBitCount;
    final int[] hashCount;
    final double[] cost;
    final int[] mtu;
    final boolean[] canSend;
    final boolean anyFilter;
    private final AddrIndex index;

    private ForwardingTable(final Builder b) {
        self = b.self;
        selfHi = self.hi();
        selfLo = self.lo();
        selfCoords = b.selfCoords;
        selfCoordHi = TreeDistance.his(selfCoords);
        selfCoordLo = TreeDistance.los(selfCoords);
        cache = b.cache;
        final int n = b.peers.size();
        peerCount = n;
        peers = b.peers.toArray(new Peer[0]);
        peerHi = new long[n];
        peerLo = new long[n];
        linkIds = new long[n];
        coordHi = new long[n][];
        coordLo = new long[n][];
        filters = new long[n][];
        filterBitCount = new long[n];
        hashCount = new int[n];
        cost = new double[n];
        mtu = new int[n];
        canSend = new boolean[n];
        boolean filtered = false;
        for (int i = 0; i < n; i++) {
            final Peer p = peers[i];
            peerHi[i] = p.addr().hi();
            peerLo[i] = p.addr().lo();
            linkIds[i] = p.linkId();
            if (p.coords() != null) {
                coordHi[i] = TreeDistance.his(p.coords());
                coordLo[i] = TreeDistance.los(p.coords());
            }
            if (p.filterBits != null) {
                filters[i] = words(p.filterBits);
                filterBitCount[i] = 8L * p.filterBits.length;
                hashCount[i] = p.filterHashCount();
                filtered = true;
            }
            cost[i] = p.linkCost();
            mtu[i] = p.linkMtu();
            canSend[i] = p.canSend();
        }
        anyFilter = filtered;
        index = new AddrIndex(peerHi, peerLo, n);
        for (int i = 0; i < n; i++) {
            if (index.get(peerHi[i], peerLo[i]) != i) {
                throw new IllegalArgumentException("peer " + peers[i].addr() + " added twice");
            }
        }
    }

    /** Filter bytes (bit b in byte b/8 under mask 1 << b%8) packed into words: bit b in word b/64 at b%64. */
    private static long[] words(final byte[] bytes) {
        final long[] w = new long[(bytes.length + 7) / 8];
        for (int i = 0; i < bytes.length; i++) {
            w[i >>> 3] |= (bytes[i] & 0xFFL) << ((i & 7) * 8);
        }
        return w;
    }

    /** @return our own address */
    public NodeAddr self() {
        return self;
    }

    /** @return our own coordinate */
    public Coords selfCoords() {
        return selfCoords;
    }

    /** @return the coordinate-cache view */
    public CoordCache.View cache() {
        return cache;
    }

    /** @return the number of peers */
    public int peerCount() {
        return peerCount;
    }

    /** @return peer {@code i} as given to the builder */
    public Peer peer(final int i) {
        return peers[i];
    }

    /** @return the link to peer {@code i} */
    public long linkId(final int i) {
        return linkIds[i];
    }

    /** @return the link MTU of peer {@code i} */
    public int linkMtu(final int i) {
        return mtu[i];
    }

    /** @return the index of the peer at {@code (hi, lo)}, or -1; never allocates */
    public int peerIndex(final long hi, final long lo) {
        return index.get(hi, lo);
    }

    /** @return the index of the peer {@code addr}, or -1 */
    public int peerIndex(final NodeAddr addr) {
        return index.get(addr.hi(), addr.lo());
    }

    /** True when peer {@code i}'s filter has every probe bit of the address with base hashes (h1, h2) set. */
    boolean filterContains(final int i, final long h1, final long h2) {
        final long[] f = filters[i];
        if (f == null) {
            return false;
        }
        final long m = filterBitCount[i];
        final int k = hashCount[i];
        final boolean pow2 = (m & (m - 1)) == 0;
        for (int j = 0; j < k; j++) {
            // An unsigned remainder; for the usual power-of-two sizes just the low bits.
            final long bit = pow2 ? (h1 + j * h2) & (m - 1) : Long.remainderUnsigned(h1 + j * h2, m);
            if ((f[(int) (bit >>> 6)] & (1L << (bit & 63))) == 0) {
                return false;
            }
        }
        return true;
    }
}
