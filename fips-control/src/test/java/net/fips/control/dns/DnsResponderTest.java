package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.DIG_QUERY;
import static net.fips.control.dns.DnsTestSupport.HEX;
import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static net.fips.control.dns.DnsTestSupport.NPUB_B;
import static net.fips.control.dns.DnsTestSupport.decode;
import static net.fips.control.dns.DnsTestSupport.peer;
import static net.fips.control.dns.DnsTestSupport.u16;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.junit.jupiter.api.Test;

import net.fips.control.acl.HostAliases;
import net.fips.control.dns.DnsResponder.Kind;
import net.fips.control.dns.DnsResponder.Result;
import net.fips.control.identity.PeerIdentity;

class DnsResponderTest {
    private final List<PeerIdentity> resolved = new ArrayList<>();
    private final HostAliases hosts = HostAliases.of(Map.of("gateway", NPUB_B));
    private final DnsResponder responder =
            new DnsResponder(FipsNameResolver.hostsThenNpub(() -> hosts), 300, resolved::add);

    private Result ask(final String name, final int qtype) {
        final byte[] q = DnsCodec.encodeQuery(0xBEEF, true, name, qtype, 1232);
        return responder.respond(q, 0, q.length);
    }

    private static byte[] answerAddress(final Result r) {
        final byte[] b = r.response();
        return Arrays.copyOfRange(b, b.length - 16, b.length);
    }

    @Test
    void aaaaForAnNpubAnswersWithItsAddressAndPrimesTheCache() {
        final Result r = responder.respond(DIG_QUERY, 0, DIG_QUERY.length);
        assertEquals(Kind.ANSWERED, r.kind());
        assertEquals(peer(NPUB_A), r.resolved());
        assertEquals(List.of(peer(NPUB_A)), resolved);
        final byte[] b = r.response();
        assertEquals(0x8884, u16(b, 0));
        assertEquals(0x8400, u16(b, 2), "QR|AA, NOERROR, RD not copied");
        assertEquals(1, u16(b, 4));
        assertEquals(1, u16(b, 6));
        assertEquals(0, u16(b, 10), "no OPT in the reply");
        assertArrayEquals(peer(NPUB_A).address().toBytes(), answerAddress(r));
        assertEquals(300, u16(b, b.length - 20));
    }

    @Test
    void ttlIsConfigurable() {
        final DnsResponder r60 = new DnsResponder(FipsNameResolver.hostsThenNpub(() -> hosts), 0x12345678L,
                p -> { });
        final byte[] b = r60.respond(DIG_QUERY, 0, DIG_QUERY.length).response();
        assertEquals(0x1234, u16(b, b.length - 22));
        assertEquals(0x5678, u16(b, b.length - 20));
    }

    @Test
    void hostsNameResolvesCaseInsensitively() {
        for (final String name : List.of("gateway.fips", "GateWay.FIPS", "gateway.Fips.")) {
            final Result r = ask(name, DnsCodec.TYPE_AAAA);
            assertEquals(Kind.ANSWERED, r.kind(), name);
            assertArrayEquals(peer(NPUB_B).address().toBytes(), answerAddress(r), name);
        }
        assertEquals(3, resolved.size());
    }

    @Test
    void npubNameFormsAsTheReference() {
        assertEquals(Kind.ANSWERED, ask(NPUB_A + ".fips.", DnsCodec.TYPE_AAAA).kind(), "trailing dot");
        assertEquals(Kind.ANSWERED, ask(NPUB_A + ".FIPS", DnsCodec.TYPE_AAAA).kind(), "upper-case suffix");
        assertEquals(Kind.ANSWERED, ask(NPUB_A.toUpperCase(Locale.ROOT) + ".fips", DnsCodec.TYPE_AAAA).kind(),
                "an all-upper-case npub is valid bech32");
        final String mixed = "NPUB1" + NPUB_A.substring(5);
        assertEquals(Kind.NXDOMAIN, ask(mixed + ".fips", DnsCodec.TYPE_AAAA).kind(), "mixed case is not");
        assertEquals(Kind.NXDOMAIN, ask("x." + NPUB_A + ".fips", DnsCodec.TYPE_AAAA).kind(), "multi-label");
        assertEquals(Kind.NXDOMAIN, ask(NPUB_A, DnsCodec.TYPE_AAAA).kind(), "bare npub without .fips");
        assertEquals(Kind.NXDOMAIN, ask("gateway", DnsCodec.TYPE_AAAA).kind(), "bare host name");
        assertEquals(Kind.NXDOMAIN, ask("fips", DnsCodec.TYPE_AAAA).kind());
        assertEquals(Kind.NXDOMAIN, ask(NPUB_A + ".fips.com", DnsCodec.TYPE_AAAA).kind());
        assertEquals(Kind.NXDOMAIN, ask("gateway.fip\u017f", DnsCodec.TYPE_AAAA).kind(), "ASCII case folding only");
    }

