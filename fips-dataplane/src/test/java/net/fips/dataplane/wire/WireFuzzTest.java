package net.fips.dataplane.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import java.lang.foreign.ValueLayout;
import java.util.function.Consumer;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

/**
 * Bounded, seeded fuzzing of every decoder and flyweight in this package: for each, 5,000 random inputs and 5,000
 * mutations of the vector encodings it accepts. Each input must yield a value or a {@link WireError} (never an
 * exception); decoding the same bytes embedded at a random offset in a larger, garbage-filled buffer must give the
 * same outcome (no reads outside the window); and every accepted value must round-trip through its encoder.
 */
class WireFuzzTest {
    private static final int RANDOM_INPUTS = 5_000;
    private static final int MUTATIONS = 5_000;
    private static final long SEED = 0x5EED_F1F5L;
    private static final NodeAddr SOME_NODE = NodeAddr.ofHex("5d15cf396f692341602359869f441813");
    private static final byte[] SOME_IPV6 = Ipv6Shim.fipsAddress(NodeAddr.ofHex("e606a3d8531734db915fd56934470f7f"));

    /** A decoder over a window of a segment. */
    @FunctionalInterface
    interface SegDecoder {
        WireResult<?> decode(MemorySegment seg, long off, long len);
    }

    /** Checks one accepted value against the input that produced it. */
    @FunctionalInterface
    interface RoundTrip {
        void check(Object value, byte[] input);
    }

    /**
     * @param name        for messages
     * @param decoder     the decoder or flyweight wrap
     * @param fingerprint canonical bytes of an accepted value (computed right away: flyweights are re-pointed)
     * @param roundTrip   the round-trip property
     */
    record Target(String name, SegDecoder decoder, Function<Object, byte[]> fingerprint, RoundTrip roundTrip) {
    }

    /** A record codec: fingerprint = encode; property: decode(encode(v)) == v and encoding is a fixed point. */
    private static Target record(final String name, final SegDecoder d, final Function<Object, byte[]> enc) {
        return new Target(name, d, enc, (v, in) -> {
            final byte[] again = enc.apply(v);
            final WireResult<?> r = d.decode(MemorySegment.ofArray(again), 0, again.length);
            assertTrue(r.isOk(), () -> name + ": re-encoding of " + v + " refused: " + r.errorOrNull());
            assertEquals(v, r.valueOrNull(), name + ": value round trip");
            assertArrayEquals(again, enc.apply(r.valueOrNull()), name + ": encoding fixed point");
        });
    }

    /** A flyweight: fingerprint = the header rebuilt from its fields, which must equal the wrapped bytes. */
    private static Target flyweight(final String name, final SegDecoder d, final int size,
            final Function<Object, byte[]> rebuild) {
        return new Target(name, d, rebuild, (v, in) -> assertArrayEquals(Arrays.copyOf(in, size), rebuild.apply(v),
                name + ": header rebuilt from its fields"));
    }

    private static byte[] seg(final int size, final Consumer<MemorySegment> w) {
        final byte[] out = new byte[size];
        w.accept(MemorySegment.ofArray(out));
        return out;
    }

