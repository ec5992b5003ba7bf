package net.fips.dataplane.engine;

import java.util.function.Consumer;

/**
 * A worker's end-to-end sessions keyed by the first 15 bytes of the remote node_addr (what an IPv6 destination
 * {@code fd ‖ node_addr[0..15]} names): open addressing over primitive keys, so a per-packet lookup neither boxes
 * nor allocates. Removal rebuilds the table (rare). Owned by one thread.
 */
final class SessionMap {
    private long[] hi = new long[16];
    private long[] lo = new long[16];
    private FspSession[] values = new FspSession[16];
    private int size;

    /** The key's low half: node_addr bytes 8-14, last byte zero. */
    static long prefixLo(final long nodeLo) {
        return nodeLo & ~0xFFL;
    }

    static int hash(final long prefixHi, final long prefixLo) {
        long h = prefixHi * 0x9E3779B97F4A7C15L ^ prefixLo;
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        return (int) (h ^ h >>> 29);
    }

    /** @return the session whose node_addr starts with this 15-byte prefix, or null */
    FspSession getByPrefix(final long prefixHi, final long prefixLo) {
        final FspSession[] values = this.values;
        final int mask = values.length - 1;
        int i = hash(prefixHi, prefixLo) & mask;
        FspSession v;
        while ((v = values[i]) != null) {
            if (hi[i] == prefixHi && lo[i] == prefixLo) {
                return v;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** @return the session with exactly this node_addr, or null */
    FspSession get(final long nodeHi, final long nodeLo) {
        final FspSession s = getByPrefix(nodeHi, prefixLo(nodeLo));
        return s != null && s.remoteLo == nodeLo ? s : null;
    }

    /** Adds or replaces (by prefix). @return the replaced session, or null */
    FspSession put(final FspSession s) {
        final FspSession old = remove(s.remoteHi, s.remoteLo);
        if ((size + 1) * 2 > values.length) {
            rebuild(values.length << 1, null);
        }
        insert(s);
        size++;
        return old;
    }

    /** @return the removed session, or null */
    FspSession remove(final long nodeHi, final long nodeLo) {
        final FspSession s = get(nodeHi, nodeLo);
        if (s != null) {
            rebuild(values.length, s);
            size--;
        }
        return s;
    }

    int size() {
        return size;
    }

    void forEach(final Consumer<FspSession> each) {
        for (final FspSession s : values) {
            if (s != null) {
                each.accept(s);
            }
        }
    }

    private void insert(final FspSession s) {
        final long ph = s.remoteHi;
        final long pl = prefixLo(s.remoteLo);
        final int mask = values.length - 1;
        int i = hash(ph, pl) & mask;
        while (values[i] != null) {
            i = (i + 1) & mask;
        }
        hi[i] = ph;
        lo[i] = pl;
        values[i] = s;
    }

    private void rebuild(final int capacity, final FspSession without) {
        final FspSession[] old = values;
        hi = new long[capacity];
        lo = new long[capacity];
        values = new FspSession[capacity];
        for (final FspSession s : old) {
            if (s != null && s != without) {
                insert(s);
            }
        }
    }
}
