package net.fips.control.dns;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Arrays;

import net.fips.control.dns.DnsFormatException.Problem;

/**
 * The DNS wire format, exactly as far as the {@code .fips} responder needs it (RFC 1035 §4, RFC 6891 for OPT).
 *
 * <p>Decoding follows the decoder the reference uses ({@code simple-dns} 0.11): a 12-byte header whose reserved
 * Z bit must be clear; every question (names may use compression pointers, a label is at most 63 bytes and a
 * name's labels add up to less than 255 bytes; the type must be one that decoder knows and the class one of IN,
 * CS, CH, HS, NONE, ANY); then every answer, authority and additional record, decoded for bounds. The first OPT
 * record's UDP payload size is kept. Bytes after the last record are ignored.
 *
 * <p>Encoding writes the reference's reply: the query's id and opcode with only QR and AA set (RD is not
 * copied, no RA, no TC), the given RCODE, every question echoed, at most one AAAA answer of class IN, no
 * authority and no additional records (no OPT). Names are compressed the way the reference's encoder does it:
 * each suffix already written (byte-exact, case-sensitive) becomes a pointer.
 *
 * <p>Known differences from the reference, all on inputs no resolver sends: (1) the reference's reply also
 * echoes any non-OPT answer, authority and additional records the query carried; this reply never does. (2) The
 * reference decodes every record's RDATA by type and rejects the message when one is malformed; here records
 * other than the first OPT are only bounds-checked. (3) A compression pointer chain without labels (a pointer to
 * itself) makes the reference's decoder loop forever; here it is {@link Problem#POINTER_LOOP}. The qtype list is
 * that of {@code simple-dns} 0.11.2's source (the reference locks 0.11.3).
 *
 * <p>All methods are static and thread-safe. Bad input is a {@link DnsFormatException}, never another exception.
 */
public final class DnsCodec {
    /** Header length. */
    public static final int HEADER_LENGTH = 12;
    /** QR: this message is a response. */
    public static final int FLAG_QR = 0x8000;
    /** AA: authoritative answer. */
    public static final int FLAG_AA = 0x0400;
    /** TC: truncated. */
    public static final int FLAG_TC = 0x0200;
    /** RD: recursion desired. */
    public static final int FLAG_RD = 0x0100;
    /** RA: recursion available. */
    public static final int FLAG_RA = 0x0080;
    /** The reserved Z bit. */
    public static final int FLAG_Z = 0x0040;
    /** RCODE NOERROR. */
    public static final int RCODE_NOERROR = 0;
    /** RCODE NXDOMAIN (name error). */
    public static final int RCODE_NXDOMAIN = 3;
    /** RCODE SERVFAIL (server failure). */
    public static final int RCODE_SERVFAIL = 2;
    /** RCODE REFUSED. */
    public static final int RCODE_REFUSED = 5;
    /** Type SOA. */
    public static final int TYPE_SOA = 6;
    /** Query type ANY. */
    public static final int TYPE_ANY = 255;
    /** Type A. */
    public static final int TYPE_A = 1;
    /** Type AAAA. */
    public static final int TYPE_AAAA = 28;
    /** Type OPT. */
    public static final int TYPE_OPT = 41;
    /** Class IN. */
    public static final int CLASS_IN = 1;
    /** The most bytes one encoded message may take (the UDP payload limit). */
    public static final int MAX_MESSAGE = 65_535;

    private static final int MAX_LABEL = 63;
    private static final int MAX_NAME = 255;
    private static final int MAX_POINTER_HOPS = 128;
    private static final int MAX_COMPRESSION_OFFSET = 0x3FFF;

    private DnsCodec() {
    }

    /**
     * Whether the reference's decoder accepts {@code qtype} in a question: the record types it implements
     * (A, NS, MD, MF, CNAME, SOA, MB, MG, MR, NULL, WKS, PTR, HINFO, MINFO, MX, TXT, RP, AFSDB, ISDN, RT, NSAP,
     * NSAP-PTR, AAAA, LOC, SRV, NAPTR, KX, CERT, OPT, DS, IPSECKEY, RRSIG, NSEC, DNSKEY, DHCID, ZONEMD, SVCB, HTTPS,
     * EUI48, EUI64, CAA) and the query-only IXFR, AXFR, MAILB, MAILA, ANY. Anything else makes it reject the
     * whole message.
     *
     * @param qtype the type
     * @return whether it is known
     */
    public static boolean isKnownQtype(final int qtype) {
        return qtype >= 1 && qtype <= 23 && qtype != 19
                || qtype == 28 || qtype == 29 || qtype == 33 || qtype >= 35 && qtype <= 37 || qtype == 41 || qtype == 43
                || qtype >= 45 && qtype <= 49 || qtype >= 63 && qtype <= 65 || qtype == 108 || qtype == 109
                || qtype == 257 || qtype >= 251 && qtype <= 255;
    }