    static List<Target> targets() {
        final List<Target> t = new ArrayList<>();
        t.add(flyweight("FmpPrefix", (s, o, l) -> new FmpPrefix().wrap(s, o, l), 4, v -> {
            final FmpPrefix p = (FmpPrefix) v;
            return seg(4, s -> FmpPrefix.write(s, 0, p.phase(), p.flags(), p.payloadLen()));
        }));
        t.add(flyweight("FmpEstablishedHeader", (s, o, l) -> new FmpEstablishedHeader().wrap(s, o, l), 16, v -> {
            final FmpEstablishedHeader h = (FmpEstablishedHeader) v;
            return FmpEstablishedHeader.build(h.flags(), h.payloadLen(), h.receiverIdx(), h.counter());
        }));
        t.add(flyweight("FmpInnerHeader", (s, o, l) -> new FmpInnerHeader().wrap(s, o, l), 5, v -> {
            final FmpInnerHeader h = (FmpInnerHeader) v;
            return FmpInnerHeader.prepend(h.timestamp(), new byte[] {(byte) h.msgType()});
        }));
        t.add(flyweight("SessionDatagramHeader", (s, o, l) -> new SessionDatagramHeader().wrap(s, o, l), 36, v -> {
            final SessionDatagramHeader h = (SessionDatagramHeader) v;
            return seg(36, s -> SessionDatagramHeader.write(s, 0, h.ttl(), h.pathMtu(), h.src(), h.dest()));
        }));
        t.add(new Target("FspPrefix", (s, o, l) -> new FspPrefix().wrap(s, o, l), v -> {
            final FspPrefix p = (FspPrefix) v;
            final byte[] b = seg(4, s -> FspPrefix.write(s, 0, p.phase(), p.flags(), p.payloadLen()));
            b[0] |= (byte) (p.version() << 4);
            return b;
        }, (v, in) -> {
            final FspPrefix p = (FspPrefix) v;
            assertArrayEquals(Arrays.copyOf(in, 4), seg(4, s -> {
                FspPrefix.write(s, 0, p.phase(), p.flags(), p.payloadLen());
                s.set(ValueLayout.JAVA_BYTE, 0, (byte) ((p.version() << 4) | p.phase()));
            }));
        }));
        t.add(flyweight("FspHeader", (s, o, l) -> new FspHeader().wrap(s, o, l), 12, v -> {
            final FspHeader h = (FspHeader) v;
            return FspHeader.build(h.counter(), h.flags(), h.payloadLen());
        }));
        t.add(flyweight("FspInnerHeader", (s, o, l) -> new FspInnerHeader().wrap(s, o, l), 6, v -> {
            final FspInnerHeader h = (FspInnerHeader) v;
            return FspInnerHeader.prepend(h.timestamp(), h.msgType(), h.innerFlags(), new byte[0]);
        }));
        t.add(flyweight("PortHeader", (s, o, l) -> new PortHeader().wrap(s, o, l), 4, v -> {
            final PortHeader h = (PortHeader) v;
            return seg(4, s -> PortHeader.write(s, 0, h.srcPort(), h.dstPort()));
        }));

        t.add(record("Coords", Coords::decode, v -> ((Coords) v).encode()));
        t.add(record("FmpMsg1", FmpMsg1::decode, v -> ((FmpMsg1) v).encode()));
        t.add(record("FmpMsg2", FmpMsg2::decode, v -> ((FmpMsg2) v).encode()));
        t.add(record("SessionDatagram", SessionDatagram::decode, v -> ((SessionDatagram) v).encode()));
        t.add(record("Disconnect", Disconnect::decode, v -> ((Disconnect) v).encode()));
        t.add(record("Heartbeat", Heartbeat::decode, v -> ((Heartbeat) v).encode()));
        t.add(record("MmpSenderReport.link", MmpSenderReport::decodeLink, v -> ((MmpSenderReport) v).encodeLink()));
        t.add(record("MmpSenderReport.session", MmpSenderReport::decodeSession,
                v -> ((MmpSenderReport) v).encodeSession()));
        t.add(record("MmpReceiverReport.link", MmpReceiverReport::decodeLink,
                v -> ((MmpReceiverReport) v).encodeLink()));
        t.add(record("MmpReceiverReport.session", MmpReceiverReport::decodeSession,
                v -> ((MmpReceiverReport) v).encodeSession()));
        t.add(record("TreeAnnounce", TreeAnnounce::decode, v -> ((TreeAnnounce) v).encode()));
        t.add(record("FilterAnnounce", FilterAnnounce::decode, v -> ((FilterAnnounce) v).encode()));
        t.add(record("LookupRequest", LookupRequest::decode, v -> ((LookupRequest) v).encode()));
        t.add(record("LookupResponse", LookupResponse::decode, v -> ((LookupResponse) v).encode()));
        t.add(record("SessionSetup", SessionSetup::decode, v -> ((SessionSetup) v).encode()));
        t.add(record("SessionAck", SessionAck::decode, v -> ((SessionAck) v).encode()));
        t.add(record("SessionMsg3", SessionMsg3::decode, v -> ((SessionMsg3) v).encode()));
        t.add(record("FspErrorSignal", FspErrorSignal::decode, v -> ((FspErrorSignal) v).encode()));
        t.add(record("CoordsRequired", CoordsRequired::decode, v -> ((CoordsRequired) v).encode()));
        t.add(record("PathBroken", PathBroken::decode, v -> ((PathBroken) v).encode()));
        t.add(record("MtuExceeded", MtuExceeded::decode, v -> ((MtuExceeded) v).encode()));
        t.add(record("PathMtuNotification", PathMtuNotification::decode,
                v -> ((PathMtuNotification) v).encode()));
        t.add(record("FspCpCoords", FspCpCoords::decode, v -> ((FspCpCoords) v).encode()));
        t.add(record("DataPacket", DataPacket::decode, v -> ((DataPacket) v).encode()));
        t.add(new Target("Ipv6Shim.compress", Ipv6Shim::compress, v -> (byte[]) v, (v, in) -> {
            final byte[] c = (byte[]) v;
            final byte[] ip = Ipv6Shim.decompress(c, 0, c.length, SOME_NODE, SOME_IPV6).valueOrNull();
            assertNotNull(ip, "compressed output must decompress");
            assertArrayEquals(c, Ipv6Shim.compress(ip, 0, ip.length).valueOrNull(), "compress round trip");
        }));
        t.add(new Target("Ipv6Shim.decompress", (s, o, l) -> Ipv6Shim.decompress(s, o, l, SOME_NODE, SOME_IPV6),
                v -> (byte[]) v, (v, in) -> {
                    final byte[] ip = (byte[]) v;
                    final byte[] want = in.clone();
                    want[1] = (byte) ((want[1] & 0x0F) | 0x60);
                    assertArrayEquals(want, Ipv6Shim.compress(ip, 0, ip.length).valueOrNull(),
                            "decompress round trip");
                }));
        return t;
    }

