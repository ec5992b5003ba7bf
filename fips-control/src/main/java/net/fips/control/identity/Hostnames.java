package net.fips.control.identity;

/**
 * The reference's rule for a node's hostname (a YAML peer {@code alias}, a hosts-file name, {@code NAME.fips}): here
 * so that the config loader, the ACL and the DNS responder share it without depending on each other.
 */
public final class Hostnames {
    private Hostnames() {
    }

    /**
     * The reference's hostname rule: 1-63 characters of {@code [A-Za-z0-9-]}, not starting or ending with
     * {@code -}, and not starting with {@code npub1} (so a name never shadows a key).
     *
     * @param name candidate
     * @return whether it can be an alias
     */
    public static boolean isValid(final String name) {
        if (name == null || name.isEmpty() || name.length() > 63 || name.startsWith("-") || name.endsWith("-")) {
            return false;
        }
        if (name.regionMatches(true, 0, "npub1", 0, 5)) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            final char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
                return false;
            }
        }
        return true;
    }
}
