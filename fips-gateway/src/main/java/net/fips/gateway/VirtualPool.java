package net.fips.gateway;

import java.net.Inet6Address;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The virtual IPv6 pool and its mappings (discovery-gateway.md §4.3) as pure logic: every call takes the time
 * (milliseconds of a monotonic clock) from its caller, and what traffic each mapping saw from a
 * {@link TrafficProbe}. Not thread-safe: the gateway serialises calls on one lock.
 *
 * <p>Lifetimes follow the reference: a mapping is {@code Allocated} by a DNS answer, {@code Active} once traffic is
 * seen, {@code Draining} when no traffic and no DNS lookup refreshed it for longer than the TTL, and freed when a
 * draining mapping has seen no traffic for longer than the grace period; traffic recovers a draining mapping. Two
 * differences (ADR 0049): traffic is observed so that it is really seen (the reference's conntrack match never
 * matches), and a DNS lookup of a draining mapping returns it to {@code Allocated}, so an address just handed to
 * a client is not reclaimed under it.
 */
public final class VirtualPool {
    /** The state of a mapping, with the reference's names. */
    public enum State {
        /** Handed out by DNS, no traffic seen yet. */
        ALLOCATED("Allocated"),
        /** Traffic seen. */
        ACTIVE("Active"),
        /** Idle past the TTL; freed after the grace period unless traffic resumes. */
        DRAINING("Draining");

        private final String text;

        State(final String text) {
            this.text = text;
        }

        /** @return the reference's name */
        public String text() {
            return text;
        }
    }

    /**
     * What a mapping's virtual address saw since the previous tick.
     *
     * @param traffic  packets passed through the mapping since the previous tick
     * @param sessions conntrack entries of the address now, or -1 when conntrack could not be read
     */
    public record Activity(boolean traffic, int sessions) {
        /** Nothing seen, conntrack unreadable. */
        public static final Activity NONE = new Activity(false, -1);

        /** @return whether this keeps the mapping alive */
        boolean live() {
            return traffic || sessions > 0;
        }
    }

    /** Says what each virtual address saw; called once per mapping per tick. */
    @FunctionalInterface
    public interface TrafficProbe {
        /**
         * @param virtualIp the mapping's virtual address
         * @return what it saw since the previous call for it
         */
        Activity activity(Inet6Address virtualIp);
    }

    /**
     * A mapping as the control socket shows it.
     *
     * @param virtualIp   the pool address
     * @param meshAddr    the mesh (fd00::/8) address it stands for
     * @param nodeKey     the pool key: mesh address bytes 1..15 and a zero byte, 32 hex digits
     * @param dnsName     the name that was resolved
     * @param state       the state
     * @param sessions    conntrack entries at the last tick, or -1 when unknown
     * @param ageSecs     seconds since it was created
     * @param lastRefSecs seconds since the last DNS lookup or traffic
     */
    public record Mapping(Inet6Address virtualIp, Inet6Address meshAddr, String nodeKey, String dnsName, State state,
            int sessions, long ageSecs, long lastRefSecs) {
    }

    /**
     * The result of {@link #allocate}.
     *
     * @param virtualIp the address
     * @param created   whether the mapping is new (its NAT rules must be added)
     */
    public record Allocation(Inet6Address virtualIp, boolean created) {
    }

    /**
     * Counts by state.
     *
     * @param total     addresses in the pool
     * @param allocated mappings in {@code Allocated}
     * @param active    mappings in {@code Active}
     * @param draining  mappings in {@code Draining}
     * @param free      addresses not mapped
     */
    public record Status(int total, int allocated, int active, int draining, int free) {
    }

    /** Thrown when every address is mapped. */
    public static final class ExhaustedException extends Exception {
        private static final long serialVersionUID = 1L;

        ExhaustedException(final int inUse) {
            super("pool exhausted (" + inUse + " addresses in use)");
        }
    }

    private static final class Entry {
        final Inet6Address virtualIp;
        final Inet6Address meshAddr;
        final String key;
        final String dnsName;
        final long createdMs;
        State state = State.ALLOCATED;
        long lastReferencedMs;
        long drainStartMs;
        int sessions = -1;

        Entry(final Inet6Address virtualIp, final Inet6Address meshAddr, final String key, final String dnsName,
                final long now) {
            this.virtualIp = virtualIp;
            this.meshAddr = meshAddr;
            this.key = key;
            this.dnsName = dnsName;
            this.createdMs = now;
            this.lastReferencedMs = now;
        }
    }

    private final PoolCidr cidr;
    private final long ttlMs;
    private final long graceMs;
    private final ArrayDeque<Inet6Address> free = new ArrayDeque<>();
    private final Map<String, Entry> byKey = new LinkedHashMap<>();