    /**
     * @param qclass a question's class with the top bit masked off
     * @return whether the reference's decoder accepts it
     */
    public static boolean isKnownQclass(final int qclass) {
        return qclass >= 1 && qclass <= 4 || qclass == 254 || qclass == 255;
    }

    /**
     * Decodes a message.
     *
     * @param buf the bytes
     * @param off where the message starts
     * @param len its length
     * @return the decoded parts
     * @throws DnsFormatException when it is malformed
     */
    public static DnsQuery decode(final byte[] buf, final int off, final int len) throws DnsFormatException {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new DnsFormatException(Problem.TRUNCATED, "range outside the buffer");
        }
        final Reader r = new Reader(buf, off, len);
        final int id = r.u16();
        final int flags = r.u16();
        if ((flags & FLAG_Z) != 0) {
            throw new DnsFormatException(Problem.RESERVED_FLAG, "reserved header bit set");
        }
        final int qd = r.u16();
        final int an = r.u16();
        final int ns = r.u16();
        final int ar = r.u16();
        final List<DnsQuestion> questions = new ArrayList<>(Math.min(qd, len / 5 + 1));
        for (int i = 0; i < qd; i++) {
            final byte[][] labels = r.name();
            final int qtype = r.u16();
            final int qclass = r.u16();
            if (!isKnownQtype(qtype)) {
                throw new DnsFormatException(Problem.UNKNOWN_QTYPE, "unknown question type " + qtype);
            }
            if (!isKnownQclass(qclass & 0x7FFF)) {
                throw new DnsFormatException(Problem.UNKNOWN_QCLASS, "unknown question class " + qclass);
            }
            questions.add(new DnsQuestion(labels, qtype, qclass));
        }
        int payload = -1;
        final int records = an + ns + ar;
        for (int i = 0; i < records; i++) {
            r.skipName();
            final int type = r.u16();
            final int rrClass = r.u16();
            r.need(6);
            r.pos += 4; // TTL
            final int rdlen = r.u16();
            r.need(rdlen);
            if (type == TYPE_OPT && i >= an + ns && payload < 0) {
                checkOptions(buf, r.pos, rdlen);
                payload = rrClass;
            }
            r.pos += rdlen;
        }
        return new DnsQuery(id, flags, questions, an, ns, ar, payload);
    }

    private static void checkOptions(final byte[] buf, final int start, final int len) throws DnsFormatException {
        int p = start;
        final int end = start + len;
        while (p < end) {
            if (end - p < 4) {
                throw new DnsFormatException(Problem.TRUNCATED, "EDNS option header cut short");
            }
            final int optLen = (buf[p + 2] & 0xFF) << 8 | buf[p + 3] & 0xFF;
            p += 4;
            if (end - p < optLen) {
                throw new DnsFormatException(Problem.TRUNCATED, "EDNS option data cut short");
            }
            p += optLen;
        }
    }

    /**
     * Encodes the reference's reply to {@code query}.
     *
     * @param query   the decoded query
     * @param rcode   the 4-bit response code
     * @param answer  the 16-byte address of the single AAAA answer, or null for none; the answer's owner name is
     *                the first question's name
     * @param ttl     the answer's TTL in seconds (0..2^32-1)
     * @param out     where to write
     * @param off     where in {@code out} to start
     * @return the number of bytes written
     * @throws DnsFormatException when the reply does not fit {@code out} or {@link #MAX_MESSAGE}
     */
    public static int encodeResponse(final DnsQuery query, final int rcode, final byte[] answer, final long ttl,
            final byte[] out, final int off) throws DnsFormatException {
        if (answer != null && (answer.length != 16 || query.questions().isEmpty())) {
            throw new IllegalArgumentException("an answer needs a 16-byte address and a question");
        }
        final Writer w = new Writer(out, off, Math.min(out.length - off, MAX_MESSAGE));
        int opcode = query.opcode();
        if (opcode == 3 || opcode > 5) {
            opcode = 6; // the reference's decoder folds every unassigned opcode into one "reserved" value
        }
        w.u16(query.id());
        w.u16(FLAG_QR | FLAG_AA | opcode << 11 | rcode & 0xF);
        w.u16(query.questions().size());
        w.u16(answer == null ? 0 : 1);
        w.u16(0);
        w.u16(0);
        final Map<String, Integer> suffixes = new HashMap<>();
        for (final DnsQuestion q : query.questions()) {
            w.name(q.labels(), suffixes);
            w.u16(q.qtype());
            w.u16(q.qclass());
        }
        if (answer != null) {
            // The reference rebuilds the owner name from the question's text, splitting on dots.
            w.name(splitLabels(query.questions().getFirst().nameText()), suffixes);
            w.u16(TYPE_AAAA);
            w.u16(CLASS_IN);
            w.u16((int) (ttl >>> 16) & 0xFFFF);
            w.u16((int) ttl & 0xFFFF);
            w.u16(16);
            w.bytes(answer);
        }
        return w.pos - off;
    }

    /**
     * The address of the first AAAA record in a message's answer section (a reply from an upstream resolver).
     *
     * @param buf the bytes
     * @param off where the message starts
     * @param len its length
     * @return the 16-byte address, or null when the answer section holds no AAAA record
     * @throws DnsFormatException when the message is malformed up to that record
     */
    public static byte[] firstAaaaAnswer(final byte[] buf, final int off, final int len) throws DnsFormatException {
        if (off < 0 || len < 0 || off > buf.length - len) {
            throw new DnsFormatException(Problem.TRUNCATED, "range outside the buffer");
        }
        final Reader r = new Reader(buf, off, len);
        r.need(HEADER_LENGTH);
        r.pos += 4;
        final int qd = r.u16();
        final int an = r.u16();
        r.pos += 4;
        for (int i = 0; i < qd; i++) {
            r.skipName();
            r.need(4);
            r.pos += 4;
        }
        for (int i = 0; i < an; i++) {
            r.skipName();
            final int type = r.u16();
            r.need(6);
            r.pos += 6; // class, TTL
            final int rdlen = r.u16();
            r.need(rdlen);
            if (type == TYPE_AAAA && rdlen == 16) {
                return Arrays.copyOfRange(buf, r.pos, r.pos + 16);
            }
            r.pos += rdlen;
        }
        return null;
    }

    /**
     * Encodes the LAN gateway's reply (discovery-gateway.md §4.2): the query's id, flags QR and RA only (opcode
     * 0, no AA), the given RCODE; the questions echoed (all, or only the first); then one AAAA answer or one SOA
     * in the authority section (a NODATA reply, RFC 2308 §2.2), both owned by the first question's name as sent.
     *
     * @param query             the decoded query
     * @param rcode             the 4-bit response code
     * @param firstQuestionOnly echo only the first question
     * @param aaaa              the 16-byte address of the single AAAA answer, or null
     * @param ttl               TTL of the answer or the SOA, and the SOA's refresh, retry, expire and minimum
     * @param soaSerial         the SOA's serial, or -1 for no SOA record
     * @param out               where to write
     * @param off               where in {@code out} to start
     * @return the number of bytes written
     * @throws DnsFormatException when the reply does not fit {@code out}
     */
    public static int encodeGatewayReply(final DnsQuery query, final int rcode, final boolean firstQuestionOnly,
            final byte[] aaaa, final long ttl, final long soaSerial, final byte[] out, final int off)
            throws DnsFormatException {
        if ((aaaa != null || soaSerial >= 0) && query.questions().isEmpty()) {
            throw new IllegalArgumentException("an answer or SOA needs a question");
        }
        final Writer w = new Writer(out, off, Math.min(out.length - off, MAX_MESSAGE));
        final List<DnsQuestion> qs = firstQuestionOnly && !query.questions().isEmpty()
                ? query.questions().subList(0, 1) : query.questions();
        w.u16(query.id());
        w.u16(FLAG_QR | FLAG_RA | rcode & 0xF);
        w.u16(qs.size());
        w.u16(aaaa == null ? 0 : 1);
        w.u16(soaSerial >= 0 ? 1 : 0);
        w.u16(0);
        final Map<String, Integer> suffixes = new HashMap<>();
        for (final DnsQuestion q : qs) {
            w.name(q.labels(), suffixes);
            w.u16(q.qtype());
            w.u16(q.qclass());
        }
        if (aaaa != null || soaSerial >= 0) {
            w.name(query.questions().getFirst().labels(), suffixes);
            w.u16(aaaa != null ? TYPE_AAAA : TYPE_SOA);
            w.u16(CLASS_IN);
            w.u32(ttl);
            if (aaaa != null) {
                w.u16(16);
                w.bytes(aaaa);
            } else {
                final int lengthAt = w.pos;
                w.u16(0);
                w.name(splitLabels("gateway.fips"), suffixes);
                w.name(splitLabels("nobody.fips"), suffixes);
                w.u32(soaSerial);
                for (int i = 0; i < 4; i++) {
                    w.u32(ttl);
                }
                final int rdlen = w.pos - lengthAt - 2;
                out[lengthAt] = (byte) (rdlen >>> 8);
                out[lengthAt + 1] = (byte) rdlen;
            }
        }
        return w.pos - off;
    }

    /**
     * Encodes a standard query (for clients and tests): RD as given, one question of class IN, and an OPT record
     * with the given UDP payload size (version 0, no options) when {@code ednsPayload >= 0}.
     *
     * @param id          the message id
     * @param rd          whether to set RD
     * @param name        the name, labels separated by dots, an optional trailing dot
     * @param qtype       the type
     * @param ednsPayload the OPT UDP payload size, or -1 for no OPT record
     * @return the message
     */
    public static byte[] encodeQuery(final int id, final boolean rd, final String name, final int qtype,
            final int ednsPayload) {
        final byte[] out = new byte[HEADER_LENGTH + MAX_NAME + 4 + 11 + 8];
        final Writer w = new Writer(out, 0, out.length);
        try {
            w.u16(id);
            w.u16(rd ? FLAG_RD : 0);
            w.u16(1);
            w.u16(0);
            w.u16(0);
            w.u16(ednsPayload >= 0 ? 1 : 0);
            final byte[][] labels = splitLabels(name.endsWith(".") ? name.substring(0, name.length() - 1) : name);
            for (final byte[] l : labels) {
                if (l.length == 0 || l.length > MAX_LABEL) {
                    throw new IllegalArgumentException("bad label in " + name);
                }
            }
            w.name(labels, null);
            w.u16(qtype);
            w.u16(CLASS_IN);
            if (ednsPayload >= 0) {
                w.bytes(new byte[] {0}); // root owner name
                w.u16(TYPE_OPT);
                w.u16(ednsPayload);
                w.u16(0);
                w.u16(0);
                w.u16(0);
            }
        } catch (final DnsFormatException e) {
            throw new IllegalArgumentException("name too long: " + name, e);
        }
        return Arrays.copyOf(out, w.pos);
    }

    static byte[][] splitLabels(final String text) {
        if (text.isEmpty()) {
            return new byte[0][];
        }
        final String[] parts = text.split("\\.", -1);
        final byte[][] labels = new byte[parts.length][];
        for (int i = 0; i < parts.length; i++) {
            labels[i] = parts[i].getBytes(StandardCharsets.UTF_8);
        }
        return labels;
    }

    /** Bounds-checked big-endian reads over one message. */
    private static final class Reader {
        private final byte[] buf;
        private final int start;
        private final int end;
        int pos;

        Reader(final byte[] buf, final int off, final int len) {
            this.buf = buf;
            this.start = off;
            this.end = off + len;
            this.pos = off;
        }

        void need(final int n) throws DnsFormatException {
            if (end - pos < n) {
                throw new DnsFormatException(Problem.TRUNCATED, "message ends at byte " + (end - start));
            }
        }

        int u16() throws DnsFormatException {
            need(2);
            final int v = (buf[pos] & 0xFF) << 8 | buf[pos + 1] & 0xFF;
            pos += 2;
            return v;
        }

        byte[][] name() throws DnsFormatException {
            final List<byte[]> labels = new ArrayList<>(4);
            walkName(labels);
            return labels.toArray(new byte[0][]);
        }

        void skipName() throws DnsFormatException {
            walkName(null);
        }

        /** Reads a name at pos, leaving pos after its in-place part; collects labels when asked. */
        private void walkName(final List<byte[]> labels) throws DnsFormatException {
            int p = pos;
            int nameLen = 0;
            int hops = 0;
            boolean jumped = false;
            while (true) {
                if (p >= end) {
                    throw new DnsFormatException(Problem.TRUNCATED, "name runs past the message");
                }
                final int b = buf[p] & 0xFF;
                if (b == 0) {
                    p++;
                    break;
                }
                if ((b & 0xC0) == 0xC0) {
                    if (p + 1 >= end) {
                        throw new DnsFormatException(Problem.TRUNCATED, "pointer cut short");
                    }
                    final int target = (b & 0x3F) << 8 | buf[p + 1] & 0xFF;
                    if (!jumped) {
                        pos = p + 2;
                        jumped = true;
                    }
                    if (++hops > MAX_POINTER_HOPS) {
                        throw new DnsFormatException(Problem.POINTER_LOOP, "compression pointers loop");
                    }
                    if (target >= end - start) {
                        throw new DnsFormatException(Problem.BAD_POINTER, "pointer to " + target);
                    }
                    p = start + target;
                    continue;
                }
                nameLen += 1 + b;
                if (nameLen >= MAX_NAME) {
                    throw new DnsFormatException(Problem.NAME_TOO_LONG, "name of 255 bytes or more");
                }
                if (b > MAX_LABEL) {
                    throw new DnsFormatException(Problem.LABEL_TOO_LONG, "label length " + b);
                }
                if (end - (p + 1) < b) {
                    throw new DnsFormatException(Problem.TRUNCATED, "label runs past the message");
                }
                if (labels != null) {
                    labels.add(Arrays.copyOfRange(buf, p + 1, p + 1 + b));
                }
                p += 1 + b;
            }
            if (!jumped) {
                pos = p;
            }
        }
    }

    /** Bounds-checked big-endian writes with name compression. */
    private static final class Writer {
        private final byte[] out;
        private final int start;
        private final int end;
        int pos;

        Writer(final byte[] out, final int off, final int cap) {
            this.out = out;
            this.start = off;
            this.end = off + Math.max(0, cap);
            this.pos = off;
        }

        private void need(final int n) throws DnsFormatException {
            if (end - pos < n) {
                throw new DnsFormatException(Problem.RESPONSE_TOO_LARGE, "reply does not fit");
            }
        }

        void u16(final int v) throws DnsFormatException {
            need(2);
            out[pos] = (byte) (v >>> 8);
            out[pos + 1] = (byte) v;
            pos += 2;
        }

        void u32(final long v) throws DnsFormatException {
            u16((int) (v >>> 16) & 0xFFFF);
            u16((int) v & 0xFFFF);
        }

        void bytes(final byte[] b) throws DnsFormatException {
            need(b.length);
            System.arraycopy(b, 0, out, pos, b.length);
            pos += b.length;
        }

        void name(final byte[][] labels, final Map<String, Integer> suffixes) throws DnsFormatException {
            for (int i = 0; i < labels.length; i++) {
                if (suffixes != null) {
                    final String key = suffixKey(labels, i);
                    final Integer at = suffixes.get(key);
                    if (at != null) {
                        u16(0xC000 | at);
                        return;
                    }
                    final int offset = pos - start;
                    if (offset <= MAX_COMPRESSION_OFFSET) {
                        suffixes.put(key, offset);
                    }
                }
                if (labels[i].length == 0 || labels[i].length > MAX_LABEL) {
                    throw new DnsFormatException(Problem.LABEL_TOO_LONG, "cannot encode a label of "
                            + labels[i].length + " bytes");
                }
                need(1 + labels[i].length);
                out[pos++] = (byte) labels[i].length;
                System.arraycopy(labels[i], 0, out, pos, labels[i].length);
                pos += labels[i].length;
            }
            need(1);
            out[pos++] = 0;
        }

        private static String suffixKey(final byte[][] labels, final int from) {
            final StringBuilder sb = new StringBuilder();
            for (int i = from; i < labels.length; i++) {
                sb.append((char) labels[i].length);
                for (final byte b : labels[i]) {
                    sb.append((char) (b & 0xFF));
                }
            }
            return sb.toString();
        }
    }
}
