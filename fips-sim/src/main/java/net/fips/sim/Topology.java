package net.fips.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

/**
 * An undirected simple graph over nodes {@code 0..n-1}: the simulated mesh's links. Generators are deterministic
 * for a given {@link Random}.
 */
public final class Topology {
    private final int n;
    private final List<int[]> edges = new ArrayList<>();
    private final Set<Long> edgeSet = new HashSet<>();

    /** @param n node count (at least 1) */
    public Topology(final int n) {
        if (n < 1) {
            throw new IllegalArgumentException("need at least one node");
        }
        this.n = n;
    }

    /** @return the node count */
    public int nodes() {
        return n;
    }

    /** @return the edges, each {a, b} with a &lt; b, in insertion order */
    public List<int[]> edges() {
        return edges;
    }

    /** @return true when a and b are joined */
    public boolean hasEdge(final int a, final int b) {
        return edgeSet.contains(key(a, b));
    }

    /**
     * Joins a and b.
     *
     * @return false when the edge exists already or a == b
     */
    public boolean addEdge(final int a, final int b) {
        if (a == b || a < 0 || b < 0 || a >= n || b >= n || !edgeSet.add(key(a, b))) {
            return false;
        }
        edges.add(new int[] {Math.min(a, b), Math.max(a, b)});
        return true;
    }

    private static long key(final int a, final int b) {
        return ((long) Math.min(a, b) << 32) | Math.max(a, b);
    }

    /** @return neighbours of every node */
    public int[][] adjacency() {
        final int[] deg = new int[n];
        for (final int[] e : edges) {
            deg[e[0]]++;
            deg[e[1]]++;
        }
        final int[][] adj = new int[n][];
        for (int i = 0; i < n; i++) {
            adj[i] = new int[deg[i]];
        }
        final int[] fill = new int[n];
        for (final int[] e : edges) {
            adj[e[0]][fill[e[0]]++] = e[1];
            adj[e[1]][fill[e[1]]++] = e[0];
        }
        return adj;
    }

    /**
     * Hop counts from {@code src} to every node (breadth-first search), -1 where unreachable.
     *
     * @param adj the adjacency of this graph
     */
    public static int[] hops(final int[][] adj, final int src) {
        final int[] dist = new int[adj.length];
        Arrays.fill(dist, -1);
        final ArrayDeque<Integer> q = new ArrayDeque<>();
        dist[src] = 0;
        q.add(src);
        while (!q.isEmpty()) {
            final int u = q.poll();
            for (final int v : adj[u]) {
                if (dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    q.add(v);
                }
            }
        }
        return dist;
    }

    /** @return the connected component id of each node */
    public int[] components() {
        final int[][] adj = adjacency();
        final int[] comp = new int[n];
        Arrays.fill(comp, -1);
        int c = 0;
        for (int i = 0; i < n; i++) {
            if (comp[i] >= 0) {
                continue;
            }
            for (int j = 0, d[] = hops(adj, i); j < n; j++) {
                if (d[j] >= 0) {
                    comp[j] = c;
                }
            }
            c++;
        }
        return comp;
    }

    /**
     * A connected random graph: a random spanning tree (each node joins a uniformly chosen earlier node of a random
     * permutation), then random extra edges until {@code edgeCount} edges exist.
     *
     * @param n         nodes
     * @param edgeCount wanted edges, at least n-1 and at most n(n-1)/2
     * @param random    the source of randomness
     */
    public static Topology randomConnected(final int n, final int edgeCount, final Random random) {
        final long max = (long) n * (n - 1) / 2;
        if (edgeCount < n - 1 || edgeCount > max) {
            throw new IllegalArgumentException("edges must be in [" + (n - 1) + ", " + max + "] for " + n + " nodes");
        }
        final Topology t = new Topology(n);
        final int[] perm = new int[n];
        for (int i = 0; i < n; i++) {
            perm[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            final int j = random.nextInt(i + 1);
            final int x = perm[i];
            perm[i] = perm[j];
            perm[j] = x;
        }
        for (int i = 1; i < n; i++) {
            t.addEdge(perm[i], perm[random.nextInt(i)]);
        }
        while (t.edges.size() < edgeCount) {
            t.addEdge(random.nextInt(n), random.nextInt(n));
        }
        return t;
    }

    /** A connected random graph of average degree about {@code degree} (edges = round(n·degree/2)). */
    public static Topology randomWithDegree(final int n, final double degree, final Random random) {
        final long max = (long) n * (n - 1) / 2;
        final int edges = (int) Math.max(n - 1, Math.min(max, Math.round(n * degree / 2)));
        return randomConnected(n, edges, random);
    }

    /** 0-1-2-...-(n-1). */
    public static Topology chain(final int n) {
        final Topology t = new Topology(n);
        for (int i = 1; i < n; i++) {
            t.addEdge(i - 1, i);
        }
        return t;
    }

    /** A chain closed into a ring (n &gt;= 3). */
    public static Topology ring(final int n) {
        final Topology t = chain(n);
        t.addEdge(n - 1, 0);
        return t;
    }

    /** Node 0 joined to every other node. */
    public static Topology star(final int n) {
        final Topology t = new Topology(n);
        for (int i = 1; i < n; i++) {
            t.addEdge(0, i);
        }
        return t;
    }
}
