package net.fips.control.nostr;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Whether a received advert may be used, as the reference decides (discovery-gateway.md §1.9): the time window of
 * the event, the content's identifier and version, and the public-usability filter on every endpoint (applied on
 * publish too). Pure functions of their arguments.
 */
public final class AdvertValidity {
    private AdvertValidity() {
    }

    /**
     * Until when an advert event may be used: not NIP-40 expired, and created less than twice the local
     * {@code advert_ttl_secs} ago; the earlier of its expiration and that window.
     *
     * @param event         a kind-37195 event
     * @param nowMs         the wall clock, Unix ms
     * @param advertTtlSecs our {@code advert_ttl_secs}
     * @return Unix ms until which it is valid, or empty when it is not valid now
     */
    public static OptionalLong validUntilMs(final NostrEvent event, final long nowMs, final long advertTtlSecs) {
        final Optional<Long> exp = event.expiration();
        if (exp.isPresent() && exp.get() >= 0 && exp.get() <= Math.floorDiv(nowMs, 1000)) {
            return OptionalLong.empty();
        }
        if (event.createdAt() < 0 || event.createdAt() > Long.MAX_VALUE / 1000 - 2 * advertTtlSecs) {
            return OptionalLong.empty(); // beyond year 292 million: no honest advert
        }
        final long window = event.createdAt() * 1000 + 2 * advertTtlSecs * 1000;
        if (window <= nowMs) {
            return OptionalLong.empty();
        }
        long until = window;
        if (exp.isPresent() && exp.get() >= 0 && exp.get() < Long.MAX_VALUE / 1000) {
            until = Math.min(exp.get() * 1000, window);
        }
        return until > nowMs ? OptionalLong.of(until) : OptionalLong.empty();
    }

    /**
     * Checks a decoded advert and returns the usable part: identifier and version right, at least one endpoint
     * that passes {@link #isPubliclyUsable}; with a UDP {@code nat} endpoint both {@code signalRelays} and
     * {@code stunServers} non-empty, without one both cleared.
     *
     * @param advert the decoded content
     * @return the advert with only usable endpoints
     * @throws NostrFormatException ({@code INVALID_FIELD}) naming the rule broken
     */
    public static OverlayAdvert validate(final OverlayAdvert advert) throws NostrFormatException {
        return validate(advert, AdvertValidity::isPubliclyUsable);
    }

    /**
     * {@link #validate(OverlayAdvert)} with another endpoint filter (tests on loopback keep 127.0.0.1).
     *
     * @param advert the decoded content
     * @param usable which endpoints to keep
     * @return the advert with only usable endpoints
     * @throws NostrFormatException ({@code INVALID_FIELD}) naming the rule broken
     */
    public static OverlayAdvert validate(final OverlayAdvert advert, final Predicate<OverlayAdvert.Endpoint> usable)
            throws NostrFormatException {
        if (!OverlayAdvert.IDENTIFIER.equals(advert.identifier())) {
            throw invalid("advert identifier " + advert.identifier() + " is not " + OverlayAdvert.IDENTIFIER);
        }
        if (advert.version() != OverlayAdvert.VERSION) {
            throw invalid("advert version " + advert.version() + " is not " + OverlayAdvert.VERSION);
        }
        if (advert.endpoints().isEmpty()) {
            throw invalid("advert has no endpoints");
        }
        final List<OverlayAdvert.Endpoint> usableEndpoints = new ArrayList<>();
        for (final OverlayAdvert.Endpoint e : advert.endpoints()) {
            if (usable.test(e)) {
                usableEndpoints.add(e);
            }
        }
        if (usableEndpoints.isEmpty()) {
            throw invalid("advert is missing publicly routable endpoints");
        }
        final OverlayAdvert kept = new OverlayAdvert(advert.identifier(), advert.version(), usableEndpoints,
                advert.signalRelays(), advert.stunServers());
        if (kept.hasUdpNatEndpoint()) {
            if (isEmpty(kept.signalRelays()) || isEmpty(kept.stunServers())) {
                throw invalid("advert has a nat endpoint without signalRelays and stunServers");
            }
            return kept;
        }
        return new OverlayAdvert(kept.identifier(), kept.version(), usableEndpoints, null, null);
    }

    private static boolean isEmpty(final List<String> l) {
        return l == null || l.isEmpty();
    }

