package net.fips.dataplane.route;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.Coords;
import net.fips.dataplane.wire.NodeAddr;

/**
 * The coordinate cache (routing-session.md §4.6): node address → address-only coordinate, with creation time,
 * last use, expiry and an optional path MTU. Expiry is lazy ({@code now > expires_at}, where {@code expires_at =
 * last_used + ttl}: every write and every touch sets both); when full, an insert of a new address evicts an
 * expired entry if there is one, else the entry used least recently.
 *
 * <p>Threading: the cache is mutable and has one writer, the control thread, which calls every method here. Data
 * plane threads read an immutable {@link View} ({@link #view()}) published inside a {@link ForwardingTable}. The
 * {@link Entry} objects are shared between the cache and its views: a routing lookup in a view refreshes the
 * entry's last-used time with an opaque store (no lock, no allocation), and the owner sees it when it expires or
 * evicts entries, so touches on the data path keep entries alive exactly as the reference's {@code get_and_touch}
 * does (to within {@link View#TOUCH_GRANULARITY_NANOS}). A view does not see inserts or removals made after it was
 * taken; the control plane publishes a new table (with a new view) after changing the cache.
 *
 * <p>Times are nanoseconds from the injected clock the caller passes in; only differences are used.
 */
public final class CoordCache {
    /** The reference's capacity. */
    public static final int DEFAULT_CAPACITY = 50_000;
    /** The reference's TTL, 300 s. */
    public static final long DEFAULT_TTL_NANOS = TimeUnit.SECONDS.toNanos(300);

    private final int capacity;
    private final long ttlNanos;
    private final Map<NodeAddr, Entry> entries = new LinkedHashMap<>();
    private View view;

    /** A cache with the reference's capacity (50 000) and TTL (300 s). */
    public CoordCache() {
        this(DEFAULT_CAPACITY, DEFAULT_TTL_NANOS);
    }

    /**
     * @param capacity most entries held (at least 1)
     * @param ttlNanos time an entry stays valid after its last write or touch (positive)
     */
    public CoordCache(final int capacity, final long ttlNanos) {
        if (capacity < 1 || ttlNanos <= 0) {
            throw new IllegalArgumentException("capacity " + capacity + ", ttl " + ttlNanos);
        }
        this.capacity = capacity;
        this.ttlNanos = ttlNanos;
    }

    /** @return the capacity */
    public int capacity() {
        return capacity;
    }

    /** @return the TTL in nanoseconds */
    public long ttlNanos() {
        return ttlNanos;
    }

    /** Inserts or overwrites {@code addr → coords}, resetting its TTL; an existing path MTU is kept. */
    public void insert(final NodeAddr addr, final Coords coords, final long nowNanos) {
        insert(addr, coords, 0, nowNanos);
    }

    /**
     * Inserts or overwrites {@code addr → coords}, resetting its TTL.
     *
     * @param pathMtu the path MTU learned with the coordinates (a LookupResponse); 0 or negative: none (an existing
     *                value is kept)
     */
    public void insert(final NodeAddr addr, final Coords coords, final int pathMtu, final long nowNanos) {
        Objects.requireNonNull(addr, "addr");
        if (coords == null || coords.isEmpty()) {
            throw new IllegalArgumentException("cached coordinates must not be empty");
        }
        final Entry old = entries.get(addr);
        if (old != null) {
            final int mtu = pathMtu > 0 ? Math.min(pathMtu, 0xFFFF) : old.pathMtu;
            if (old.coords.equals(coords) && mtu == old.pathMtu) {
                old.storeLastUsed(nowNanos);
                return;
            }
            entries.put(addr, new Entry(addr, coords, old.createdNanos, nowNanos, mtu, ttlNanos, old.bloomH1,
                    old.bloomH2));
            view = null;
            return;
        }
        if (entries.size() >= capacity) {
            evictOne(nowNanos);
        }
        final long[] h = BloomFilter.baseHashes(addr.toBytes());
        entries.put(addr, new Entry(addr, coords, nowNanos, nowNanos, pathMtu > 0 ? Math.min(pathMtu, 0xFFFF) : 0,
                ttlNanos, h[0], h[1]));
        view = null;
    }

