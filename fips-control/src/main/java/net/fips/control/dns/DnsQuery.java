package net.fips.control.dns;

import java.util.List;
import java.util.Objects;

/**
 * The parts of a decoded DNS message the responder looks at.
 *
 * @param id                the message id
 * @param flags             the header's flags word as sent (QR, opcode, AA, TC, RD, RA, Z, AD, CD, RCODE)
 * @param questions         every question, in order
 * @param answerCount       resource records in the answer section (decoded for bounds only)
 * @param authorityCount    resource records in the authority section (decoded for bounds only)
 * @param additionalCount   resource records in the additional section, the OPT record included
 * @param ednsUdpPayload    the OPT record's UDP payload size, or -1 when the message carries no OPT record
 */
public record DnsQuery(int id, int flags, List<DnsQuestion> questions, int answerCount, int authorityCount,
        int additionalCount, int ednsUdpPayload) {
    /** Freezes the list. */
    public DnsQuery {
        questions = List.copyOf(Objects.requireNonNull(questions, "questions"));
    }

    /** @return the 4-bit opcode */
    public int opcode() {
        return (flags >>> 11) & 0xF;
    }

    /** @return whether the RD (recursion desired) bit is set */
    public boolean recursionDesired() {
        return (flags & DnsCodec.FLAG_RD) != 0;
    }

    /** @return whether an EDNS OPT record was present */
    public boolean hasEdns() {
        return ednsUdpPayload >= 0;
    }
}
