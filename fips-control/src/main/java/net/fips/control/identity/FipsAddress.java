package net.fips.control.identity;

import java.net.Inet6Address;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Objects;

import net.fips.control.identity.IdentityFormatException.Problem;
import net.fips.dataplane.wire.NodeAddr;

/**
 * A node's FIPS IPv6 address in {@code fd00::/8}: {@code 0xfd} followed by the first 15 bytes of its node_addr
 * (the last node_addr byte is not visible). Immutable.
 */
public final class FipsAddress {
    /** First byte of every FIPS address. */
    public static final int PREFIX = 0xfd;
    /** Bytes in an address. */
    public static final int LENGTH = 16;

    private final byte[] bytes;

    private FipsAddress(final byte[] bytes) {
        this.bytes = bytes;
    }

    /**
     * @param nodeAddr the node_addr
     * @return {@code fd || nodeAddr[0..15]}
     */
    public static FipsAddress fromNodeAddr(final NodeAddr nodeAddr) {
        final byte[] b = new byte[LENGTH];
        b[0] = (byte) PREFIX;
        System.arraycopy(nodeAddr.toBytes(), 0, b, 1, LENGTH - 1);
        return new FipsAddress(b);
    }

    /**
     * @param bytes 16 bytes starting with {@code 0xfd} (copied)
     * @return the address
     * @throws IdentityFormatException when the length or the prefix is wrong
     */
    public static FipsAddress of(final byte[] bytes) throws IdentityFormatException {
        Objects.requireNonNull(bytes, "bytes");
        if (bytes.length != LENGTH) {
            throw new IdentityFormatException(Problem.WRONG_LENGTH,
                    "invalid FIPS address: expected 16 bytes, got " + bytes.length);
        }
        if ((bytes[0] & 0xff) != PREFIX) {
            throw new IdentityFormatException(Problem.INVALID_KEY,
                    String.format("invalid FIPS address prefix: expected 0xfd, got 0x%02x", bytes[0] & 0xff));
        }
        return new FipsAddress(bytes.clone());
    }

    /**
     * @param address an IPv6 address
     * @return it as a FIPS address
     * @throws IdentityFormatException when it is not in {@code fd00::/8}
     */
    public static FipsAddress of(final Inet6Address address) throws IdentityFormatException {
        return of(address.getAddress());
    }

    /**
     * @param nodeAddr a node_addr
     * @return true when this address is the one {@code nodeAddr} maps to (first 15 bytes match)
     */
    public boolean matches(final NodeAddr nodeAddr) {
        return equals(fromNodeAddr(nodeAddr));
    }

    /** @return a copy of the 16 bytes */
    public byte[] toBytes() {
        return bytes.clone();
    }

    /** @return the address as a JDK IPv6 address (no scope, no host name) */
    public Inet6Address toInet6Address() {
        try {
            return Inet6Address.getByAddress(null, bytes.clone(), -1);
        } catch (final UnknownHostException e) {
            throw new IllegalStateException("16 bytes are always an IPv6 address", e);
        }
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof FipsAddress other && Arrays.equals(bytes, other.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    /** @return the RFC 5952 text form, as the reference prints it (e.g. {@code fd00:dc7a:5def:...}) */
    @Override
    public String toString() {
        return format(bytes);
    }

    /**
     * Formats 16 bytes as RFC 5952 text: lowercase, no leading zeros, the longest run of two or more zero groups
     * (the first on a tie) shortened to {@code ::}. The JDK's {@code getHostAddress()} never shortens zero runs,
     * so it cannot be used for text the reference compares or prints. (IPv4-mapped forms never occur in
     * {@code fd00::/8} and are not special-cased.)
     *
     * @param addr 16 bytes
     * @return the text form
     */
    public static String format(final byte[] addr) {
        if (addr.length != LENGTH) {
            throw new IllegalArgumentException("IPv6 address must be 16 bytes");
        }
        final int[] groups = new int[8];
        for (int i = 0; i < 8; i++) {
            groups[i] = ((addr[2 * i] & 0xff) << 8) | (addr[2 * i + 1] & 0xff);
        }
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8;) {
            if (groups[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && groups[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(groups[i]));
        }
        return sb.toString();
    }
}