    private void evictOne(final long now) {
        Entry victim = null;
        for (final Entry e : entries.values()) {
            if (e.expired(now)) {
                victim = e;
                break;
            }
            if (victim == null || now - e.lastUsed() > now - victim.lastUsed()) {
                victim = e;
            }
        }
        if (victim != null) {
            entries.remove(victim.addr);
            view = null;
        }
    }

    /** Plain lookup: the coordinates, or null if absent or expired. Does not refresh the TTL. */
    public Coords get(final NodeAddr addr, final long nowNanos) {
        final Entry e = entries.get(addr);
        return e == null || e.expired(nowNanos) ? null : e.coords;
    }

    /** @return the unexpired entry for {@code addr}, or null; does not refresh the TTL */
    public Entry entry(final NodeAddr addr, final long nowNanos) {
        final Entry e = entries.get(addr);
        return e == null || e.expired(nowNanos) ? null : e;
    }

    /**
     * Lookup that refreshes the TTL to {@code now + ttl}, as routing does; an expired entry is removed and null is
     * returned.
     */
    public Coords getAndTouch(final NodeAddr addr, final long nowNanos) {
        final Entry e = entries.get(addr);
        if (e == null) {
            return null;
        }
        if (e.expired(nowNanos)) {
            entries.remove(addr);
            view = null;
            return null;
        }
        e.storeLastUsed(nowNanos);
        return e.coords;
    }

    /** Removes {@code addr}. @return true if it was present */
    public boolean remove(final NodeAddr addr) {
        final boolean removed = entries.remove(addr) != null;
        if (removed) {
            view = null;
        }
        return removed;
    }

    /** Drops every entry whose coordinate contains {@code node} (self position included). @return how many */
    public int invalidateVia(final NodeAddr node) {
        return removeIf(e -> TreeDistance.contains(e.coordHi, e.coordLo, e.coordHi.length, node.hi(), node.lo()));
    }

    /** Drops every entry whose root is not {@code root}. @return how many */
    public int invalidateOtherRoots(final NodeAddr root) {
        return removeIf(e -> !e.coords.root().equals(root));
    }

    /** Drops everything. */
    public void clear() {
        if (!entries.isEmpty()) {
            entries.clear();
            view = null;
        }
    }

    private int removeIf(final Predicate<Entry> p) {
        int n = 0;
        for (final Iterator<Entry> it = entries.values().iterator(); it.hasNext(); ) {
            if (p.test(it.next())) {
                it.remove();
                n++;
            }
        }
        if (n > 0) {
            view = null;
        }
        return n;
    }

    /** @return entries held, expired ones not yet removed included */
    public int size() {
        return entries.size();
    }

    /**
     * The unexpired entries for the {@code show_cache} control command, sorted by address.
     */
    public List<Listing> entries(final long nowNanos) {
        final List<Listing> out = new ArrayList<>();
        for (final Entry e : entries.values()) {
            if (!e.expired(nowNanos)) {
                out.add(new Listing(e.addr, e.coords, nowNanos - e.createdNanos, e.lastUsed() + ttlNanos - nowNanos,
                        e.pathMtu));
            }
        }
        out.sort(Comparator.comparing(Listing::addr));
        return out;
    }

    /**
     * The immutable view for data-plane readers: the entries held now (expired ones included; lookups check the
     * expiry). Taken again only after a structural change, so calling it for every publication is cheap.
     */
    public View view() {
        View v = view;
        if (v == null) {
            v = new View(entries.values().toArray(new Entry[0]));
            view = v;
        }
        return v;
    }

    /**
     * One row of {@link #entries(long)}.
     *
     * @param addr         the node
     * @param coords       its coordinate, self first
     * @param ageNanos     time since the entry was created
     * @param ttlLeftNanos time until it expires
     * @param pathMtu      the cached path MTU, 0 if none
     */
    public record Listing(NodeAddr addr, Coords coords, long ageNanos, long ttlLeftNanos, int pathMtu) {
    }

