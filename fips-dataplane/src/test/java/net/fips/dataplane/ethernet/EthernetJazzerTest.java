package net.fips.dataplane.ethernet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import net.fips.dataplane.wire.WireResult;
import net.fips.ffm.linux.PacketSockets;

/**
 * Coverage-guided fuzzing (Jazzer) of what decodes a received Ethernet frame: {@link EthernetReceiver}'s per-frame
 * classification (the code the transport's event loop runs for each frame {@code recvmmsg} returns, driven here
 * without the socket) with data frames, discovery beacons and anything else, and {@link EthernetFrame#wrap}.
 *
 * <p>The first input byte picks the packet type and the truncation flag the kernel would report, the next six the
 * source MAC, the rest is the frame. Contract: exactly one outcome per frame, counted (a data frame recorded with
 * its declared length, which fits the frame; a beacon taken for discovery exactly when {@link EthernetFrame#wrap}
 * accepts it, with the key bytes of the frame, not from group MACs; or one drop counter), agreeing with
 * {@link EthernetFrame#wrap}; an accepted beacon re-encodes to the frame's first 34 bytes and a data frame's header
 * to its first 3.
 *
 * <p>A plain test run replays the committed corpus under
 * {@code src/test/resources/net/fips/dataplane/ethernet/EthernetJazzerTestInputs/receive/}; with
 * {@code JAZZER_FUZZ=1} Jazzer fuzzes it, see {@code benchmarks/fuzz.sh}. Seeds: {@link #writeSeeds()}.
 */
class EthernetJazzerTest {
    private static final int CAPACITY = 1600;
    private static final int OFFSET = 64;
    private static final List<String> OUTCOMES = List.of("frames_recv", "beacons_recv", "frames_too_short",
            "frames_too_long", "frames_unknown_type", "frames_other_host");

    private final EthernetCounters counters = new EthernetCounters();
    private final EthernetReceiver receiver = new EthernetReceiver(Arena.ofAuto(), 1, -1, true, counters);
    private final MemorySegment slot = Arena.ofAuto().allocate(OFFSET + CAPACITY, 8);
    private final FrameReceiveBatch batch = new FrameReceiveBatch(1);

    private Map<String, Long> outcomes() {
        final Map<String, Long> all = counters.snapshot();
        final Map<String, Long> m = new HashMap<>();
        for (final String k : OUTCOMES) {
            m.put(k, all.getOrDefault(k, 0L));
        }
        m.put("beacons_malformed", all.getOrDefault("beacons_malformed", 0L));
        return m;
    }

