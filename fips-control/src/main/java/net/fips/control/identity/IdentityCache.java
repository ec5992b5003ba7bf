package net.fips.control.identity;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import net.fips.dataplane.wire.NodeAddr;

/**
 * The node's table of known identities: which public key stands behind a node_addr. It is keyed by the first 15
 * bytes of the node_addr, which is all a FIPS IPv6 address ({@code fd ‖ node_addr[0..15]}) reveals, so a TUN
 * destination and a discovery target find the same entry.
 *
 * <p>Fed when a peer is promoted (link handshake), by session handshakes and later by DNS/hosts resolution; read
 * by discovery to verify a LookupResponse proof and by the session layer to start a handshake. Bounded LRU with
 * the reference's default of {@value #DEFAULT_CAPACITY} entries and no expiry: registering or looking up an entry
 * makes it the most recent; {@link #contains} does not. When full, the least recently used entry is evicted.
 *
 * <p>Single owner (the control thread); not thread-safe. Time is passed in by the caller.
 */
public final class IdentityCache {
    /** The reference's {@code node.cache.identity_size} default. */
    public static final int DEFAULT_CAPACITY = 10_000;
    /** Bytes of the node_addr that form the key. */
    public static final int PREFIX_LENGTH = 15;

    /**
     * One cached identity.
     *
     * @param nodeAddr      the full node_addr registered
     * @param identity      its public key
     * @param lastSeenNanos when it was last registered or looked up (caller's clock)
     */
    public record Entry(NodeAddr nodeAddr, PeerIdentity identity, long lastSeenNanos) {
    }

    private final int capacity;
    private final LinkedHashMap<NodeAddr, Entry> map;

    /** A cache with the default capacity. */
    public IdentityCache() {
        this(DEFAULT_CAPACITY);
    }

    /**
     * @param capacity maximum entries (at least 1)
     */
    public IdentityCache(final int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("capacity must be at least 1");
        }
        this.capacity = capacity;
        this.map = new LinkedHashMap<>(16, 0.75f, true) {
            private static final long serialVersionUID = 1L;

            @Override
            protected boolean removeEldestEntry(final Map.Entry<NodeAddr, IdentityCache.Entry> eldest) {
                return size() > IdentityCache.this.capacity;
            }
        };
    }

    /** The key: node_addr with its 16th byte cleared. */
    private static NodeAddr key(final NodeAddr addr) {
        return NodeAddr.of(addr.hi(), addr.lo() & 0xFFFF_FFFF_FFFF_FF00L);
    }

    /** The key of a FIPS address ({@code fd} followed by 15 node_addr bytes). */
    private static NodeAddr key(final FipsAddress address) {
        final byte[] b = address.toBytes();
        final byte[] n = new byte[NodeAddr.SIZE];
        System.arraycopy(b, 1, n, 0, PREFIX_LENGTH);
        return NodeAddr.of(n);
    }

    /**
     * Registers (or refreshes) an identity under its own node_addr.
     *
     * @param identity  the public key
     * @param nowNanos  caller's clock
     */
    public void register(final PeerIdentity identity, final long nowNanos) {
        register(identity.nodeAddr(), identity, nowNanos);
    }

    /**
     * Registers (or refreshes) {@code identity} under {@code nodeAddr}, as the reference's {@code register_identity}:
     * the caller vouches that the address belongs to the key.
     *
     * @param nodeAddr the address
     * @param identity the public key
     * @param nowNanos caller's clock
     */
    public void register(final NodeAddr nodeAddr, final PeerIdentity identity, final long nowNanos) {
        Objects.requireNonNull(nodeAddr, "nodeAddr");
        Objects.requireNonNull(identity, "identity");
        map.put(key(nodeAddr), new Entry(nodeAddr, identity, nowNanos));
    }

    /**
     * Looks up by the first 15 bytes of {@code addr} (the last byte is ignored) and marks the entry recently used.
     *
     * @param addr     a node_addr (or any address sharing its 15-byte prefix)
     * @param nowNanos caller's clock
     * @return the entry, or null when unknown
     */
    public Entry lookup(final NodeAddr addr, final long nowNanos) {
        return touch(key(addr), nowNanos);
    }

    /**
     * Looks up the identity behind a FIPS IPv6 address and marks it recently used.
     *
     * @param address  the {@code fd00::/8} address
     * @param nowNanos caller's clock
     * @return the entry, or null when unknown
     */
    public Entry lookup(final FipsAddress address, final long nowNanos) {
        return touch(key(address), nowNanos);
    }

    private Entry touch(final NodeAddr k, final long nowNanos) {
        final Entry e = map.get(k);
        if (e == null) {
            return null;
        }
        final Entry fresh = new Entry(e.nodeAddr(), e.identity(), nowNanos);
        map.put(k, fresh);
        return fresh;
    }

    /**
     * @param addr a node_addr (15-byte prefix match)
     * @return true when an identity is cached; does not change the LRU order
     */
    public boolean contains(final NodeAddr addr) {
        return map.containsKey(key(addr));
    }

    /**
     * Removes the entry for {@code addr}'s prefix.
     *
     * @param addr a node_addr
     * @return true when something was removed
     */
    public boolean remove(final NodeAddr addr) {
        return map.remove(key(addr)) != null;
    }

    /** @return number of cached identities */
    public int size() {
        return map.size();
    }

    /** @return the maximum number of entries */
    public int capacity() {
        return capacity;
    }

    /** @return a snapshot of all entries, least recently used first */
    public List<Entry> entries() {
        return new ArrayList<>(map.values());
    }
}
