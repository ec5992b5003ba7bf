package net.fips.dataplane.engine;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.security.SecureRandom;
import java.util.function.LongSupplier;

/**
 * Budgets for inbound msg1 in the receive thread, before anything is copied or handed to the control plane (issue
 * 18 §3, ADR 0022). The reference has one global token bucket (crypto-link.md §5.16: burst 100, 10/s), so one
 * flooding source spends every honest peer's budget; its bucket still runs in the control plane. Here a msg1 must
 * first find a token in its source address's bucket, then in its network's (IPv4 /24, IPv6 /64), then in this
 * transport's; only the buckets it passed are charged, so a source that floods spends its own budget (and its
 * network's), not everyone's.
 *
 * <p>The source is the transport's raw source bytes: for UDP a {@code sockaddr_in}/{@code sockaddr_in6} (the port
 * is ignored, an IPv4-mapped IPv6 address counts as IPv4); any other form (a TCP connection, a MAC, a BLE address)
 * is keyed by all its bytes, without a network bucket. Buckets live in fixed tables without stored keys: each
 * source (and network) owns two slots, chosen by two keyed hashes (a random key per instance), each with half its
 * budget, and is refused only when both are empty. A flooder empties both of its own; an honest source that shares
 * one slot with it still has the other, and sharing both is as unlikely as one collision squared. An outsider
 * cannot aim a collision. Nothing is allocated per packet. Single-threaded: one per receive thread.
 */
final class Msg1Admission {
    /** What {@link #admit} decided. */
    enum Verdict {
        ADMITTED, SOURCE_BUDGET, NETWORK_BUDGET, TRANSPORT_BUDGET
    }

    /** Per source address: a few dials at once (peers behind one NAT), then one a second (two every two seconds). */
    static final int SOURCE_BURST = 8;
    static final double SOURCE_PER_SECOND = 1.0;
    /** Per /24 or /64. */
    static final int NETWORK_BURST = 32;
    static final double NETWORK_PER_SECOND = 4.0;
    /** Per transport: caps what reaches the control plane, whose global bucket (100, 10/s) still applies. */
    static final int TRANSPORT_BURST = 200;
    static final double TRANSPORT_PER_SECOND = 50.0;

    private static final int SOURCE_SLOTS = 4096;
    private static final int NETWORK_SLOTS = 1024;
    private static final int AF_INET = 2;
    private static final int AF_INET6 = 10;
    private static final int SOCKADDR_IN_BYTES = 16;
    private static final int SOCKADDR_IN6_BYTES = 28;
    private static final double NANOS_PER_SECOND = 1e9;
    /** The transport's one key: its two slots are 0 and 1. */
    private static final long TRANSPORT_KEY = 1L << 32;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final LongSupplier clock;
    private final long seed;
    private final Buckets sources = new Buckets(SOURCE_SLOTS, SOURCE_BURST / 2.0, SOURCE_PER_SECOND / 2);
    private final Buckets networks = new Buckets(NETWORK_SLOTS, NETWORK_BURST / 2.0, NETWORK_PER_SECOND / 2);
    private final Buckets transport = new Buckets(2, TRANSPORT_BURST / 2.0, TRANSPORT_PER_SECOND / 2);
    private long sourceHash;
    private long networkHash;
    private boolean hasNetwork;

    /** @param clock the data plane's nanosecond clock */
    Msg1Admission(final LongSupplier clock) {
        this(clock, new SecureRandom().nextLong());
    }

    Msg1Admission(final LongSupplier clock, final long seed) {
        this.clock = clock;
        this.seed = seed;
    }

    /**
     * @param source       the transport's source bytes at {@code [offset, offset + length)}; null or empty when
     *                     unknown (then only the transport's budget applies)
     */
    Verdict admit(final MemorySegment source, final long offset, final int length) {
        final long now = clock.getAsLong();
        key(source, offset, length);
        if (length > 0 && !sources.take(sourceHash, now)) {
            return Verdict.SOURCE_BUDGET;
        }
        if (hasNetwork && !networks.take(networkHash, now)) {
            return Verdict.NETWORK_BUDGET;
        }
        if (!transport.take(TRANSPORT_KEY, now)) {
            return Verdict.TRANSPORT_BUDGET;
        }
        return Verdict.ADMITTED;
    }