    @FuzzTest
    void receive(final byte[] in) {
        if (in.length < 7) {
            return;
        }
        final int packetType = switch (in[0] & 7) {
            case 1 -> PacketSockets.PACKET_OTHERHOST;
            case 2 -> PacketSockets.PACKET_OUTGOING;
            default -> PacketSockets.PACKET_HOST;
        };
        final boolean truncated = (in[0] & 8) != 0;
        long mac = 0;
        for (int i = 1; i < 7; i++) {
            mac = mac << 8 | (in[i] & 0xFF);
        }
        final byte[] frame = Arrays.copyOfRange(in, 7, Math.min(in.length, 7 + CAPACITY));
        final long start = OFFSET - EthernetFrame.DATA_HEADER_SIZE;
        MemorySegment.copy(frame, 0, slot, ValueLayout.JAVA_BYTE, start, frame.length);
        batch.slot(0, slot, OFFSET, CAPACITY - EthernetFrame.DATA_HEADER_SIZE);
        batch.offer(1);
        batch.count = 0;
        receiver.drainBeacons();
        final Map<String, Long> before = outcomes();
        receiver.onFrame(batch, 0, packetType, truncated, frame.length, mac);
        final Map<String, Long> after = outcomes();
        int moved = 0;
        String which = null;
        for (final String k : OUTCOMES) {
            if (after.get(k) != before.get(k).longValue()) {
                assertEquals(before.get(k) + 1, after.get(k), k);
                moved++;
                which = k;
            }
        }
        assertEquals(1, moved, "exactly one outcome per frame");
        final WireResult<EthernetFrame> wrapped = new EthernetFrame().wrap(frame, 0, frame.length);
        final List<DiscoveredBeacon> beacons = receiver.drainBeacons();
        if (packetType != PacketSockets.PACKET_HOST) {
            assertEquals("frames_other_host", which);
        } else if (truncated) {
            assertEquals("frames_too_long", which);
        } else if ("frames_recv".equals(which)) {
            assertTrue(wrapped.isOk(), "a recorded data frame is a valid one");
            final EthernetFrame f = wrapped.valueOrNull();
            assertEquals(EthernetFrame.TYPE_DATA, f.type());
            assertEquals(1, batch.count());
            assertEquals(f.payloadLength(), batch.length(0), "the declared payload length");
            assertTrue(batch.length(0) <= frame.length - EthernetFrame.DATA_HEADER_SIZE, "inside the frame");
            assertEquals(mac, batch.source(0));
            final byte[] header = new byte[EthernetFrame.DATA_HEADER_SIZE];
            EthernetFrame.writeDataHeader(MemorySegment.ofArray(header), 0, batch.length(0));
            assertArrayEquals(Arrays.copyOf(frame, EthernetFrame.DATA_HEADER_SIZE), header, "header round trip");
        } else if ("beacons_recv".equals(which)) {
            assertEquals(EthernetFrame.TYPE_BEACON, frame[0] & 0xFF);
            final boolean malformed = after.get("beacons_malformed") == before.get("beacons_malformed") + 1;
            assertEquals(!wrapped.isOk(), malformed, "a beacon is malformed exactly when wrap refuses it");
            if (wrapped.isOk() && !MacAddress.isGroup(mac)) {
                assertEquals(1, beacons.size(), "a valid beacon from a unicast MAC is discovered");
                assertEquals(mac, beacons.get(0).mac());
                assertArrayEquals(Arrays.copyOfRange(frame, EthernetFrame.KEY_OFFSET, EthernetFrame.BEACON_SIZE),
                        beacons.get(0).xOnlyKey());
                assertArrayEquals(Arrays.copyOf(frame, EthernetFrame.BEACON_SIZE),
                        EthernetFrame.beacon(beacons.get(0).xOnlyKey()), "beacon round trip");
            } else {
                assertEquals(0, beacons.size(), "nothing discovered from a bad beacon or a group MAC");
            }
            assertEquals(0, batch.count());
        } else {
            assertTrue(!wrapped.isOk() || "frames_unknown_type".equals(which), which + " for a frame wrap accepts");
            assertEquals(0, batch.count());
            assertTrue(beacons.isEmpty());
        }
    }

    /** Writes the seed corpus. Run once by hand when a target is added. */
    @Test
    @EnabledIfSystemProperty(named = "fips.fuzz.writeSeeds", matches = ".+")
    void writeSeeds() throws IOException {
        final Path dir = Files.createDirectories(Path.of(System.getProperty("fips.fuzz.writeSeeds"),
                "net/fips/dataplane/ethernet", "EthernetJazzerTestInputs", "receive"));
        final byte[] mac = {0, 2, 0x11, 0x22, 0x33, 0x44};
        final byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++) {
            key[i] = (byte) (i * 13 + 1);
        }
        final byte[] packet = new byte[60];
        packet[0] = 0x00;
        packet[2] = 56;
        final List<byte[]> seeds = List.of(
                concat(new byte[] {0}, mac, EthernetFrame.dataFrame(packet)),
                concat(new byte[] {0}, mac, EthernetFrame.beacon(key)),
                concat(new byte[] {0}, new byte[] {1, 0, 0x5e, 0, 0, 1}, EthernetFrame.beacon(key)),
                concat(new byte[] {1}, mac, EthernetFrame.dataFrame(packet)));
        for (int i = 0; i < seeds.size(); i++) {
            Files.write(dir.resolve("seed-" + i), seeds.get(i));
        }
    }

    private static byte[] concat(final byte[]... parts) {
        int n = 0;
        for (final byte[] p : parts) {
            n += p.length;
        }
        final byte[] out = new byte[n];
        int o = 0;
        for (final byte[] p : parts) {
            System.arraycopy(p, 0, out, o, p.length);
            o += p.length;
        }
        return out;
    }
}
