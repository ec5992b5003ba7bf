package net.fips.control.tree;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;

import net.fips.control.bloom.BloomConfig;
import net.fips.control.bloom.BloomRouting;
import net.fips.control.identity.NodeIdentity;
import net.fips.dataplane.wire.LinkMessageType;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.TreeAnnounce;
import net.fips.control.identity.TestIdentities;
import net.fips.testing.MessageBus;

/**
 * Test fixture: n nodes, each a {@link SpanningTree} plus {@link BloomRouting} wired as the node will wire them, over
 * the shared in-memory {@link MessageBus} with a manual clock. Messages travel encoded (so the codecs are exercised)
 * and are delivered FIFO and instantly by {@link #deliver()}; {@link #tick()} advances the clock by one second and
 * runs every node's tree tick then bloom tick, as the reference's 1 s tick does. Nodes are indexed in creation
 * order; {@link #sortedByAddr} makes index 0 the smallest address. Deterministic for a given seed.
 */
public final class TreeMesh {
    /** One control tick. */
    public static final long TICK = 1_000_000_000L;
    /** Unix time at {@code now == 0}. */
    public static final long BASE_UNIX_MILLIS = 1_780_000_000_000L;
    private static final int MAX_DELIVERIES = 5_000_000;

    /** A message in flight. */
    public record Msg(int from, int to, byte[] bytes) {
        /** @return true for a TreeAnnounce */
        public boolean isTree() {
            return (bytes[0] & 0xFF) == LinkMessageType.TREE_ANNOUNCE.code();
        }
    }

    /** One simulated node. */
    public final class Node {
        /** Index in the mesh. */
        public final int index;
        /** Its identity. */
        public final NodeIdentity identity;
        /** Its address. */
        public final NodeAddr addr;
        /** Its key for the verifier. */
        public final byte[] publicKey;
        /** Its spanning tree. */
        public SpanningTree tree;
        /** Its bloom state. */
        public BloomRouting bloom;
        /** TreeAnnounces it sent. */
        public int treeSent;
        /** FilterAnnounces it sent. */
        public int filterSent;
        /** Coordinate-cache invalidations requested. */
        public int invalidations;
        /** Wall-clock offset (ms) for restart scenarios. */
        long wallOffsetMillis;

        Node(final int index, final NodeIdentity identity) {
            this.index = index;
            this.identity = identity;
            this.addr = identity.nodeAddr();
            this.publicKey = identity.publicKey();
            build();
        }

        /** (Re)creates this node's state, as a process restart would; links must be re-added. */
        void build() {
            final TreeSigner signer = fakeCrypto ? fakeSigner(publicKey) : SchnorrTreeCrypto.signer(identity, random);
            final SignatureVerifier verifier = fakeCrypto ? TreeMesh::fakeVerify : SchnorrTreeCrypto.verifier();
            final WallClock wall = () -> BASE_UNIX_MILLIS + now / 1_000_000L + wallOffsetMillis;
            final Node self = this;
            final SpanningTree[] treeRef = new SpanningTree[1];
            final BloomRouting[] bloomRef = new BloomRouting[1];
            final TreeEffects effects = new TreeEffects() {
                @Override
                public boolean sendTreeAnnounce(final NodeAddr peer, final TreeAnnounce announce) {
                    self.treeSent++;
                    return enqueue(self, peer, announce.encode());
                }

                @Override
                public void markAllPeersForFilterUpdate() {
                    bloomRef[0].markAllUpdatesNeeded();
                }

                @Override
                public void markChangedFiltersOnly(final NodeAddr exclude) {
                    bloomRef[0].markChangedPeers(exclude);
                }

                @Override
                public void invalidateViaNode(final NodeAddr node) {
                    self.invalidations++;
                }

                @Override
                public void invalidateOtherRoots(final NodeAddr root) {
                    self.invalidations++;
                }
            };
            tree = new SpanningTree(addr, treeConfig, signer, verifier, wall, effects);
            treeRef[0] = tree;
            bloom = new BloomRouting(addr, bloomConfig, tree::isTreePeer, tree::parentOrNull, (peer, fa) -> {
                self.filterSent++;
                return enqueue(self, peer, fa.encode());
            }, wall.unixMillis(), false);
            bloomRef[0] = bloom;
        }

