package net.fips.control.dns;

import java.util.Objects;
import java.util.function.Supplier;

import net.fips.control.acl.HostAliases;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;

/**
 * Maps a queried name to the peer whose FIPS address answers it, or to nothing.
 */
@FunctionalInterface
public interface FipsNameResolver {
    /**
     * @param qname the question's name as text (labels joined with dots, see {@link DnsQuestion#nameText()})
     * @return the peer, or null when the name does not resolve
     */
    PeerIdentity resolve(String qname);

    /**
     * The reference's rule (operator.md §4.6): the name must end in {@code .fips} (ASCII case-insensitive, one
     * trailing dot allowed); the part before it is looked up in the host map, and otherwise decoded as an npub.
     * A multi-label part such as {@code x.npub1….fips} resolves to nothing (no host name or npub holds a dot).
     *
     * @param hosts the current host map (read on every call, so a reloaded map applies at once)
     * @return the resolver
     */
    static FipsNameResolver hostsThenNpub(final Supplier<HostAliases> hosts) {
        Objects.requireNonNull(hosts, "hosts");
        return qname -> {
            final String label = fipsLabel(qname);
            if (label == null) {
                return null;
            }
            String npub = label;
            if (isAscii(label)) {
                // The reference lowercases ASCII only; a non-ASCII label can never equal a (valid, ASCII) name.
                final String mapped = hosts.get().lookupNpub(label).orElse(null);
                if (mapped != null) {
                    npub = mapped;
                }
            }
            try {
                return PeerIdentity.fromNpub(npub);
            } catch (final IdentityFormatException e) {
                return null;
            }
        };
    }

    /**
     * @param qname a name
     * @return the part before a final {@code .fips} (ASCII case-insensitive, after dropping one trailing dot),
     *         or null when the name does not end that way
     */
    static String fipsLabel(final String qname) {
        String n = qname;
        if (n.endsWith(".")) {
            n = n.substring(0, n.length() - 1);
        }
        final int at = n.length() - 5;
        if (at < 0 || n.charAt(at) != '.') {
            return null;
        }
        final String suffix = "fips";
        for (int i = 0; i < 4; i++) {
            char c = n.charAt(at + 1 + i);
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c + ('a' - 'A'));
            }
            if (c != suffix.charAt(i)) {
                return null;
            }
        }
        return n.substring(0, at);
    }

    private static boolean isAscii(final String s) {
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) > 0x7F) {
                return false;
            }
        }
        return true;
    }
}
