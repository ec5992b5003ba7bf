package net.fips.gateway;

import java.math.BigInteger;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Locale;

/** IPv6 address helpers: the compressed text the reference prints and the full text the kernel prints. */
final class Addresses {
    private Addresses() {
    }

    /** @return the 16-byte address of a value below 2^128 (wrapping above it) */
    static Inet6Address v6(final BigInteger value) {
        final byte[] raw = value.toByteArray();
        final byte[] b = new byte[16];
        final int n = Math.min(16, raw.length);
        System.arraycopy(raw, raw.length - n, b, 16 - n, n);
        return v6(b);
    }

    /** @return the address of 16 bytes */
    static Inet6Address v6(final byte[] b) {
        try {
            return (Inet6Address) InetAddress.getByAddress(b);
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("need 16 bytes", e);
        }
    }

    /** @return RFC 5952 text ({@code fd01::1}), as the reference's control JSON and nft rules show addresses */
    static String text(final Inet6Address a) {
        final byte[] b = a.getAddress();
        final int[] g = new int[8];
        for (int i = 0; i < 8; i++) {
            g[i] = (b[2 * i] & 0xFF) << 8 | b[2 * i + 1] & 0xFF;
        }
        int bestAt = -1;
        int bestLen = 1;
        for (int i = 0; i < 8;) {
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestAt = i;
                bestLen = j - i;
            }
            i = j == i ? i + 1 : j;
        }
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            if (i == bestAt) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    /** @return the kernel's full form in {@code /proc/net/nf_conntrack} ({@code fd01:0000:...:0001}) */
    static String fullText(final Inet6Address a) {
        final String hex = HexFormat.of().formatHex(a.getAddress()).toLowerCase(Locale.ROOT);
        final StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
