package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * From a configured peer's static addresses and its advert to the ordered list of addresses to dial
 * (discovery-gateway.md §1.10, the reference's {@code peer_address_candidates}): advert endpoints become extra
 * addresses with priorities after the highest static one (101, 102, ... without statics), marked seen now; the
 * advert's entries go first and win the de-duplication against statics (same transport and address); the list is
 * then stable-sorted so seen entries come first. Pure.
 */
public final class DialCandidates {
    /** Priority of the first advert-derived address when the peer has no static address. */
    public static final int FIRST_ADVERT_PRIORITY_WITHOUT_STATICS = 101;

    private DialCandidates() {
    }

    /**
     * One address to dial.
     *
     * @param transport  transport type name ({@code udp}, {@code tcp}, {@code tor}, ...)
     * @param addr       the address text, or {@code nat}
     * @param priority   lower first among static addresses
     * @param seenAtMs   when an advert showed it, Unix ms; null for a static address
     */
    public record Candidate(String transport, String addr, int priority, Long seenAtMs) {
        /** @return whether it came from an advert */
        public boolean fromAdvert() {
            return seenAtMs != null;
        }

        /** @return whether dialling it needs a NAT traversal (UDP {@code nat}, any case) */
        public boolean isNatTraversal() {
            return "udp".equals(transport) && "nat".equalsIgnoreCase(addr);
        }
    }

    /**
     * @param statics        the peer's configured addresses ({@code seenAtMs} null)
     * @param advert         the peer's cached advert, or null (none, Nostr off, {@code via_nostr} false, or policy
     *                       {@code disabled})
     * @param nowMs          the wall clock, Unix ms
     * @return the candidates in dial order
     */
    public static List<Candidate> merge(final List<Candidate> statics, final OverlayAdvert advert, final long nowMs) {
        final List<Candidate> sortedStatics = new ArrayList<>(statics);
        sortedStatics.sort(Comparator.comparingInt(Candidate::priority));
        final List<Candidate> fromAdvert = new ArrayList<>();
        if (advert != null) {
            int next = statics.isEmpty() ? FIRST_ADVERT_PRIORITY_WITHOUT_STATICS
                    : statics.stream().mapToInt(Candidate::priority).max().getAsInt() + 1;
            for (final OverlayAdvert.Endpoint e : advert.endpoints()) {
                fromAdvert.add(new Candidate(e.transport(), e.addr(), next++, nowMs));
            }
        }
        final List<Candidate> out = new ArrayList<>();
        for (final Candidate c : concat(fromAdvert, sortedStatics)) {
            if (out.stream().noneMatch(o -> o.transport().equals(c.transport()) && o.addr().equals(c.addr()))) {
                out.add(c);
            }
        }
        // Stable: seen entries (newest first) before static ones, statics keep their priority order.
        out.sort((a, b) -> {
            if (a.seenAtMs() != null && b.seenAtMs() != null) {
                return Long.compare(b.seenAtMs(), a.seenAtMs());
            }
            return a.seenAtMs() != null ? -1 : b.seenAtMs() != null ? 1 : 0;
        });
        return out;
    }

    private static List<Candidate> concat(final List<Candidate> a, final List<Candidate> b) {
        final List<Candidate> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }
}
