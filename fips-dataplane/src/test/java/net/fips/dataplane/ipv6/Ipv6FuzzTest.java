package net.fips.dataplane.ipv6;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Random;

import org.junit.jupiter.api.Test;

import net.fips.dataplane.wire.Ipv6Shim;
import net.fips.dataplane.wire.NodeAddr;

/**
 * Seeded fuzz over every parser and builder of the package: random and mutated inputs at random (also out of
 * range) offsets; nothing may throw, and in-place functions may only write inside the region they own.
 */
class Ipv6FuzzTest {
    private static final int ROUNDS = 20_000;

    private static byte[] seedPacket(final Random r) {
        final byte[] src = TestPackets.addr("fd41::1");
        final byte[] dst = TestPackets.addr("fddf::2");
        final byte[] tcp = new byte[20 + 4 * r.nextInt(11)];
        tcp[12] = (byte) ((tcp.length / 4) << 4);
        tcp[13] = 0x02;
        for (int i = 20; i < tcp.length; i++) {
            tcp[i] = (byte) (r.nextInt(4) == 0 ? 2 : r.nextInt(6));
        }
        final int nh = switch (r.nextInt(4)) {
            case 0 -> 17;
            case 1 -> 58;
            default -> 6;
        };
        final byte[] payload = Arrays.copyOf(tcp, tcp.length + r.nextInt(64));
        return TestPackets.ipv6(r.nextInt(256), r.nextInt(1 << 20), nh, r.nextInt(256), src, dst, payload);
    }

    private static byte[] input(final Random r) {
        if (r.nextInt(4) == 0) {
            final byte[] b = new byte[r.nextInt(80)];
            r.nextBytes(b);
            final byte[] head = {0x00, 0x01, 0x00, 0x01, 0x00};
            System.arraycopy(head, 0, b, 0, Math.min(b.length, r.nextInt(6)));
            return b;
        }
        if (r.nextBoolean()) {
            final byte[] b = new byte[r.nextInt(160)];
            r.nextBytes(b);
            if (b.length > 0 && r.nextBoolean()) {
                b[0] = (byte) (0x60 | (b[0] & 0x0F));
            }
            return b;
        }
        final byte[] p = seedPacket(r);
        for (int k = r.nextInt(4); k > 0; k--) {
            p[r.nextInt(p.length)] = (byte) r.nextInt(256);
        }
        return r.nextInt(5) == 0 ? Arrays.copyOf(p, r.nextInt(p.length + 1)) : p;
    }

    private static void assertOutsideUnchanged(final byte[] before, final MemorySegment after, final long from,
            final long to) {
        for (int i = 0; i < before.length; i++) {
            if (i >= from && i < to) {
                continue;
            }
            assertEquals(before[i], after.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " outside the region");
        }
    }

    @Test
    void nothingThrowsAndNothingWritesOutOfRegion() {
        final Random r = new Random(0x1A6_5EEDL);
        final MemorySegment out = MemorySegment.ofArray(new byte[1400]);
        final PtbRateLimiter limiter = new PtbRateLimiter(64, 5);
        int clamped = 0;
        int decoded = 0;
        for (int round = 0; round < ROUNDS; round++) {
            final byte[] in = input(r);
            final int pad = r.nextInt(40);
            final byte[] buf = new byte[pad + in.length + r.nextInt(8)];
            System.arraycopy(in, 0, buf, pad, in.length);
            final MemorySegment s = MemorySegment.ofArray(buf);
            // mostly the true region, sometimes a bogus window
            final long off = r.nextInt(8) == 0 ? r.nextInt(buf.length + 3) - 1 : pad;
            final long len = r.nextInt(8) == 0 ? r.nextInt(buf.length + 3) - 1 : in.length;

            Ipv6Packet.validate(s, off, len);
            if (Ipv6Packet.checkHeader(s, off, len) == Ipv6Packet.OK) {
                Ipv6Packet.trafficClass(s, off);
                limiter.shouldSend(Ipv6Packet.srcHi(s, off), Ipv6Packet.srcLo(s, off), round);
            }
            Icmpv6Errors.shouldSendError(s, off, len);
            final int du = Icmpv6Errors.destinationUnreachable(s, off, len, 0, 1, 2, out, r.nextInt(200));
            final int pt = Icmpv6Errors.packetTooBigForTun(s, off, len, 1203, out, r.nextInt(200));
            for (final int n : new int[] {du, pt}) {
                assertTrue(n == Icmpv6Errors.SUPPRESSED || n == Icmpv6Errors.ERR_NO_ROOM || n >= 48 && n <= 1280);
            }

            final byte[] before = buf.clone();
            final int c = TcpMssClamp.clamp(s, off, len, r.nextInt(1500));
            if (c == TcpMssClamp.CLAMPED) {
                clamped++;
            } else {
                assertEquals(Arrays.toString(before), Arrays.toString(buf), "untouched unless clamped");
            }
            assertOutsideUnchanged(before, s, off, off + len);
            final byte[] beforeRecalc = buf.clone();
            TcpMssClamp.recalculateL4Checksum(s, off, len);
            assertOutsideUnchanged(beforeRecalc, s, off, off + len);

            Ipv6Shim.compress(s, off, len);
            Ipv6Shim.decompress(s, off, len, NodeAddr.ZERO, new byte[16]);
            ShimBody.encodeTo(s, off, len, out, r.nextInt(1400));
            ShimBody.decodeTo(s, off, len, out, r.nextInt(1400), 1, 2, 3, 4);

            final byte[] beforeDecode = buf.clone();
            final long pkt = ShimBody.decodeInPlace(s, off, len, 1, 2, 3, 4);
            if (pkt >= 0) {
                decoded++;
                assertEquals(off - 29, pkt);
            }
            assertOutsideUnchanged(beforeDecode, s, off - 29, off + len);

            final byte[] beforeEncode = buf.clone();
            final long body = ShimBody.encodeInPlace(s, off, len);
            if (body >= 0) {
                assertEquals(off + 29, body);
            }
            assertOutsideUnchanged(beforeEncode, s, off, off + len);
        }
        assertTrue(clamped > 20, "the fuzz reaches the clamp: " + clamped);
        assertTrue(decoded > 0, "the fuzz reaches decode: " + decoded);
    }
}
