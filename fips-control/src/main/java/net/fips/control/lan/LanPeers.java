package net.fips.control.lan;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The peers LAN discovery has seen, keyed by npub, and when each is due for a dial (discovery-gateway.md §3.2, with
 * the retry of ADR 0042): a new or re-appeared announcement is due at once; after a dial it is due again after a
 * backoff that doubles from {@code base} up to {@code max}; a peer found already linked is checked again after
 * {@code base} and its backoff starts over; a withdrawn announcement (goodbye or expiry) is never due until it is
 * announced again. A peer announced at several addresses (IPv4 and IPv6, several interfaces) keeps them all, at most
 * {@value #MAX_ADDRESSES}: a newly seen address is dialled at once, and a dial that did not link moves the next
 * attempt on to the next address (ADR 0059), so a wrong candidate (an IPv6 link-local address given another link's
 * scope) does not hold the peer up. Pure: time comes in as nanoseconds from the node's clock, and only the control
 * thread calls it.
 */
public final class LanPeers {

    /** Peers remembered at most; a new one then replaces a withdrawn one, else the least recently seen. */
    public static final int MAX_PEERS = 256;
    /** Addresses remembered per peer at most; a new one then replaces the least recently seen. */
    public static final int MAX_ADDRESSES = 8;
    /** An address not announced again for this long, while the peer's others are, is forgotten. */
    public static final long STALE_NANOS = 300_000_000_000L;

    /** What a dial attempt came to, as the node reports it back ({@link #dialled}). */
    public enum Outcome {
        /** A handshake was started. */
        STARTED,
        /** The peer is already linked. */
        LINKED,
        /** A handshake to the peer is already under way. */
        IN_PROGRESS,
        /** Refused here: the peer ACL, a connection limit, no UDP transport for the address, an invalid npub. */
        REFUSED
    }

    /**
     * One peer as seen.
     *
     * @param npub        its npub (TXT {@code npub}; only a hint until the handshake proves it)
     * @param scope       its TXT {@code scope}, or null
     * @param address     the address its next (or latest) dial goes to
     * @param addresses   every address it is announced at, in the order first seen
     * @param firstSeen   clock nanoseconds of the first announcement
     * @param lastSeen    clock nanoseconds of the latest announcement
     * @param present     false once its announcement was withdrawn or expired
     * @param dials       handshakes started to it
     * @param lastOutcome the latest dial attempt's outcome, or null before the first
     * @param nextAttempt clock nanoseconds when it is due next
     */
    public record Peer(String npub, String scope, InetSocketAddress address, List<InetSocketAddress> addresses,
            long firstSeen, long lastSeen, boolean present, long dials, Outcome lastOutcome, long nextAttempt) {
        /** Freezes the list. */
        public Peer {
            addresses = List.copyOf(addresses);
        }
    }

    private static final class Entry {
        final String npub;
        String scope;
        InetSocketAddress address;
        /** Address to when it was last announced, in the order first seen. */
        final Map<InetSocketAddress, Long> addresses = new LinkedHashMap<>();
        /** The last dial did not link: the next attempt goes to the next address. */
        boolean rotate;
        final long firstSeen;
        long lastSeen;
        boolean present = true;
        long dials;
        Outcome lastOutcome;
        long nextAttempt;
        long backoff;

        Entry(final String npub, final long now, final long base) {
            this.npub = npub;
            this.firstSeen = now;
            this.nextAttempt = now;
            this.backoff = base;
        }

        Peer view() {
            return new Peer(npub, scope, address, List.copyOf(addresses.keySet()), firstSeen, lastSeen, present,
                    dials, lastOutcome, nextAttempt);
        }

        /** Remembers an address; forgets stale ones and, over the cap, the least recently seen (never the current). */
        boolean remember(final InetSocketAddress a, final long now) {
            final boolean known = addresses.put(a, now) != null;
            addresses.entrySet().removeIf(x -> !x.getKey().equals(address) && !x.getKey().equals(a)
                    && now - x.getValue() > STALE_NANOS);
            while (addresses.size() > MAX_ADDRESSES) {
                InetSocketAddress oldest = null;
                long oldestSeen = 0;
                for (final Map.Entry<InetSocketAddress, Long> x : addresses.entrySet()) {
                    if (!x.getKey().equals(a) && !x.getKey().equals(address)
                            && (oldest == null || x.getValue() - oldestSeen < 0)) {
                        oldest = x.getKey();
                        oldestSeen = x.getValue();
                    }
                }
                addresses.remove(oldest);
            }
            return known;
        }

        /** Moves {@link #address} on to the address after it, in the order first seen. */
        void next() {
            final List<InetSocketAddress> all = List.copyOf(addresses.keySet());
            address = all.get((all.indexOf(address) + 1) % all.size());
        }
    }

    private final long baseNanos;
    private final long maxNanos;
    private final Map<String, Entry> peers = new LinkedHashMap<>();
    private long dialsStarted;
    private long evicted;

    /**
     * @param baseNanos first backoff after a dial, and how often a linked peer is checked (node.retry.base)
     * @param maxNanos  the backoff's cap (node.retry.max_backoff)
     */
    public LanPeers(final long baseNanos, final long maxNanos) {
        if (baseNanos <= 0 || maxNanos < baseNanos) {
            throw new IllegalArgumentException("backoff base " + baseNanos + " ns and cap " + maxNanos + " ns");
        }
        this.baseNanos = baseNanos;
        this.maxNanos = maxNanos;
    }

    /**
     * Records an accepted announcement.
     *
     * @param npub    TXT {@code npub}
     * @param scope   TXT {@code scope}, or null
     * @param address the announced address and port
     * @param now     clock nanoseconds
     * @return true when the peer is new, re-appeared after a withdrawal or seen at an address it was not known at
     *         (worth an INFO line; it is then due at once, at that address)
     */
    public boolean seen(final String npub, final String scope, final InetSocketAddress address, final long now) {
        Entry e = peers.get(npub);
        final boolean news;
        if (e == null) {
            if (peers.size() >= MAX_PEERS) {
                evictOne();
            }
            e = new Entry(npub, now, baseNanos);
            peers.put(npub, e);
            e.address = address;
            e.remember(address, now);
            news = true;
        } else {
            news = !e.remember(address, now) || !e.present;
            if (news) {
                e.nextAttempt = now;
                e.backoff = baseNanos;
                e.address = address;
                e.rotate = false;
            }
        }
        e.scope = scope;
        e.lastSeen = now;
        e.present = true;
        return news;
    }

    /**
     * Records a withdrawn or expired announcement.
     *
     * @param instanceName the mDNS instance name ({@link LanAdvert#instanceName})
     * @return the npubs it named (none when unknown)
     */
    public List<String> gone(final String instanceName) {
        final List<String> out = new ArrayList<>();
        for (final Entry e : peers.values()) {
            if (e.present && LanAdvert.instanceName(e.npub).equals(instanceName)) {
                e.present = false;
                out.add(e.npub);
            }
        }
        return out;
    }

    /**
     * @param now clock nanoseconds
     * @return the present peers due for a dial attempt, oldest first; one whose last dial did not link is moved on
     *         to its next address first
     */
    public List<Peer> due(final long now) {
        final List<Peer> out = new ArrayList<>();
        for (final Entry e : peers.values()) {
            if (e.present && e.nextAttempt - now <= 0) {
                if (e.rotate) {
                    e.rotate = false;
                    e.next();
                }
                out.add(e.view());
            }
        }
        return out;
    }

    /**
     * Records what a dial attempt came to and schedules the next.
     *
     * @param npub    the peer
     * @param outcome what happened
     * @param now     clock nanoseconds
     * @return true when the peer was not known as linked before and now is (worth an INFO line)
     */
    public boolean dialled(final String npub, final Outcome outcome, final long now) {
        final Entry e = peers.get(npub);
        if (e == null) {
            return false;
        }
        final boolean newlyLinked = outcome == Outcome.LINKED && e.lastOutcome != Outcome.LINKED;
        e.lastOutcome = outcome;
        e.rotate = outcome == Outcome.STARTED || outcome == Outcome.REFUSED;
        switch (outcome) {
            case STARTED -> {
                e.dials++;
                dialsStarted++;
                e.nextAttempt = now + e.backoff;
                e.backoff = Math.min(maxNanos, e.backoff * 2);
            }
            case LINKED, IN_PROGRESS -> {
                e.backoff = outcome == Outcome.LINKED ? baseNanos : e.backoff;
                e.nextAttempt = now + baseNanos;
            }
            case REFUSED -> {
                e.nextAttempt = now + e.backoff;
                e.backoff = Math.min(maxNanos, e.backoff * 2);
            }
            default -> throw new IllegalStateException(outcome.name());
        }
        return newlyLinked;
    }

    private void evictOne() {
        final Entry victim = peers.values().stream()
                .min(Comparator.comparing((Entry e) -> e.present).thenComparingLong(e -> e.lastSeen))
                .orElseThrow();
        peers.remove(victim.npub);
        evicted++;
    }

    /** @return every peer, in the order first seen */
    public List<Peer> snapshot() {
        return peers.values().stream().map(Entry::view).toList();
    }

    /** @return handshakes started to LAN peers so far */
    public long dialsStarted() {
        return dialsStarted;
    }

    /** @return peers forgotten to stay within {@value #MAX_PEERS} */
    public long evicted() {
        return evicted;
    }
}
