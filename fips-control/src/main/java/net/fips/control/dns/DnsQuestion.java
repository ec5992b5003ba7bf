package net.fips.control.dns;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One question of a DNS message, its name held decompressed.
 *
 * @param labels the name's labels, raw bytes, without the root label (empty for the root name)
 * @param qtype  the query type (28 is AAAA)
 * @param qclass the query class as sent, including the top (mDNS unicast-response) bit
 */
public record DnsQuestion(byte[][] labels, int qtype, int qclass) {
    /** Copies the labels. */
    public DnsQuestion {
        labels = labels.clone();
        for (int i = 0; i < labels.length; i++) {
            labels[i] = labels[i].clone();
        }
    }

    /**
     * The name as the reference prints it: labels decoded as UTF-8 (invalid bytes replaced) and joined with
     * {@code .}, no trailing dot; the root name is the empty string.
     *
     * @return the name's text
     */
    public String nameText() {
        final StringBuilder sb = new StringBuilder();
        for (int i = 0; i < labels.length; i++) {
            if (i > 0) {
                sb.append('.');
            }
            sb.append(new String(labels[i], StandardCharsets.UTF_8));
        }
        return sb.toString();
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof DnsQuestion q && q.qtype == qtype && q.qclass == qclass
                && Arrays.deepEquals(q.labels, labels);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(labels) * 31 + qtype * 7 + qclass;
    }

    @Override
    public String toString() {
        return "DnsQuestion[" + nameText() + " type " + qtype + " class " + qclass + "]";
    }
}
