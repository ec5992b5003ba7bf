package net.fips.control.tree;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Random;

import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.CoordEntry;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.control.identity.TestIdentities;

/**
 * One {@link SpanningTree} under test with scripted peers: identities sorted by address (rank 0 is the smallest), the
 * tree's own identity chosen by rank, announces signed with the peers' real keys, and every effect recorded.
 */
final class TreeHarness {
    static final long MS = 1_000_000L;
    static final long S = 1_000_000_000L;

    record Sent(NodeAddr to, TreeAnnounce announce) {
    }

    final List<NodeIdentity> ids;
    final int selfRank;
    final SpanningTree tree;
    final List<Sent> sent = new ArrayList<>();
    final List<NodeAddr> markedChangedExcluding = new ArrayList<>();
    int markAll;
    int invalidateVia;
    int invalidateOtherRoots;
    long now = 10 * S;
    long wallMillis = 1_780_000_000_000L;
    boolean failSends;

    TreeHarness(final int n, final long seed, final int selfRank, final TreeConfig config) {
        final Random r = new Random(seed);
        final List<NodeIdentity> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            l.add(TestIdentities.random(r));
        }
        l.sort(Comparator.comparing(NodeIdentity::nodeAddr));
        this.ids = List.copyOf(l);
        this.selfRank = selfRank;
        final NodeIdentity me = ids.get(selfRank);
        this.tree = new SpanningTree(me.nodeAddr(), config, SchnorrTreeCrypto.signer(me, r),
                SchnorrTreeCrypto.verifier(), () -> wallMillis + now / MS, new TreeEffects() {
                    @Override
                    public boolean sendTreeAnnounce(final NodeAddr peer, final TreeAnnounce announce) {
                        if (failSends) {
                            return false;
                        }
                        sent.add(new Sent(peer, announce));
                        return true;
                    }

                    @Override
                    public void markAllPeersForFilterUpdate() {
                        markAll++;
                    }

                    @Override
                    public void markChangedFiltersOnly(final NodeAddr exclude) {
                        markedChangedExcluding.add(exclude);
                    }

                    @Override
                    public void invalidateViaNode(final NodeAddr node) {
                        invalidateVia++;
                    }

                    @Override
                    public void invalidateOtherRoots(final NodeAddr root) {
                        invalidateOtherRoots++;
                    }
                });
    }

    NodeAddr addr(final int rank) {
        return ids.get(rank).nodeAddr();
    }

    NodeAddr me() {
        return addr(selfRank);
    }

    void add(final int... ranks) {
        for (final int r : ranks) {
            tree.addPeer(addr(r), ids.get(r).publicKey(), now);
        }
    }

    /** A signed announce of peer {@code rank} whose path above itself is {@code up} (empty = root). */
    TreeAnnounce announce(final int rank, final long seq, final NodeAddr... up) {
        final NodeAddr self = addr(rank);
        final NodeAddr parent = up.length == 0 ? self : up[0];
        final long ts = 1_780_000_000L;
        final List<CoordEntry> path = new ArrayList<>();
        path.add(new CoordEntry(self, seq, ts));
        for (final NodeAddr a : up) {
            path.add(new CoordEntry(a, 1, ts));
        }
        final byte[] sig = ids.get(rank).sign(TreeAnnounce.signingBytes(self, parent, seq, ts), new byte[32]);
        return new TreeAnnounce(seq, ts, parent, path, sig);
    }

    TreeAnnounceOutcome receive(final int rank, final long seq, final NodeAddr... up) {
        return tree.onTreeAnnounce(addr(rank), announce(rank, seq, up), now);
    }

    /** Ranks to addresses. */
    NodeAddr[] path(final int... ranks) {
        return Arrays.stream(ranks).mapToObj(this::addr).toArray(NodeAddr[]::new);
    }

    List<NodeAddr> sentTo() {
        return sent.stream().map(Sent::to).toList();
    }

    void advance(final long nanos) {
        now += nanos;
    }
}
