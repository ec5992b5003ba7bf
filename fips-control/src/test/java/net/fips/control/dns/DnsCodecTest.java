package net.fips.control.dns;

import static net.fips.control.dns.DnsTestSupport.DIG_QUERY;
import static net.fips.control.dns.DnsTestSupport.HEX;
import static net.fips.control.dns.DnsTestSupport.NPUB_A;
import static net.fips.control.dns.DnsTestSupport.decode;
import static net.fips.control.dns.DnsTestSupport.peer;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import org.junit.jupiter.api.Test;

import net.fips.control.dns.DnsFormatException.Problem;

class DnsCodecTest {

    @Test
    void decodesWhatDigSends() {
        final DnsQuery q = decode(DIG_QUERY);
        assertEquals(0x8884, q.id());
        assertEquals(0x0120, q.flags());
        assertTrue(q.recursionDesired());
        assertEquals(0, q.opcode());
        assertEquals(1, q.questions().size());
        final DnsQuestion question = q.questions().getFirst();
        assertEquals(NPUB_A + ".fips", question.nameText());
        assertEquals(2, question.labels().length);
        assertEquals(DnsCodec.TYPE_AAAA, question.qtype());
        assertEquals(DnsCodec.CLASS_IN, question.qclass());
        assertEquals(0, q.answerCount());
        assertEquals(1, q.additionalCount());
        assertTrue(q.hasEdns());
        assertEquals(1232, q.ednsUdpPayload());
    }

    @Test
    void goldenReplyToDigQuery() throws Exception {
        final byte[] addr = peer(NPUB_A).address().toBytes();
        final byte[] out = new byte[600];
        final int n = DnsCodec.encodeResponse(decode(DIG_QUERY), DnsCodec.RCODE_NOERROR, addr, 300, out, 0);
        final ByteArrayOutputStream want = new ByteArrayOutputStream();
        // id, QR|AA (RD not copied), qd 1, an 1, ns 0, ar 0 (no OPT)
        want.writeBytes(HEX.parseHex("888484000001000100000000"));
        // the question, echoed uncompressed
        want.writeBytes(Arrays.copyOfRange(DIG_QUERY, 12, 12 + 1 + 63 + 1 + 4 + 1 + 4));
        // the answer: pointer to offset 12, AAAA, IN, TTL 300, rdlength 16, the address
        want.writeBytes(HEX.parseHex("c00c001c00010000012c0010"));
        want.writeBytes(addr);
        assertEquals(HEX.formatHex(want.toByteArray()), HEX.formatHex(Arrays.copyOf(out, n)));
        assertEquals((byte) 0xfd, addr[0]);
    }

    @Test
    void encodeQueryRoundTrips() {
        final byte[] b = DnsCodec.encodeQuery(0x1234, true, "Gateway.FIPS.", DnsCodec.TYPE_A, 1232);
        assertEquals("1234010000010000000000010747617465776179044649505300000100010000290"
                + "4d0000000000000", HEX.formatHex(b));
        final DnsQuery q = decode(b);
        assertEquals(0x1234, q.id());
        assertEquals(List.of("Gateway.FIPS"), q.questions().stream().map(DnsQuestion::nameText).toList());
        assertEquals(1232, q.ednsUdpPayload());
        final DnsQuery plain = decode(DnsCodec.encodeQuery(7, false, "a.fips", 28, -1));
        assertFalse(plain.hasEdns());
        assertFalse(plain.recursionDesired());
        assertEquals(0, plain.additionalCount());
    }

    @Test
    void followsCompressionPointersInQuestions() {
        // q1 "gateway.fips", q2 "x" + pointer to "fips" at offset 20
        final byte[] b = HEX.parseHex("0001000000020000000000000767617465776179046669707300001c0001"
                + "0178c014001c0001");
        final DnsQuery q = decode(b);
        assertEquals(List.of("gateway.fips", "x.fips"), q.questions().stream().map(DnsQuestion::nameText).toList());
    }

    @Test
    void replyCompressesSharedSuffixesLikeTheReference() throws Exception {
        final byte[] b = HEX.parseHex("0001000000020000000000000767617465776179046669707300001c0001"
                + "0178c014001c0001");
        final byte[] out = new byte[200];
        final int n = DnsCodec.encodeResponse(decode(b), DnsCodec.RCODE_NXDOMAIN, null, 300, out, 0);
        // second question: label x then a pointer to "fips" (offset 20); rcode 3
        assertEquals("000184030002000000000000" + "0767617465776179046669707300001c0001" + "0178c014001c0001",
                HEX.formatHex(Arrays.copyOf(out, n)));
    }

    @Test
    void compressionIsCaseSensitiveAsTheReference() throws Exception {
        final byte[] b = HEX.parseHex("0001000000020000000000000161046669707300001c0001"
                + "0162044649505300001c0001");
        final byte[] out = new byte[200];
        final int n = DnsCodec.encodeResponse(decode(b), 0, null, 300, out, 0);
        assertEquals(HEX.formatHex(b).substring(24), HEX.formatHex(Arrays.copyOfRange(out, 12, n)),
                "FIPS is not compressed against fips");
    }