        @Override
        public String toString() {
            return "node" + index + "(" + addr.shortHex() + ")";
        }
    }

    private final boolean fakeCrypto;
    private final TreeConfig treeConfig;
    private final BloomConfig bloomConfig;
    private final Random random;
    private final List<Node> nodes = new ArrayList<>();
    private final Map<NodeAddr, Node> byAddr = new HashMap<>();
    private final Set<Long> links = new HashSet<>();
    private final MessageBus<Msg> bus = new MessageBus<>(MAX_DELIVERIES);
    private Predicate<Msg> dropFilter = m -> false;
    private long now;

    /**
     * @param n           number of nodes
     * @param seed        seed of identities and signing aux
     * @param fakeCrypto  true for a fast hash-based signer/verifier instead of BIP-340
     * @param treeConfig  tree tunables
     * @param bloomConfig bloom tunables
     */
    public TreeMesh(final int n, final long seed, final boolean fakeCrypto, final TreeConfig treeConfig,
            final BloomConfig bloomConfig) {
        this.fakeCrypto = fakeCrypto;
        this.treeConfig = treeConfig;
        this.bloomConfig = bloomConfig;
        this.random = new Random(seed);
        // a message on a link that went down while it was in flight is lost, as one the test drops
        bus.dropWhen(m -> !linked(m.from, m.to) || dropFilter.test(m));
        final List<NodeIdentity> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(TestIdentities.random(random));
        }
        for (int i = 0; i < n; i++) {
            final Node node = new Node(i, ids.get(i));
            nodes.add(node);
            byAddr.put(node.addr, node);
        }
    }

    /** A mesh with real signatures and default tunables. */
    public static TreeMesh real(final int n, final long seed) {
        return new TreeMesh(n, seed, false, TreeConfig.defaults(), BloomConfig.defaults());
    }

    /** A mesh with real signatures, default tunables, index 0 = smallest address. */
    public static TreeMesh realSorted(final int n, final long seed) {
        return real(n, seed).sortedByAddr();
    }

    /** Re-indexes nodes by ascending address (before any link exists). */
    public TreeMesh sortedByAddr() {
        if (!links.isEmpty()) {
            throw new IllegalStateException("sort before connecting");
        }
        nodes.sort(Comparator.comparing(x -> x.addr));
        final List<Node> re = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            final Node old = nodes.get(i);
            final Node fresh = new Node(i, old.identity);
            re.add(fresh);
            byAddr.put(fresh.addr, fresh);
        }
        nodes.clear();
        nodes.addAll(re);
        return this;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Fake crypto: sig = SHA-256(key ‖ bytes) ‖ SHA-256(bytes ‖ key)

    static TreeSigner fakeSigner(final byte[] key) {
        return bytes -> fakeSig(key, bytes);
    }

    static boolean fakeVerify(final byte[] key, final byte[] bytes, final byte[] sig) {
        return Arrays.equals(fakeSig(key, bytes), sig);
    }

    private static byte[] fakeSig(final byte[] key, final byte[] bytes) {
        try {
            final MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update(key);
            d.update(bytes);
            final byte[] a = d.digest();
            d.update(bytes);
            d.update(key);
            final byte[] b = d.digest();
            final byte[] out = Arrays.copyOf(a, 64);
            System.arraycopy(b, 0, out, 32, 32);
            return out;
        } catch (final NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ------------------------------------------------------------------------------------------------------------
    // Topology

    private static long key(final int a, final int b) {
        return ((long) Math.min(a, b) << 32) | Math.max(a, b);
    }

    /** @return true when i and j are linked */
    public boolean linked(final int i, final int j) {
        return links.contains(key(i, j));
    }

    /** Promotes a link between i and j on both sides (i first); messages are queued, not delivered. */
    public void connect(final int i, final int j) {
        if (i == j || !links.add(key(i, j))) {
            return;
        }
        promote(node(i), node(j));
        promote(node(j), node(i));
    }

    private void promote(final Node at, final Node peer) {
        at.tree.addPeer(peer.addr, peer.publicKey, now);
        at.bloom.addPeer(peer.addr);
    }

    /** Connects every edge, then delivers until quiet. */
    public TreeMesh connectAll(final int[][] edges) {
        for (final int[] e : edges) {
            connect(e[0], e[1]);
        }
        deliver();
        return this;
    }

    /** Tears the link down on both sides (as a dead timeout or Disconnect would); in-flight messages are lost. */
    public void disconnect(final int i, final int j) {
        if (!links.remove(key(i, j))) {
            return;
        }
        removePeer(node(i), node(j));
        removePeer(node(j), node(i));
    }

    private void removePeer(final Node at, final Node peer) {
        at.tree.removePeer(peer.addr, now);
        at.bloom.removePeer(peer.addr);
    }

    /** Removes node i from the mesh: all its links go down. */
    public void isolate(final int i) {
        for (int j = 0; j < nodes.size(); j++) {
            disconnect(i, j);
        }
    }

    /**
     * Restarts node i: its links go down, its state is rebuilt with the wall clock advanced by {@code offsetMillis}
     * (so a wall-clock-seeded sequence starts higher), and the same links come back.
     */
    public void restart(final int i, final long offsetMillis) {
        final List<Integer> peers = new ArrayList<>();
        for (int j = 0; j < nodes.size(); j++) {
            if (linked(i, j)) {
                peers.add(j);
            }
        }
        final Node n = node(i);
        n.wallOffsetMillis += offsetMillis;
        // The process dies: its peers see nothing yet (fast restart), they keep their state about it.
        for (final int j : peers) {
            links.remove(key(i, j));
        }
        n.build();
        for (final int j : peers) {
            links.add(key(i, j));
            // Only the restarted side promotes afresh; the others keep their peer record (re-promotion).
            promote(n, node(j));
            promote(node(j), n);
        }
    }

    /** Random connected graph: a random spanning tree plus extra random edges, {@code edges} in all. */
    public static int[][] randomEdges(final int n, final int edges, final long seed) {
        final Random r = new Random(seed);
        final Set<Long> seen = new LinkedHashSet<>();
        final List<int[]> out = new ArrayList<>();
        for (int i = 1; i < n; i++) {
            final int j = r.nextInt(i);
            seen.add(key(i, j));
            out.add(new int[] {i, j});
        }
        while (out.size() < edges) {
            final int a = r.nextInt(n);
            final int b = r.nextInt(n);
            if (a != b && seen.add(key(a, b))) {
                out.add(new int[] {a, b});
            }
        }
        return out.toArray(new int[0][]);
    }

    /** Chain 0-1-...-(n-1). */
    public static int[][] chain(final int n) {
        final int[][] e = new int[n - 1][];
        for (int i = 0; i + 1 < n; i++) {
            e[i] = new int[] {i, i + 1};
        }
        return e;
    }

    // ------------------------------------------------------------------------------------------------------------
    // Bus and clock

    private boolean enqueue(final Node from, final NodeAddr to, final byte[] bytes) {
        final Node dest = byAddr.get(to);
        if (dest == null || !linked(from.index, dest.index)) {
            return false;
        }
        bus.send(new Msg(from.index, dest.index, bytes));
        return true;
    }

    /** Drops every message matching {@code filter} at delivery (until replaced). */
    public void dropWhen(final Predicate<Msg> filter) {
        this.dropFilter = filter;
    }

    /** Delivers queued messages (and what they trigger) until the bus is empty. */
    public void deliver() {
        bus.drain(m -> {
            final Node to = node(m.to);
            final NodeAddr from = node(m.from).addr;
            if (m.isTree()) {
                to.tree.onTreeAnnounce(from, m.bytes, now);
            } else {
                to.bloom.onFilterAnnounce(from, m.bytes, now);
            }
        });
    }

    /** Advances one tick: every node's tree tick then bloom tick, then delivery. */
    public void tick() {
        now += TICK;
        for (final Node n : nodes) {
            n.tree.tick(now);
            n.bloom.tick(now);
        }
        deliver();
    }

    /** Runs {@code k} ticks. */
    public TreeMesh ticks(final int k) {
        for (int i = 0; i < k; i++) {
            tick();
        }
        return this;
    }

    /** Advances the clock without ticking. */
    public void advance(final long nanos) {
        now += nanos;
    }

    /** @return the clock */
    public long now() {
        return now;
    }

    /** @return node i */
    public Node node(final int i) {
        return nodes.get(i);
    }

    /** @return the node with that address */
    public Node node(final NodeAddr a) {
        return byAddr.get(a);
    }

    /** @return number of nodes */
    public int size() {
        return nodes.size();
    }

    /** @return total TreeAnnounces sent */
    public long treeSent() {
        return nodes.stream().mapToLong(x -> x.treeSent).sum();
    }

    /** @return total FilterAnnounces sent */
    public long filterSent() {
        return nodes.stream().mapToLong(x -> x.filterSent).sum();
    }

    /** Applies a link cost on both ends of i-j. */
    public void cost(final int i, final int j, final double cost) {
        node(i).tree.onLinkCost(node(j).addr, cost, now);
        node(j).tree.onLinkCost(node(i).addr, cost, now);
        deliver();
    }

    // ------------------------------------------------------------------------------------------------------------
    // Checks

    /** The connected components (by live links), each as a list of indices. */
    public List<List<Integer>> components() {
        final int n = nodes.size();
        final boolean[] seen = new boolean[n];
        final List<List<Integer>> out = new ArrayList<>();
        for (int s = 0; s < n; s++) {
            if (seen[s]) {
                continue;
            }
            final List<Integer> comp = new ArrayList<>();
            final ArrayDeque<Integer> q = new ArrayDeque<>(List.of(s));
            seen[s] = true;
            while (!q.isEmpty()) {
                final int x = q.poll();
                comp.add(x);
                for (int y = 0; y < n; y++) {
                    if (!seen[y] && linked(x, y)) {
                        seen[y] = true;
                        q.add(y);
                    }
                }
            }
            out.add(comp);
        }
        return out;
    }

    /**
     * The reference's {@code verify_tree_convergence}, per component: every node's root is the component's minimum
     * address, the root is root at depth 0, every other node has depth &gt; 0, a parent that is a linked peer, a
     * coordinate ending at the root, and depth = parent depth + 1; every coordinate is signed and sendable.
     */
    public void assertConverged() {
        for (final List<Integer> comp : components()) {
            final NodeAddr min = comp.stream().map(i -> node(i).addr).min(Comparator.naturalOrder()).orElseThrow();
            for (final int i : comp) {
                final SpanningTree t = node(i).tree;
                assertEquals(min, t.root(), () -> node(i) + " has the wrong root");
                assertTrue(t.isDeclarationSigned(), () -> node(i) + " is unsigned");
                assertEquals(min, t.coordAddrs().getLast(), () -> node(i) + " coordinate does not end at root");
                if (t.nodeAddr().equals(min)) {
                    assertTrue(t.isRoot());
                    assertEquals(0, t.depth());
                } else {
                    assertFalse(t.isRoot(), () -> node(i) + " claims root");
                    assertTrue(t.depth() > 0);
                    final Node parent = node(t.parent());
                    assertTrue(parent != null && linked(i, parent.index), () -> node(i) + " parent is not a peer");
                    assertEquals(parent.tree.depth() + 1, t.depth(), () -> node(i) + " depth != parent depth + 1");
                    assertEquals(parent.tree.coordAddrs(), t.coordAddrs().subList(1, t.coordAddrs().size()),
                            () -> node(i) + " coordinate is not parent's plus self");
                }
            }
        }
    }
}