    /** Sets {@link #sourceHash}, {@link #networkHash} and {@link #hasNetwork} for the source bytes. */
    private void key(final MemorySegment source, final long offset, final int length) {
        hasNetwork = false;
        if (source == null || length <= 0) {
            sourceHash = 0;
            return;
        }
        // sa_family is in host order (little-endian on the platforms we build for), the address in network order
        final int family = length >= 2 ? Short.toUnsignedInt(source.get(U16, offset))
                : -1;
        if (family == AF_INET && length == SOCKADDR_IN_BYTES) {
            final int v4 = source.get(U32, offset + 4);
            ipv4(v4);
        } else if (family == AF_INET6 && length == SOCKADDR_IN6_BYTES) {
            final long hi = source.get(U64, offset + 8);
            final long lo = source.get(U64, offset + 16);
            if (hi == 0 && (int) lo == 0xFFFF_0000) {
                // ::ffff:a.b.c.d (a dual-stack socket): the IPv4 address is the last four bytes
                ipv4((int) (lo >>> 32));
            } else {
                sourceHash = mix(mix(seed ^ 6, hi), lo);
                networkHash = mix(seed ^ 64, hi);
                hasNetwork = true;
            }
        } else {
            long h = mix(seed, length);
            int i = 0;
            for (; i + 8 <= length; i += 8) {
                h = mix(h, source.get(U64, offset + i));
            }
            for (; i < length; i++) {
                h = mix(h, source.get(ValueLayout.JAVA_BYTE, offset + i));
            }
            sourceHash = h;
        }
    }

    /** @param v4 the address as it lies in memory (network order read as a little-endian int) */
    private void ipv4(final int v4) {
        sourceHash = mix(seed ^ 4, v4);
        // the first three bytes in memory are the /24
        networkHash = mix(seed ^ 24, v4 & 0x00FF_FFFF);
        hasNetwork = true;
    }

    /** One round of a 64-bit mixer (the finaliser of SplitMix64) over {@code h} and {@code v}. */
    private static long mix(final long h, final long v) {
        long z = h + v * 0x9E37_79B9_7F4A_7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58_476D_1CE4_E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D0_49BB_1331_11EBL;
        return z ^ (z >>> 31);
    }

    /**
     * Token buckets in a fixed table (a power of two): tokens and the instant of the last refill per slot. A key
     * owns two distinct slots, from the low and the high half of its hash (the next one when they coincide).
     */
    private static final class Buckets {
        private final double[] tokens;
        private final long[] refilled;
        private final boolean[] used;
        private final int mask;
        private final double burst;
        private final double perNano;

        Buckets(final int slots, final double burst, final double perSecond) {
            this.tokens = new double[slots];
            this.refilled = new long[slots];
            this.used = new boolean[slots];
            this.mask = slots - 1;
            this.burst = burst;
            this.perNano = perSecond / NANOS_PER_SECOND;
        }

        /** Takes a token from the key's first slot, else from its second; false when both are empty. */
        boolean take(final long hash, final long now) {
            final int a = (int) hash & mask;
            final int h = (int) (hash >>> 32) & mask;
            final int b = h != a ? h : (a + 1) & mask;
            final double ta = refill(a, now);
            if (ta >= 1.0) {
                tokens[a] = ta - 1.0;
                return true;
            }
            final double tb = refill(b, now);
            if (tb >= 1.0) {
                tokens[b] = tb - 1.0;
                return true;
            }
            return false;
        }

        private double refill(final int slot, final long now) {
            final double t;
            if (!used[slot]) {
                used[slot] = true;
                t = burst;
            } else {
                t = Math.min(burst, tokens[slot] + Math.max(0, now - refilled[slot]) * perNano);
            }
            tokens[slot] = t;
            refilled[slot] = now;
            return t;
        }
    }
}
