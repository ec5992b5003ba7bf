package net.fips.control.dns;

import java.util.HexFormat;

import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;

/** Shared fixtures for the DNS tests. */
final class DnsTestSupport {
    static final HexFormat HEX = HexFormat.of();
    /** The reference's public test node test-us01 (packaging/common/hosts). */
    static final String NPUB_A = "npub1qmc3cvfz0yu2hx96nq3gp55zdan2qclealn7xshgr448d3nh6lks7zel98";
    /** test-us02. */
    static final String NPUB_B = "npub10yffd020a4ag8zcy75f9pruq3rnghvvhd5hphl9s62zgp35s560qrksp9u";

    /**
     * What {@code dig AAAA <NPUB_A>.fips @::1 -p 15354} (BIND 9.18.49) sent, captured on loopback: id 0x8884,
     * flags RD|AD, one question, an OPT record with UDP payload 1232 and an 8-byte client COOKIE option.
     */
    static final byte[] DIG_QUERY = HEX.parseHex("8884012000010000000000013f6e70756231716d63336376667a3079753268"
            + "7839366e7133677035357a64616e3271636c65616c6e37787368677234343864336e68366c6b73377a656c393804666970"
            + "7300001c000100002904d000000000000c000a0008fc070d3745cbe8a9");

    private DnsTestSupport() {
    }

    static PeerIdentity peer(final String npub) {
        try {
            return PeerIdentity.fromNpub(npub);
        } catch (final IdentityFormatException e) {
            throw new AssertionError(e);
        }
    }

    static DnsQuery decode(final byte[] b) {
        try {
            return DnsCodec.decode(b, 0, b.length);
        } catch (final DnsFormatException e) {
            throw new AssertionError("does not decode: " + e.problem() + " " + e.getMessage(), e);
        }
    }

    static int u16(final byte[] b, final int at) {
        return (b[at] & 0xFF) << 8 | b[at + 1] & 0xFF;
    }
}