    /**
     * The reference's public-usability filter of one endpoint: UDP {@code nat} yes, {@code nat} on other
     * transports no, Tor anything else yes, UDP/TCP {@code ip:port} when the port is not 0 and the IP is not
     * private, loopback, link-local, unspecified, multicast, broadcast, documentation or CGNAT (IPv4) or loopback,
     * unspecified, unique-local, multicast or link-local (IPv6); {@code host:port} when the host is not
     * {@code localhost} and the port is not 0.
     *
     * @param e an endpoint
     * @return whether a remote node could use it
     */
    public static boolean isPubliclyUsable(final OverlayAdvert.Endpoint e) {
        final String addr = e.addr().trim();
        if (addr.isEmpty()) {
            return false;
        }
        if (addr.equalsIgnoreCase("nat")) {
            return "udp".equals(e.transport());
        }
        if ("tor".equals(e.transport())) {
            return true;
        }
        final int colon = addr.lastIndexOf(':');
        if (colon < 0) {
            return false;
        }
        String host = addr.substring(0, colon).trim();
        while (host.startsWith("[")) {
            host = host.substring(1);
        }
        while (host.endsWith("]")) {
            host = host.substring(0, host.length() - 1);
        }
        final String portText = addr.substring(colon + 1).trim();
        if (host.isEmpty() || !portText.matches("[0-9]{1,5}") || Integer.parseInt(portText) == 0
                || Integer.parseInt(portText) > 0xffff) {
            return false;
        }
        if (host.toLowerCase(Locale.ROOT).equals("localhost")) {
            return false;
        }
        final byte[] ip = ipLiteral(host);
        return ip == null || !isUnroutable(ip);
    }

    /** @return the bytes of a strict IPv4 dotted quad or an IPv6 literal, or null for anything else (a name) */
    static byte[] ipLiteral(final String host) {
        if (host.contains(":")) {
            try {
                final byte[] a = InetAddress.ofLiteral(host).getAddress();
                if (a.length == 4) {
                    // The JDK folds ::ffff:a.b.c.d to IPv4; the reference keeps it IPv6 (and so never filters it).
                    final byte[] mapped = new byte[16];
                    mapped[10] = (byte) 0xff;
                    mapped[11] = (byte) 0xff;
                    System.arraycopy(a, 0, mapped, 12, 4);
                    return mapped;
                }
                return a;
            } catch (final IllegalArgumentException ex) {
                return null;
            }
        }
        final String[] parts = host.split("\\.", -1);
        if (parts.length != 4) {
            return null;
        }
        final byte[] out = new byte[4];
        for (int i = 0; i < 4; i++) {
            final String p = parts[i];
            if (!p.matches("0|[1-9][0-9]{0,2}") || Integer.parseInt(p) > 255) {
                return null;
            }
            out[i] = (byte) Integer.parseInt(p);
        }
        return out;
    }

    /** @return whether an advertised IP is one the reference filters out (§1.9's table) */
    static boolean isUnroutable(final byte[] ip) {
        final int a = ip[0] & 0xff;
        final int b = ip[1] & 0xff;
        if (ip.length == 4) {
            final int c = ip[2] & 0xff;
            final boolean allZero = a == 0 && b == 0 && c == 0 && ip[3] == 0;
            final boolean allOnes = a == 255 && b == 255 && c == 255 && (ip[3] & 0xff) == 255;
            return a == 10 || a == 172 && (b & 0xf0) == 16 || a == 192 && b == 168 || a == 127
                    || a == 169 && b == 254 || allZero || a >= 224 && a <= 239 || allOnes
                    || a == 192 && b == 0 && c == 2 || a == 198 && b == 51 && c == 100
                    || a == 203 && b == 0 && c == 113 || a == 100 && (b & 0xc0) == 64;
        }
        boolean zeroPrefix = true;
        for (int i = 0; i < 15; i++) {
            zeroPrefix &= ip[i] == 0;
        }
        final boolean loopback = zeroPrefix && ip[15] == 1;
        final boolean unspecified = zeroPrefix && ip[15] == 0;
        return loopback || unspecified || (a & 0xfe) == 0xfc || a == 0xff || a == 0xfe && (b & 0xc0) == 0x80;
    }

    private static NostrFormatException invalid(final String message) {
        return new NostrFormatException(NostrFormatException.Problem.INVALID_FIELD, message);
    }
}
