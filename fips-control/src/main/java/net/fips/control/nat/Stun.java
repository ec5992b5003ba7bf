package net.fips.control.nat;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The STUN subset NAT traversal uses (RFC 5389/8489; discovery-gateway.md §2.2): a 20-byte Binding request with no
 * attributes, and the reflexive address out of a Binding success response. No MESSAGE-INTEGRITY or FINGERPRINT is
 * sent or checked, as in the reference.
 */
public final class Stun {

    /** The magic cookie of RFC 5389. */
    public static final int MAGIC_COOKIE = 0x2112A442;
    /** Bytes of a STUN header, and of our request. */
    public static final int HEADER_BYTES = 20;
    /** Bytes of a transaction id. */
    public static final int TXID_BYTES = 12;

    private static final int BINDING_REQUEST = 0x0001;
    private static final int BINDING_SUCCESS = 0x0101;
    private static final int MAPPED_ADDRESS = 0x0001;
    private static final int XOR_MAPPED_ADDRESS = 0x0020;
    private static final int SOFTWARE = 0x8022;
    private static final int FAMILY_IPV4 = 0x01;
    private static final int FAMILY_IPV6 = 0x02;

    private Stun() {
    }

    /**
     * @param txid the 12-byte transaction id (random per request)
     * @return the Binding request: type 0x0001, length 0, the cookie, the transaction id
     */
    public static byte[] bindingRequest(final byte[] txid) {
        if (txid.length != TXID_BYTES) {
            throw new IllegalArgumentException("a STUN transaction id has 12 bytes, not " + txid.length);
        }
        final byte[] out = new byte[HEADER_BYTES];
        putU16(out, 0, BINDING_REQUEST);
        putU32(out, 4, MAGIC_COOKIE);
        System.arraycopy(txid, 0, out, 8, TXID_BYTES);
        return out;
    }

    /**
     * A Binding success response as coturn's {@code --stun-only} writes it (§2.2): XOR-MAPPED-ADDRESS, then a
     * SOFTWARE attribute the client skips. For test and lab responders.
     *
     * @param txid   the request's transaction id
     * @param mapped the address the request came from
     * @return the response
     */
    public static byte[] bindingSuccess(final byte[] txid, final InetSocketAddress mapped) {
        final byte[] ip = mapped.getAddress().getAddress();
        final byte[] software = "fips-test".getBytes(StandardCharsets.US_ASCII);
        final int softwarePadded = (software.length + 3) & ~3;
        final int attrs = 4 + 4 + ip.length + 4 + softwarePadded;
        final byte[] out = new byte[HEADER_BYTES + attrs];
        putU16(out, 0, BINDING_SUCCESS);
        putU16(out, 2, attrs);
        putU32(out, 4, MAGIC_COOKIE);
        System.arraycopy(txid, 0, out, 8, TXID_BYTES);
        int at = HEADER_BYTES;
        putU16(out, at, XOR_MAPPED_ADDRESS);
        putU16(out, at + 2, 4 + ip.length);
        out[at + 5] = (byte) (ip.length == 4 ? FAMILY_IPV4 : FAMILY_IPV6);
        putU16(out, at + 6, mapped.getPort() ^ (MAGIC_COOKIE >>> 16));
        for (int i = 0; i < ip.length; i++) {
            out[at + 8 + i] = (byte) (ip[i] ^ out[4 + i]);
        }
        at += 8 + ip.length;
        putU16(out, at, SOFTWARE);
        putU16(out, at + 2, software.length);
        System.arraycopy(software, 0, out, at + 4, software.length);
        return out;
    }

    /**
     * @param datagram the received bytes
     * @param length   how many
     * @return the transaction id of a Binding request (type 0x0001 with the cookie), or null for anything else
     */
    public static byte[] requestTxid(final byte[] datagram, final int length) {
        if (Math.min(length, datagram.length) < HEADER_BYTES || u16(datagram, 0) != BINDING_REQUEST
                || u32(datagram, 4) != MAGIC_COOKIE) {
            return null;
        }
        return Arrays.copyOfRange(datagram, 8, 8 + TXID_BYTES);
    }

    /**
     * The reflexive address in a Binding success response to the request with {@code txid}: the first
     * XOR-MAPPED-ADDRESS or MAPPED-ADDRESS attribute that parses, in packet order; other attributes are skipped.
     *
     * @param datagram the received bytes
     * @param length   how many of them were received
     * @param txid     the request's transaction id
     * @return the address, or null when the datagram is not a success answer to this request or names none (an
     *         error response, another transaction, a truncated or malformed message: the caller keeps waiting)
     */
    public static InetSocketAddress mappedAddress(final byte[] datagram, final int length, final byte[] txid) {
        final int len = Math.min(length, datagram.length);
        if (len < HEADER_BYTES || u16(datagram, 0) != BINDING_SUCCESS || u32(datagram, 4) != MAGIC_COOKIE
                || !Arrays.equals(datagram, 8, 8 + TXID_BYTES, txid, 0, TXID_BYTES)) {
            return null;
        }
        final int end = Math.min(len, HEADER_BYTES + u16(datagram, 2));
        int at = HEADER_BYTES;
        while (at + 4 <= end) {
            final int type = u16(datagram, at);
            final int valueLength = u16(datagram, at + 2);
            final int value = at + 4;
            if (value + valueLength > end) {
                return null;
            }
            if (type == XOR_MAPPED_ADDRESS || type == MAPPED_ADDRESS) {
                final InetSocketAddress found = address(datagram, value, valueLength, type == XOR_MAPPED_ADDRESS);
                if (found != null) {
                    return found;
                }
            }
            at = value + ((valueLength + 3) & ~3);
        }
        return null;
    }

    private static InetSocketAddress address(final byte[] d, final int at, final int length, final boolean xor) {
        if (length < 4) {
            return null;
        }
        final int family = d[at + 1] & 0xff;
        final int addressBytes = family == FAMILY_IPV4 ? 4 : family == FAMILY_IPV6 ? 16 : -1;
        if (addressBytes < 0 || length < 4 + addressBytes) {
            return null;
        }
        int port = u16(d, at + 2);
        final byte[] ip = Arrays.copyOfRange(d, at + 4, at + 4 + addressBytes);
        if (xor) {
            port ^= MAGIC_COOKIE >>> 16;
            // The address is XORed with the cookie followed by the transaction id (header bytes 4..19).
            for (int i = 0; i < addressBytes; i++) {
                ip[i] ^= d[4 + i];
            }
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (final UnknownHostException e) {
            throw new IllegalStateException("4 or 16 address bytes are always valid", e);
        }
    }

    private static int u16(final byte[] b, final int at) {
        return (b[at] & 0xff) << 8 | b[at + 1] & 0xff;
    }

    private static int u32(final byte[] b, final int at) {
        return u16(b, at) << 16 | u16(b, at + 2);
    }

    private static void putU16(final byte[] b, final int at, final int v) {
        b[at] = (byte) (v >>> 8);
        b[at + 1] = (byte) v;
    }

    private static void putU32(final byte[] b, final int at, final int v) {
        putU16(b, at, v >>> 16);
        putU16(b, at + 2, v);
    }
}