    @Test
    void otherTypesOfAResolvableNameAreNoDataWithoutPriming() {
        for (final int qtype : new int[] {DnsCodec.TYPE_A, 16, 65, 255}) {
            final Result r = ask("gateway.fips", qtype);
            assertEquals(Kind.NO_DATA, r.kind());
            assertNull(r.resolved());
            assertEquals(0x8400, u16(r.response(), 2));
            assertEquals(0, u16(r.response(), 6), "no answers");
        }
        assertTrue(resolved.isEmpty());
    }

    @Test
    void everythingElseIsNxdomain() {
        for (final String name : List.of("example.com", "unknown.fips", "npub1bad.fips", "gateway.fips.arpa")) {
            for (final int qtype : new int[] {DnsCodec.TYPE_AAAA, DnsCodec.TYPE_A}) {
                final Result r = ask(name, qtype);
                assertEquals(Kind.NXDOMAIN, r.kind(), name);
                assertEquals(0x8403, u16(r.response(), 2), "QR|AA|NXDOMAIN");
                assertEquals(1, u16(r.response(), 4), "question echoed");
                assertEquals(0, u16(r.response(), 6));
            }
        }
        assertTrue(resolved.isEmpty());
    }

    @Test
    void onlyTheFirstQuestionCounts() {
        // q1 unknown.fips AAAA, q2 gateway.fips AAAA -> NXDOMAIN, both questions echoed
        final byte[] q = HEX.parseHex("00090000000200000000000007756e6b6e6f776e046669707300001c0001"
                + "0767617465776179c014001c0001");
        final Result r = responder.respond(q, 0, q.length);
        assertEquals(Kind.NXDOMAIN, r.kind());
        assertEquals(2, u16(r.response(), 4));
        assertEquals(List.of("unknown.fips", "gateway.fips"),
                decode(r.response()).questions().stream().map(DnsQuestion::nameText).toList());
        // reversed: answered for the first, the second echoed
        final byte[] q2 = HEX.parseHex("0009000000020000000000000767617465776179046669707300001c0001"
                + "07756e6b6e6f776ec014001c0001");
        final Result r2 = responder.respond(q2, 0, q2.length);
        assertEquals(Kind.ANSWERED, r2.kind());
        assertEquals(2, u16(r2.response(), 4));
        assertEquals(1, u16(r2.response(), 6));
        assertArrayEquals(peer(NPUB_B).address().toBytes(), answerAddress(r2));
    }

    @Test
    void noQuestionOrMalformedIsDropped() {
        final byte[] none = HEX.parseHex("000101000000000000000000");
        final Result r = responder.respond(none, 0, none.length);
        assertEquals(Kind.DROPPED, r.kind());
        assertEquals(0, r.response().length);
        final byte[] cut = Arrays.copyOf(DIG_QUERY, 40);
        final Result r2 = responder.respond(cut, 0, cut.length);
        assertEquals(Kind.DROPPED, r2.kind());
        assertEquals(DnsFormatException.Problem.TRUNCATED, r2.problem());
        assertTrue(resolved.isEmpty());
    }

    @Test
    void aQueryCutTo512BytesByTheReceiveBufferIsJudgedOnWhatArrived() {
        // a response-flagged or oversized message is still just bytes to the responder
        final byte[] q = DnsCodec.encodeQuery(3, false, "gateway.fips", 28, -1);
        q[2] |= (byte) 0x80;
        assertEquals(Kind.ANSWERED, responder.respond(q, 0, q.length).kind(), "QR in the query is not checked");
    }

    @Test
    void aThrowingResolverMeansNxdomain() {
        final DnsResponder r = new DnsResponder(n -> {
            throw new IllegalStateException("boom");
        }, 300, p -> { });
        assertEquals(Kind.NXDOMAIN, r.respond(DIG_QUERY, 0, DIG_QUERY.length).kind());
    }

    @Test
    void fipsLabelRule() {
        assertEquals("abc", FipsNameResolver.fipsLabel("abc.fips"));
        assertEquals("abc", FipsNameResolver.fipsLabel("abc.FiPs."));
        assertEquals("a.b", FipsNameResolver.fipsLabel("a.b.fips"));
        assertEquals("", FipsNameResolver.fipsLabel(".fips"));
        assertNull(FipsNameResolver.fipsLabel("fips"));
        assertNull(FipsNameResolver.fipsLabel("abcfips"));
        assertNull(FipsNameResolver.fipsLabel("abc.fips.."));
    }
}