    /** Every hex blob in the vector files, plus suffixes where nested structures start. */
    static List<byte[]> corpus() {
        final Set<String> hex = new LinkedHashSet<>();
        for (final String f : List.of("wire_link.json", "wire_session.json", "bloom.json", "tree_announce.json",
                "fmp_frame.json", "fsp_message.json")) {
            collect(Vectors.load(f), hex);
        }
        final List<byte[]> out = new ArrayList<>();
        for (final String h : hex) {
            final byte[] b = Vectors.HEX.parseHex(h);
            for (final int k : new int[] {0, 1, 4, 5, 6, 12, 36}) {
                if (b.length >= k) {
                    out.add(Arrays.copyOfRange(b, k, b.length));
                }
            }
        }
        return out;
    }

    private static void collect(final JsonNode n, final Set<String> out) {
        if (n.isTextual() && n.asText().matches("([0-9a-f]{2})+")) {
            out.add(n.asText());
        } else if (n.isContainerNode()) {
            for (final Map.Entry<String, JsonNode> e : n.properties()) {
                collect(e.getValue(), out);
            }
            if (n.isArray()) {
                n.forEach(c -> collect(c, out));
                // An array of node addresses is a coordinate: add its wire form too.
                final List<String> addrs = new ArrayList<>();
                n.forEach(c -> addrs.add(c.asText()));
                if (!addrs.isEmpty() && addrs.stream().allMatch(a -> a.matches("[0-9a-f]{32}"))) {
                    out.add(String.format("%02x%02x", addrs.size() & 0xFF, addrs.size() >>> 8)
                            + String.join("", addrs));
                }
            }
        }
    }

    @Test
    void everyDecoderOnlyReturnsValuesOrErrorsAndRoundTrips() {
        final List<byte[]> corpus = corpus();
        final long start = System.nanoTime();
        int accepted = 0;
        int total = 0;
        for (final Target t : targets()) {
            final Random rnd = new Random(SEED ^ t.name().hashCode());
            final List<byte[]> seeds = new ArrayList<>();
            for (final byte[] c : corpus) {
                if (run(t, c, rnd)) {
                    seeds.add(c);
                }
            }
            assertTrue(!seeds.isEmpty(), t.name() + ": no vector encoding decodes, mutations would be meaningless");
            for (int i = 0; i < RANDOM_INPUTS; i++) {
                accepted += run(t, randomInput(rnd, seeds), rnd) ? 1 : 0;
            }
            for (int i = 0; i < MUTATIONS; i++) {
                accepted += run(t, mutate(rnd, seeds.get(rnd.nextInt(seeds.size()))), rnd) ? 1 : 0;
            }
            total += RANDOM_INPUTS + MUTATIONS;
        }
        final double secs = (System.nanoTime() - start) / 1e9;
        System.out.printf("wire fuzz: %d inputs over %d decoders, %d accepted, %.1f s%n", total, targets().size(),
                accepted, secs);
        assertTrue(accepted > 0);
    }