    /**
     * A cache entry. Immutable except for its last-used time, which any thread may refresh through a view. The
     * coordinate is also held as arrays of address halves, and the two bloom base hashes of the address
     * (SHA-256, {@link BloomFilter#baseHashes}) are computed once, so routing needs neither allocation nor hashing.
     */
    public static final class Entry {
        private static final VarHandle LAST_USED;

        static {
            try {
                LAST_USED = MethodHandles.lookup().findVarHandle(Entry.class, "lastUsed", long.class);
            } catch (final ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        final NodeAddr addr;
        final Coords coords;
        final long[] coordHi;
        final long[] coordLo;
        final long createdNanos;
        final int pathMtu;
        final long ttlNanos;
        final long bloomH1;
        final long bloomH2;
        @SuppressWarnings("unused")
        private long lastUsed;

        Entry(final NodeAddr addr, final Coords coords, final long created, final long lastUsed, final int pathMtu,
              final long ttlNanos, final long bloomH1, final long bloomH2) {
            this.addr = addr;
            this.coords = coords;
            this.coordHi = TreeDistance.his(coords);
            this.coordLo = TreeDistance.los(coords);
            this.createdNanos = created;
            this.pathMtu = pathMtu;
            this.ttlNanos = ttlNanos;
            this.bloomH1 = bloomH1;
            this.bloomH2 = bloomH2;
            this.lastUsed = lastUsed;
        }

        /** @return the node */
        public NodeAddr addr() {
            return addr;
        }

        /** @return its coordinate, self first */
        public Coords coords() {
            return coords;
        }

        /** @return the cached path MTU, 0 if none */
        public int pathMtu() {
            return pathMtu;
        }

        /** @return when the entry was created (nanos) */
        public long createdNanos() {
            return createdNanos;
        }

        /** @return the last write or touch (nanos), as seen now by this thread */
        public long lastUsed() {
            return (long) LAST_USED.getOpaque(this);
        }

        void storeLastUsed(final long now) {
            LAST_USED.setOpaque(this, now);
        }

        /** @return true when {@code now > last_used + ttl} */
        public boolean expired(final long now) {
            return now - lastUsed() > ttlNanos;
        }
    }

    /**
     * An immutable snapshot of the cache's entries for lock-free readers on any thread; lookups by address halves
     * never allocate. {@link #getAndTouch} refreshes the shared entry's TTL.
     */
    public static final class View {
        /** A touch within this long of the previous one is not stored again (the reference counts milliseconds). */
        public static final long TOUCH_GRANULARITY_NANOS = 1_000_000L;
        /** A view with no entries. */
        public static final View EMPTY = new View(new Entry[0]);

        private final Entry[] entries;
        private final AddrIndex index;

        View(final Entry[] entries) {
            this.entries = entries;
            final long[] hi = new long[entries.length];
            final long[] lo = new long[entries.length];
            for (int i = 0; i < entries.length; i++) {
                hi[i] = entries[i].addr.hi();
                lo[i] = entries[i].addr.lo();
            }
            this.index = new AddrIndex(hi, lo, entries.length);
        }

        /** @return entries in the snapshot (expired ones included) */
        public int size() {
            return entries.length;
        }

        /** @return the unexpired entry for {@code (hi, lo)}, or null; does not refresh the TTL */
        public Entry get(final long hi, final long lo, final long now) {
            final int i = index.get(hi, lo);
            if (i == AddrIndex.MISSING) {
                return null;
            }
            final Entry e = entries[i];
            return e.expired(now) ? null : e;
        }

        /** As {@link #get(long, long, long)} for a {@link NodeAddr}, returning the coordinate. */
        public Coords get(final NodeAddr addr, final long now) {
            final Entry e = get(addr.hi(), addr.lo(), now);
            return e == null ? null : e.coords;
        }

        /** @return the unexpired entry for {@code (hi, lo)}, its TTL refreshed to {@code now + ttl}; or null */
        public Entry getAndTouch(final long hi, final long lo, final long now) {
            final Entry e = get(hi, lo, now);
            if (e != null && now - e.lastUsed() >= TOUCH_GRANULARITY_NANOS) {
                e.storeLastUsed(now);
            }
            return e;
        }
    }
}
