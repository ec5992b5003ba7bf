package net.fips.dataplane.route;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.HashSet;
import java.util.Set;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * A converged test mesh: random addresses, a spanning tree rooted at the smallest address (BFS, so depth is
 * minimal; ties to the smaller parent), each node's coordinate, and the steady-state bloom filters of
 * routing-session.md §2.3 (towards a tree peer: our side of that tree edge; towards a non-tree peer: the whole
 * tree). Builds each node's {@link ForwardingTable}.
 */
final class Mesh {
    final int n;
    final NodeAddr[] addr;
    final List<List<Integer>> adj = new ArrayList<>();
    final int[] parent;
    final Coords[] coords;
    final List<int[]> edges = new ArrayList<>();

    Mesh(final int n, final List<int[]> edges, final long seed) {
        this.n = n;
        final Random rnd = new Random(seed);
        addr = new NodeAddr[n];
        for (int i = 0; i < n; i++) {
            addr[i] = NodeAddr.of(rnd.nextLong(), rnd.nextLong());
            adj.add(new ArrayList<>());
        }
        for (final int[] e : edges) {
            adj.get(e[0]).add(e[1]);
            adj.get(e[1]).add(e[0]);
            this.edges.add(e);
        }
        parent = new int[n];
        coords = new Coords[n];
        Arrays.fill(parent, -2);
        // One tree per connected component, rooted at its smallest address.
        for (int start = 0; start < n; start++) {
            if (parent[start] != -2) {
                continue;
            }
            final List<Integer> comp = component(start);
            int root = comp.getFirst();
            for (final int v : comp) {
                if (addr[v].compareTo(addr[root]) < 0) {
                    root = v;
                }
            }
            bfs(root);
        }
    }

    private List<Integer> component(final int start) {
        final boolean[] seen = new boolean[n];
        final List<Integer> out = new ArrayList<>();
        final ArrayDeque<Integer> q = new ArrayDeque<>(List.of(start));
        seen[start] = true;
        while (!q.isEmpty()) {
            final int u = q.poll();
            out.add(u);
            for (final int v : adj.get(u)) {
                if (!seen[v]) {
                    seen[v] = true;
                    q.add(v);
                }
            }
        }
        return out;
    }

    private void bfs(final int root) {
        final int[] depth = new int[n];
        Arrays.fill(depth, -1);
        depth[root] = 0;
        parent[root] = -1;
        coords[root] = Coords.of(addr[root]);
        List<Integer> level = List.of(root);
        while (!level.isEmpty()) {
            final List<Integer> next = new ArrayList<>();
            for (final int u : level) {
                for (final int v : adj.get(u)) {
                    if (depth[v] == -1) {
                        depth[v] = depth[u] + 1;
                        parent[v] = u;
                        next.add(v);
                    } else if (depth[v] == depth[u] + 1 && addr[u].compareTo(addr[parent[v]]) < 0) {
                        parent[v] = u;
                    }
                }
            }
            for (final int v : next) {
                final List<NodeAddr> c = new ArrayList<>();
                c.add(addr[v]);
                c.addAll(coords[parent[v]].addrs());
                coords[v] = new Coords(c);
            }
            level = next;
        }
    }

    boolean treeEdge(final int u, final int v) {
        return parent[u] == v || parent[v] == u;
    }

    /** Nodes on u's side of tree edge (u, v). */
    private List<Integer> side(final int u, final int v) {
        final List<Integer> out = new ArrayList<>();
        final ArrayDeque<int[]> q = new ArrayDeque<>();
        q.add(new int[] {u, v});
        while (!q.isEmpty()) {
            final int[] e = q.poll();
            out.add(e[0]);
            for (final int w : adj.get(e[0])) {
                if (w != e[1] && treeEdge(e[0], w)) {
                    q.add(new int[] {w, e[0]});
                }
            }
        }
        return out;
    }

    /** The filter peer {@code p} sends to {@code u} in steady state. */
    byte[] filter(final int p, final int u) {
        final BloomFilter f = BloomFilter.create();
        if (treeEdge(p, u)) {
            for (final int w : side(p, u)) {
                f.insert(addr[w]);
            }
        } else {
            for (final int w : component(p)) {
                f.insert(addr[w]);
            }
        }
        return f.toBytes();
    }

    ForwardingTable.TreeRole role(final int u, final int v) {
        return parent[u] == v ? ForwardingTable.TreeRole.PARENT
                : parent[v] == u ? ForwardingTable.TreeRole.CHILD : ForwardingTable.TreeRole.NONE;
    }

    /** Node u's table: every peer with coordinates and filter, cost 1, MTU 1280, linkId = peer's node number. */
    ForwardingTable table(final int u, final CoordCache.View cache) {
        final ForwardingTable.Builder b = ForwardingTable.builder(addr[u], coords[u]).cache(cache);
        for (final int v : adj.get(u)) {
            b.peer(new ForwardingTable.Peer(addr[v], v, coords[v], filter(v, u), BloomFilter.DEFAULT_HASH_COUNT,
                    1.0, 1280, true, role(u, v)));
        }
        return b.build();
    }

    /** A cache holding every node's coordinate. */
    CoordCache fullCache(final long now) {
        final CoordCache c = new CoordCache();
        for (int i = 0; i < n; i++) {
            c.insert(addr[i], coords[i], now);
        }
        return c;
    }

    /** A random connected graph: a random spanning tree plus extra random edges, no duplicates. */
    static List<int[]> randomEdges(final int n, final int count, final long seed) {
        final Random rnd = new Random(seed);
        final List<int[]> out = new ArrayList<>();
        final Set<Long> seen = new HashSet<>();
        for (int i = 1; i < n; i++) {
            final int j = rnd.nextInt(i);
            out.add(new int[] {i, j});
            seen.add((long) Math.min(i, j) * n + Math.max(i, j));
        }
        while (out.size() < count) {
            final int i = rnd.nextInt(n);
            final int j = rnd.nextInt(n);
            if (i != j && seen.add((long) Math.min(i, j) * n + Math.max(i, j))) {
                out.add(new int[] {i, j});
            }
        }
        return out;
    }

    static List<int[]> chain(final int n) {
        final List<int[]> out = new ArrayList<>();
        for (int i = 1; i < n; i++) {
            out.add(new int[] {i - 1, i});
        }
        return out;
    }

    int index(final NodeAddr a) {
        for (int i = 0; i < n; i++) {
            if (addr[i].equals(a)) {
                return i;
            }
        }
        return -1;
    }
}