    /**
     * @param cidr      the pool
     * @param ttlSecs   idle time before draining ({@code gateway.dns.ttl})
     * @param graceSecs time a draining mapping is held ({@code gateway.pool_grace_period})
     */
    public VirtualPool(final PoolCidr cidr, final long ttlSecs, final long graceSecs) {
        this.cidr = Objects.requireNonNull(cidr, "cidr");
        this.ttlMs = Math.multiplyExact(ttlSecs, 1000L);
        this.graceMs = Math.multiplyExact(graceSecs, 1000L);
        for (int i = 0; i < cidr.size(); i++) {
            free.addLast(cidr.address(i));
        }
    }

    /** @return the pool's CIDR */
    public PoolCidr cidr() {
        return cidr;
    }

    /**
     * The pool key of a mesh address (discovery-gateway.md §4.2 step 6): its bytes 1..15 followed by a zero byte.
     *
     * @param meshAddr the mesh address
     * @return 32 hex digits
     */
    public static String nodeKey(final Inet6Address meshAddr) {
        final byte[] m = meshAddr.getAddress();
        final byte[] k = Arrays.copyOfRange(m, 1, 17);
        return HexFormat.of().formatHex(k);
    }

    /**
     * Maps a mesh address, or refreshes its mapping.
     *
     * @param meshAddr the mesh address the daemon resolved
     * @param dnsName  the name asked for
     * @param now      the time in ms
     * @return the address and whether it is new
     * @throws ExhaustedException when no address is free
     */
    public Allocation allocate(final Inet6Address meshAddr, final String dnsName, final long now)
            throws ExhaustedException {
        final String key = nodeKey(meshAddr);
        final Entry e = byKey.get(key);
        if (e != null) {
            e.lastReferencedMs = now;
            if (e.state == State.DRAINING) {
                e.state = State.ALLOCATED; // ADR 0049: a fresh answer must not be reclaimed within its TTL
            }
            return new Allocation(e.virtualIp, false);
        }
        final Inet6Address vip = free.pollFirst();
        if (vip == null) {
            throw new ExhaustedException(byKey.size());
        }
        byKey.put(key, new Entry(vip, meshAddr, key, dnsName, now));
        return new Allocation(vip, true);
    }

    /**
     * One pool tick: asks the probe about every mapping, moves states, frees what drained out.
     *
     * @param now   the time in ms
     * @param probe what each address saw
     * @return the mappings freed by this tick (their NAT rules must go)
     */
    public List<Mapping> tick(final long now, final TrafficProbe probe) {
        final List<Mapping> freed = new ArrayList<>();
        final var it = byKey.values().iterator();
        while (it.hasNext()) {
            final Entry e = it.next();
            final Activity a = probe.activity(e.virtualIp);
            e.sessions = a.sessions();
            final boolean live = a.live();
            if (live) {
                e.lastReferencedMs = now;
            }
            switch (e.state) {
                case ALLOCATED -> {
                    if (live) {
                        e.state = State.ACTIVE;
                    } else if (now - e.lastReferencedMs > ttlMs) {
                        e.state = State.DRAINING;
                        e.drainStartMs = now;
                    }
                }
                case ACTIVE -> {
                    if (now - e.lastReferencedMs > ttlMs) {
                        e.state = State.DRAINING;
                        e.drainStartMs = now;
                    }
                }
                case DRAINING -> {
                    if (live) {
                        e.state = State.ACTIVE;
                    } else if (now - e.drainStartMs > graceMs) {
                        it.remove();
                        free.addLast(e.virtualIp);
                        freed.add(view(e, now));
                    }
                }
                default -> throw new IllegalStateException(e.state.name());
            }
        }
        return freed;
    }

    /** @return counts by state */
    public Status status() {
        int allocated = 0;
        int active = 0;
        int draining = 0;
        for (final Entry e : byKey.values()) {
            switch (e.state) {
                case ALLOCATED -> allocated++;
                case ACTIVE -> active++;
                case DRAINING -> draining++;
                default -> throw new IllegalStateException(e.state.name());
            }
        }
        return new Status(cidr.size(), allocated, active, draining, free.size());
    }

    /**
     * @param now the time in ms
     * @return every mapping, oldest first
     */
    public List<Mapping> mappings(final long now) {
        final List<Mapping> out = new ArrayList<>(byKey.size());
        for (final Entry e : byKey.values()) {
            out.add(view(e, now));
        }
        return out;
    }

    private static Mapping view(final Entry e, final long now) {
        return new Mapping(e.virtualIp, e.meshAddr, e.key, e.dnsName, e.state, e.sessions,
                Math.max(0, now - e.createdMs) / 1000, Math.max(0, now - e.lastReferencedMs) / 1000);
    }
}