    /** Decodes {@code in} standalone and embedded; returns whether it was accepted. */
    static boolean run(final Target t, final byte[] in, final Random rnd) {
        final WireResult<?> alone;
        final byte[] print;
        final WireResult<?> embedded;
        final byte[] printEmbedded;
        try {
            alone = t.decoder().decode(MemorySegment.ofArray(in), 0, in.length);
            assertNotNull(alone, t.name() + ": null result");
            print = alone.isOk() ? t.fingerprint().apply(alone.valueOrNull()) : null;
            if (alone.isOk()) {
                t.roundTrip().check(alone.valueOrNull(), in);
            }
            final int off = rnd.nextInt(9);
            final byte[] big = new byte[off + in.length + rnd.nextInt(9)];
            rnd.nextBytes(big);
            System.arraycopy(in, 0, big, off, in.length);
            embedded = t.decoder().decode(MemorySegment.ofArray(big), off, in.length);
            printEmbedded = embedded.isOk() ? t.fingerprint().apply(embedded.valueOrNull()) : null;
        } catch (final RuntimeException e) {
            throw new AssertionError(t.name() + " threw on " + Vectors.HEX.formatHex(in), e);
        }
        if (alone.errorOrNull() != embedded.errorOrNull() || !Arrays.equals(print, printEmbedded)) {
            fail(t.name() + ": outcome depends on bytes outside the window for " + Vectors.HEX.formatHex(in));
        }
        return alone.isOk();
    }

    private static byte[] randomInput(final Random rnd, final List<byte[]> seeds) {
        final byte[] like = seeds.get(rnd.nextInt(seeds.size()));
        final int choice = rnd.nextInt(10);
        final int len = choice < 5 ? rnd.nextInt(65) : choice < 8 ? rnd.nextInt(300)
                : Math.max(0, like.length + rnd.nextInt(5) - 2);
        final byte[] b = new byte[len];
        rnd.nextBytes(b);
        if (rnd.nextBoolean()) {
            // Keep a valid-looking type/prefix so that the input reaches the deeper checks.
            System.arraycopy(like, 0, b, 0, Math.min(len, Math.min(like.length, 1 + rnd.nextInt(12))));
        }
        return b;
    }

    private static byte[] mutate(final Random rnd, final byte[] seed) {
        byte[] b = seed.clone();
        final int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            final int op = rnd.nextInt(7);
            if (b.length == 0 && op < 5) {
                b = new byte[] {(byte) rnd.nextInt(256)};
                continue;
            }
            final int at = b.length == 0 ? 0 : rnd.nextInt(b.length);
            switch (op) {
                case 0 -> b[at] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> b[at] = (byte) rnd.nextInt(256);
                case 2 -> b[at] = (byte) (rnd.nextBoolean() ? 0 : 0xFF);
                case 3 -> b = Arrays.copyOf(b, at);
                case 4 -> {
                    final byte[] c = new byte[b.length - 1];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, at + 1, c, at, b.length - at - 1);
                    b = c;
                }
                case 5 -> {
                    final byte[] c = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(40));
                    for (int k = b.length; k < c.length; k++) {
                        c[k] = (byte) rnd.nextInt(256);
                    }
                    b = c;
                }
                default -> {
                    // Overwrite a u16 (counts and lengths) with an extreme or small value.
                    if (b.length >= 2) {
                        final int p = rnd.nextInt(b.length - 1);
                        final int v = switch (rnd.nextInt(4)) {
                            case 0 -> 0;
                            case 1 -> 0xFFFF;
                            case 2 -> 1;
                            default -> rnd.nextInt(8);
                        };
                        b[p] = (byte) v;
                        b[p + 1] = (byte) (v >>> 8);
                    }
                }
            }
        }
        return b;
    }
}
