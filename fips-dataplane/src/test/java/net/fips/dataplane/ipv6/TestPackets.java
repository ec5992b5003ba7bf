package net.fips.dataplane.ipv6;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Arrays;

/** Test-side packet builders and an independent checksum (plain byte loops, no production code). */
final class TestPackets {
    private TestPackets() {
    }

    static byte[] addr(final String text) {
        try {
            final byte[] b = InetAddress.getByName(text).getAddress();
            if (b.length != 16) {
                throw new IllegalArgumentException(text);
            }
            return b;
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException(text, e);
        }
    }

    static long hi(final byte[] a) {
        return ByteBuffer.wrap(a).getLong(0);
    }

    static long lo(final byte[] a) {
        return ByteBuffer.wrap(a).getLong(8);
    }

    /** An IPv6 packet with the given traffic class, flow label and fields; payload length = payload.length. */
    static byte[] ipv6(final int trafficClass, final int flowLabel, final int nextHeader, final int hopLimit,
            final byte[] src, final byte[] dst, final byte[] payload) {
        final byte[] p = new byte[40 + payload.length];
        p[0] = (byte) (0x60 | (trafficClass >>> 4));
        p[1] = (byte) ((trafficClass << 4) | ((flowLabel >>> 16) & 0x0F));
        p[2] = (byte) (flowLabel >>> 8);
        p[3] = (byte) flowLabel;
        p[4] = (byte) (payload.length >>> 8);
        p[5] = (byte) payload.length;
        p[6] = (byte) nextHeader;
        p[7] = (byte) hopLimit;
        System.arraycopy(src, 0, p, 8, 16);
        System.arraycopy(dst, 0, p, 24, 16);
        System.arraycopy(payload, 0, p, 40, payload.length);
        return p;
    }

    static byte[] ipv6(final String src, final String dst, final int nextHeader, final byte[] payload) {
        return ipv6(0, 0, nextHeader, 64, addr(src), addr(dst), payload);
    }

    static byte[] filled(final int n, final int value) {
        final byte[] b = new byte[n];
        Arrays.fill(b, (byte) value);
        return b;
    }

    /** One's-complement sum over bytes, big-endian words, odd byte padded; folded. */
    static int sum16(final byte[] b, final int from, final int to, final int initial) {
        long s = initial;
        for (int i = from; i < to; i += 2) {
            final int hiByte = b[i] & 0xFF;
            final int loByte = i + 1 < to ? b[i + 1] & 0xFF : 0;
            s += (hiByte << 8) | loByte;
        }
        while ((s >> 16) != 0) {
            s = (s & 0xFFFF) + (s >> 16);
        }
        return (int) s;
    }

    /** Pseudo-header sum of an IPv6 packet's addresses, the given upper length and next header. */
    static int pseudo(final byte[] packet, final int upperLen, final int nextHeader) {
        final int s = sum16(packet, 8, 40, 0);
        return sum16(new byte[] {0, 0, (byte) (upperLen >>> 8), (byte) upperLen, 0, 0, 0, (byte) nextHeader}, 0, 8,
                s);
    }

    /** True when the upper-layer checksum of an IPv6 packet verifies (sum including the field == 0xFFFF). */
    static boolean upperChecksumValid(final byte[] packet, final int upperLen, final int nextHeader) {
        return sum16(packet, 40, 40 + upperLen, pseudo(packet, upperLen, nextHeader)) == 0xFFFF;
    }
}
