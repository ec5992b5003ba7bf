package net.fips.gateway;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * The virtual pool's CIDR (discovery-gateway.md §4.3): {@code addr/len} with 1 <= len <= 128, the address used as
 * written (not masked). The pool holds {@code base+1 .. base+min(2^hostbits, 65 536)-1}, so a /112 has 65 535
 * addresses, a /120 255 and a /126 3.
 *
 * @param text   the CIDR as written, for display
 * @param base   the address as written
 * @param prefix the prefix length
 */
public record PoolCidr(String text, BigInteger base, int prefix) {
    /** The reference's cap on host bits: at most 2^16 addresses are considered. */
    static final int MAX_HOST_BITS = 16;

    /**
     * @param text {@code addr/len}
     * @return the parsed CIDR
     * @throws IllegalArgumentException with the reason when it is not an IPv6 CIDR with a prefix of 1..128
     */
    public static PoolCidr parse(final String text) {
        final int slash = text.indexOf('/');
        if (slash < 0) {
            throw new IllegalArgumentException("expected an IPv6 CIDR such as fd01::/112, got \"" + text + "\"");
        }
        final String addr = text.substring(0, slash);
        final int prefix;
        try {
            prefix = Integer.parseInt(text.substring(slash + 1));
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length in \"" + text + "\"", e);
        }
        if (prefix < 1 || prefix > 128) {
            throw new IllegalArgumentException("prefix length must be between 1 and 128, got " + prefix);
        }
        if (!addr.contains(":") || !addr.matches("[0-9A-Fa-f:.]+")) {
            throw new IllegalArgumentException("not an IPv6 address: \"" + addr + "\"");
        }
        final InetAddress a;
        try {
            a = InetAddress.getByName(addr);
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("not an IPv6 address: \"" + addr + "\"", e);
        }
        if (!(a instanceof Inet6Address)) {
            throw new IllegalArgumentException("not an IPv6 address: \"" + addr + "\"");
        }
        return new PoolCidr(text, new BigInteger(1, a.getAddress()), prefix);
    }

    /** @return the number of usable addresses */
    public int size() {
        final int hostBits = Math.min(128 - prefix, MAX_HOST_BITS);
        return (1 << hostBits) - 1;
    }

    /**
     * @param i 0-based index below {@link #size()}
     * @return address {@code base + 1 + i}
     */
    public Inet6Address address(final int i) {
        if (i < 0 || i >= size()) {
            throw new IndexOutOfBoundsException(i);
        }
        return Addresses.v6(base.add(BigInteger.valueOf(i + 1L)));
    }
}