    @Test
    void opcodeIsCopiedAndUnassignedOnesFold() throws Exception {
        final byte[] out = new byte[100];
        for (final int[] c : new int[][] {{0, 0}, {1, 1}, {2, 2}, {3, 6}, {4, 4}, {5, 5}, {6, 6}, {15, 6}}) {
            final byte[] b = DnsCodec.encodeQuery(1, false, "a.fips", 28, -1);
            b[2] = (byte) (c[0] << 3);
            DnsCodec.encodeResponse(decode(b), 0, null, 1, out, 0);
            assertEquals(c[1], (out[2] >> 3) & 0xF, "opcode " + c[0]);
        }
    }

    @Test
    void skipsRecordsInOtherSectionsAndKeepsTheFirstOpt() {
        // one question, one answer record (A, 4 bytes), one OPT with payload 4096
        final byte[] b = HEX.parseHex("000101000001000100000001" + "0161046669707300001c0001"
                + "c00c00010001000000050004" + "01020304" + "0000291000000000000000");
        final DnsQuery q = decode(b);
        assertEquals(1, q.answerCount());
        assertEquals(4096, q.ednsUdpPayload());
    }

    @Test
    void malformedMessagesAreTypedErrors() {
        assertProblem(Problem.TRUNCATED, "0001");
        assertProblem(Problem.TRUNCATED, "00010000000100000000000001");
        assertProblem(Problem.RESERVED_FLAG, "000100400001000000000000" + "0161046669707300001c0001");
        assertProblem(Problem.LABEL_TOO_LONG, "000100000001000000000000" + "40" + "61".repeat(64) + "00001c0001");
        final StringBuilder longName = new StringBuilder();
        for (int i = 0; i < 5; i++) {
            longName.append("3f").append("61".repeat(63));
        }
        assertProblem(Problem.NAME_TOO_LONG, "000100000001000000000000" + longName + "00001c0001");
        assertProblem(Problem.BAD_POINTER, "000100000001000000000000" + "c0ff001c0001");
        assertProblem(Problem.POINTER_LOOP, "000100000001000000000000" + "c00c001c0001");
        assertProblem(Problem.POINTER_LOOP, "000100000001000000000000" + "c00e" + "c00c" + "001c0001");
        assertProblem(Problem.UNKNOWN_QTYPE, "000100000001000000000000" + "0161046669707300" + "00630001");
        assertProblem(Problem.UNKNOWN_QTYPE, "000100000001000000000000" + "0161046669707300" + "00130001");
        assertProblem(Problem.UNKNOWN_QCLASS, "000100000001000000000000" + "0161046669707300" + "001c0007");
        assertProblem(Problem.TRUNCATED, "000100000001000000000001" + "0161046669707300001c0001" + "0000291000");
        assertProblem(Problem.TRUNCATED, "000100000001000000000001" + "0161046669707300001c0001"
                + "0000291000000000000005" + "000a0008ff");
        assertProblem(Problem.TRUNCATED, "000100000002000000000000" + "0161046669707300001c0001");
    }

    @Test
    void acceptsTheQuestionClassesAndTypesTheReferenceDoes() {
        for (final int qclass : new int[] {1, 2, 3, 4, 254, 255, 0x8001}) {
            decode(HEX.parseHex("000100000001000000000000" + "0161046669707300" + "001c"
                    + String.format("%04x", qclass)));
        }
        for (final int qtype : new int[] {1, 5, 12, 16, 28, 33, 41, 65, 255, 257}) {
            decode(HEX.parseHex("000100000001000000000000" + "0161046669707300"
                    + String.format("%04x", qtype) + "0001"));
        }
    }

    @Test
    void responseTooLargeIsATypedError() {
        final DnsQuery q = decode(DIG_QUERY);
        final DnsFormatException e = assertThrows(DnsFormatException.class,
                () -> DnsCodec.encodeResponse(q, 0, null, 1, new byte[40], 0));
        assertEquals(Problem.RESPONSE_TOO_LARGE, e.problem());
    }

    @Test
    void labelsAreRawBytesAndTextIsUtf8Lossy() {
        final byte[] b = HEX.parseHex("000100000001000000000000" + "02c3a9" + "02ff41" + "00001c0001");
        final DnsQuestion q = decode(b).questions().getFirst();
        assertArrayEquals("é".getBytes(StandardCharsets.UTF_8), q.labels()[0]);
        assertEquals("é.\uFFFDA", q.nameText());
    }

    private static void assertProblem(final Problem want, final String hex) {
        final byte[] b = HEX.parseHex(hex);
        final DnsFormatException e = assertThrows(DnsFormatException.class, () -> DnsCodec.decode(b, 0, b.length),
                hex);
        assertEquals(want, e.problem(), hex);
    }
}
