package net.fips.dataplane.engine;

import java.util.function.Consumer;

/**
 * A worker's own links by link id: a mutable open-addressing map with primitive keys, so the per-packet lookup
 * neither boxes nor allocates. Owned by one thread.
 */
final class LinkMap {
    private long[] keys = new long[16];
    private Link[] values = new Link[16];
    private int size;

    /** @return the link, or null */
    Link get(final long linkId) {
        final long[] keys = this.keys;
        final Link[] values = this.values;
        final int mask = keys.length - 1;
        int i = hash(linkId) & mask;
        Link v;
        while ((v = values[i]) != null) {
            if (keys[i] == linkId) {
                return v;
            }
            i = (i + 1) & mask;
        }
        return null;
    }

    /** Adds or replaces. */
    void put(final long linkId, final Link link) {
        if ((size + 1) * 2 > keys.length) {
            resize(keys.length << 1);
        }
        if (insert(keys, values, linkId, link)) {
            size++;
        }
    }

    /** @return the removed link, or null */
    Link remove(final long linkId) {
        final Link old = get(linkId);
        if (old != null) {
            // Rebuild rather than shift the probe chain: removal is rare (link teardown).
            final long[] k = new long[keys.length];
            final Link[] v = new Link[keys.length];
            for (int i = 0; i < keys.length; i++) {
                if (values[i] != null && keys[i] != linkId) {
                    insert(k, v, keys[i], values[i]);
                }
            }
            keys = k;
            values = v;
            size--;
        }
        return old;
    }

    /** @return links held */
    int size() {
        return size;
    }

    /** Visits every link (off the packet path). */
    void forEach(final Consumer<Link> action) {
        for (final Link l : values) {
            if (l != null) {
                action.accept(l);
            }
        }
    }

    private void resize(final int capacity) {
        final long[] k = new long[capacity];
        final Link[] v = new Link[capacity];
        for (int i = 0; i < keys.length; i++) {
            if (values[i] != null) {
                insert(k, v, keys[i], values[i]);
            }
        }
        keys = k;
        values = v;
    }

    /** @return true if the key was new */
    private static boolean insert(final long[] keys, final Link[] values, final long key, final Link value) {
        final int mask = keys.length - 1;
        int i = hash(key) & mask;
        while (values[i] != null) {
            if (keys[i] == key) {
                values[i] = value;
                return false;
            }
            i = (i + 1) & mask;
        }
        keys[i] = key;
        values[i] = value;
        return true;
    }

    private static int hash(final long key) {
        final long h = key * 0x9E37_79B9_7F4A_7C15L;
        return (int) (h ^ (h >>> 32));
    }
}
