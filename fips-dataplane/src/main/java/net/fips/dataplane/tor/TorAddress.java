package net.fips.dataplane.tor;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A destination reached through a SOCKS5 proxy (Tor, Nym), parsed from the transport address text as the
 * reference does (transports.md §6.2), in this order:
 *
 * <ol>
 *   <li>text containing {@code ".onion:"} is an {@link Kind#ONION onion} address: host = everything before the
 *       last {@code ':'}, port after it; sent to the proxy as a domain name;</li>
 *   <li>a numeric {@code a.b.c.d:port} or {@code [v6]:port} is an {@link Kind#IP IP} address, sent as one;</li>
 *   <li>anything else is {@code host:port} where the host must contain a dot ({@link Kind#HOSTNAME}), sent as a
 *       domain name so the proxy resolves it (no local DNS lookup, no leak).</li>
 * </ol>
 *
 * <p>Stricter than the reference in two small ways, both of which only refuse addresses a proxy could never
 * reach: the port must be plain decimal digits from 1 to 65535 (the reference's integer parse also takes
 * {@code 0} and {@code +443}), and a domain name longer than the 255 bytes a SOCKS5 request can carry is refused
 * here instead of inside the dial. A dotted quad with a leading zero ({@code 01.2.3.4}) is not numeric, as in the
 * reference, and so goes to the proxy as a name.
 *
 * @param kind how the host is sent to the proxy
 * @param host the host: the onion or DNS name, or the IP literal without brackets
 * @param ip   the address for {@link Kind#IP}, else null
 * @param port the destination port, 1-65535
 * @param text the transport address text as given (the Tor isolation key, see {@link Socks5Handshake})
 */
public record TorAddress(Kind kind, String host, InetAddress ip, int port, String text) {
    /** How the destination is named in the SOCKS5 CONNECT request. */
    public enum Kind {
        /** A {@code .onion} service name (ATYP 03). */
        ONION,
        /** A numeric IPv4 (ATYP 01) or IPv6 (ATYP 04) address. */
        IP,
        /** A fully qualified DNS name that the proxy resolves (ATYP 03). */
        HOSTNAME
    }

    /** The longest domain name a SOCKS5 request carries (one length byte). */
    public static final int MAX_DOMAIN_BYTES = 255;

    /** Checks the parts agree. */
    public TorAddress {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(text, "text");
        if ((kind == Kind.IP) != (ip != null)) {
            throw new IllegalArgumentException("ip is set exactly for Kind.IP");
        }
        if (port < 1 || port > 0xFFFF) {
            throw new IllegalArgumentException("port " + port);
        }
    }

    /**
     * Parses transport address bytes (UTF-8 text).
     *
     * @param addr the bytes
     * @return the parsed address
     * @throws TorAddressException if the bytes are not UTF-8 or the text is not a valid form
     */
    public static TorAddress parse(final byte[] addr) throws TorAddressException {
        return parse(decode(addr, "Tor"));
    }

    /**
     * Parses a Nym transport address (transports.md §6.7): the same forms as {@link #parse(String)} except that a
     * host name needs no dot (the reference sends any host text to {@code nym-socks5-client} as a domain name).
     *
     * @param addr the bytes (UTF-8 text)
     * @return the parsed address
     * @throws TorAddressException if the bytes are not UTF-8 or the text is not {@code host:port}
     */
    public static TorAddress parseNym(final byte[] addr) throws TorAddressException {
        return parseNym(decode(addr, "Nym"));
    }

    /**
     * Parses Nym transport address text: {@link #parse(String)} without the rule that a host name has a dot.
     *
     * @param s the text, e.g. {@code "192.0.2.1:8443"}, {@code "[2001:db8::1]:443"} or {@code "peer:8443"}
     * @return the parsed address
     * @throws TorAddressException naming what is wrong
     */
    public static TorAddress parseNym(final String s) throws TorAddressException {
        return parse(s, false);
    }

    private static String decode(final byte[] addr, final String kind) throws TorAddressException {
        final String s;
        try {
            s = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(addr)).toString();
        } catch (final CharacterCodingException e) {
            throw new TorAddressException(TorAddressException.Problem.NOT_UTF8,
                    kind + " address must be UTF-8 text (" + addr.length + " bytes are not)");
        }
        return s;
    }

    /**
     * Parses transport address text.
     *
     * @param s the text, e.g. {@code "abc...xyz.onion:443"}, {@code "192.0.2.1:8443"}, {@code "[2001:db8::1]:443"}
     *          or {@code "peer.example.com:8443"}
     * @return the parsed address
     * @throws TorAddressException naming what is wrong
     */
    public static TorAddress parse(final String s) throws TorAddressException {
        return parse(s, true);
    }

    private static TorAddress parse(final String s, final boolean qualified) throws TorAddressException {
        Objects.requireNonNull(s, "s");
        final int colon = s.lastIndexOf(':');
        if (s.contains(".onion:")) {
            final String host = s.substring(0, colon);
            final int port = port(s, s.substring(colon + 1), "onion address");
            checkDomain(s, host);
            return new TorAddress(Kind.ONION, host, null, port, s);
        }
        final TorAddress numeric = numeric(s);
        if (numeric != null) {
            return numeric;
        }
        if (colon < 0) {
            throw new TorAddressException(TorAddressException.Problem.MISSING_PORT,
                    "expected host:port, x.onion:port, a.b.c.d:port or [v6]:port, got \"" + s + "\"");
        }
        final String host = s.substring(0, colon);
        final int port = port(s, s.substring(colon + 1), "address");
        if (host.startsWith("[")) {
            throw new TorAddressException(TorAddressException.Problem.BAD_IPV6,
                    "\"" + host + "\" in \"" + s + "\" is not a bracketed IPv6 address");
        }
        checkDomain(s, host);
        if (qualified && host.indexOf('.') < 0) {
            throw new TorAddressException(TorAddressException.Problem.NOT_QUALIFIED,
                    "host name must be fully qualified (contain a dot) for Tor to resolve it, got \"" + host
                            + "\" in \"" + s + "\"");
        }
        return new TorAddress(Kind.HOSTNAME, host, null, port, s);
    }

    /** @return true when the host goes to the proxy as a domain name (ATYP 03) */
    public boolean isDomain() {
        return kind != Kind.IP;
    }

    @Override
    public String toString() {
        return text;
    }

    private static void checkDomain(final String s, final String host) throws TorAddressException {
        if (host.isEmpty()) {
            throw new TorAddressException(TorAddressException.Problem.EMPTY_HOST, "empty host in \"" + s + "\"");
        }
        final int bytes = host.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_DOMAIN_BYTES) {
            throw new TorAddressException(TorAddressException.Problem.HOST_TOO_LONG, "host name is " + bytes
                    + " bytes, more than the " + MAX_DOMAIN_BYTES + " a SOCKS5 request can carry");
        }
    }

    private static int port(final String s, final String p, final String what) throws TorAddressException {
        if (p.isEmpty() || p.length() > 5) {
            throw badPort(s, what);
        }
        int v = 0;
        for (int i = 0; i < p.length(); i++) {
            final char c = p.charAt(i);
            if (c < '0' || c > '9') {
                throw badPort(s, what);
            }
            v = v * 10 + (c - '0');
        }
        if (v < 1 || v > 0xFFFF) {
            throw badPort(s, what);
        }
        return v;
    }

    private static TorAddressException badPort(final String s, final String what) {
        return new TorAddressException(TorAddressException.Problem.BAD_PORT,
                "invalid port in " + what + " \"" + s + "\" (expected 1-65535)");
    }

    /** @return the IP form, or null when the text is not {@code a.b.c.d:port} or {@code [v6]:port} */
    private static TorAddress numeric(final String s) throws TorAddressException {
        if (s.startsWith("[")) {
            final int close = s.indexOf(']');
            if (close < 0 || close + 1 >= s.length() || s.charAt(close + 1) != ':') {
                return null;
            }
            final String literal = s.substring(1, close);
            if (literal.indexOf(':') < 0) {
                return null;
            }
            final InetAddress a;
            try {
                a = Inet6Address.ofLiteral(literal);
            } catch (final IllegalArgumentException e) {
                return null;
            }
            final int port = port(s, s.substring(close + 2), "address");
            return new TorAddress(Kind.IP, literal, a, port, s);
        }
        final int colon = s.lastIndexOf(':');
        if (colon < 0) {
            return null;
        }
        final byte[] quad = ipv4(s.substring(0, colon));
        if (quad == null) {
            return null;
        }
        final int port = port(s, s.substring(colon + 1), "address");
        try {
            return new TorAddress(Kind.IP, s.substring(0, colon), InetAddress.getByAddress(quad), port, s);
        } catch (final UnknownHostException e) {
            throw new IllegalStateException("4 bytes are an IPv4 address", e);
        }
    }

    /** Strict dotted quad: four decimal octets 0-255 without leading zeros; else null. */
    private static byte[] ipv4(final String h) {
        final byte[] out = new byte[4];
        int part = 0;
        int i = 0;
        while (part < 4) {
            final int start = i;
            int v = 0;
            while (i < h.length() && h.charAt(i) >= '0' && h.charAt(i) <= '9' && i - start < 3) {
                v = v * 10 + (h.charAt(i) - '0');
                i++;
            }
            final int digits = i - start;
            if (digits == 0 || v > 255 || (digits > 1 && h.charAt(start) == '0')) {
                return null;
            }
            out[part++] = (byte) v;
            if (part < 4) {
                if (i >= h.length() || h.charAt(i) != '.') {
                    return null;
                }
                i++;
            }
        }
        return i == h.length() ? out : null;
    }
}
