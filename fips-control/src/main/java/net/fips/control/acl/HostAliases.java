package net.fips.control.acl;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import net.fips.control.identity.Hostnames;
import net.fips.control.identity.IdentityFormatException;
import net.fips.control.identity.PeerIdentity;

/**
 * Hostname to npub aliases (operator.md §4.2): YAML peer {@code alias} values overlaid by the {@code hosts} file,
 * the file winning a conflict. Names are matched case-insensitively. Immutable.
 */
public final class HostAliases {
    /** Where the reference reads its hosts file. */
    public static final String DEFAULT_HOSTS_PATH = "/etc/fips/hosts";
    /** No aliases. */
    public static final HostAliases EMPTY = new HostAliases(Map.of());

    private final Map<String, String> byName;

    private HostAliases(final Map<String, String> byName) {
        this.byName = Collections.unmodifiableMap(new LinkedHashMap<>(byName));
    }

    /**
     * The reference's hostname rule: 1-63 characters of {@code [A-Za-z0-9-]}, not starting or ending with
     * {@code -}, and not starting with {@code npub1} (so a name never shadows a key).
     *
     * @param name candidate
     * @return whether it can be an alias
     */
    public static boolean isValidHostname(final String name) {
        return Hostnames.isValid(name);
    }

    /**
     * Aliases from YAML peers. Invalid names or npubs are skipped, as the reference does (the config loader has
     * already warned about them).
     *
     * @param aliasToNpub alias to npub, in config order (a later duplicate wins)
     * @return the aliases
     */
    public static HostAliases of(final Map<String, String> aliasToNpub) {
        final Map<String, String> out = new LinkedHashMap<>();
        for (final Map.Entry<String, String> e : aliasToNpub.entrySet()) {
            if (isValidHostname(e.getKey()) && isNpub(e.getValue())) {
                out.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue());
            }
        }
        return new HostAliases(out);
    }

    /**
     * The result of parsing a hosts file.
     *
     * @param aliases  the valid entries
     * @param problems one line per skipped line, {@code line N: ...}
     */
    public record Parsed(HostAliases aliases, List<String> problems) {
        /** Freezes the list. */
        public Parsed {
            Objects.requireNonNull(aliases, "aliases");
            problems = List.copyOf(problems);
        }
    }

    /**
     * Parses hosts file text: {@code hostname npub1...} per line, {@code #} lines and blank lines skipped; a line
     * with another number of fields, a bad name or a bad npub is skipped and reported. A later line wins.
     *
     * @param text the file content
     * @return entries and problems
     */
    public static Parsed parseHostsFile(final String text) {
        final Map<String, String> out = new LinkedHashMap<>();
        final List<String> problems = new ArrayList<>();
        final String[] lines = text.split("\r?\n|\r", -1);
        for (int i = 0; i < lines.length; i++) {
            final String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            final String[] fields = line.split("\\s+");
            if (fields.length != 2) {
                problems.add("line " + (i + 1) + ": expected 'hostname npub', got " + fields.length + " fields");
            } else if (!isValidHostname(fields[0])) {
                problems.add("line " + (i + 1) + ": invalid hostname \"" + fields[0] + "\"");
            } else if (!isNpub(fields[1])) {
                problems.add("line " + (i + 1) + ": invalid npub for " + fields[0]);
            } else {
                out.put(fields[0].toLowerCase(Locale.ROOT), fields[1]);
            }
        }
        return new Parsed(new HostAliases(out), problems);
    }

    /**
     * @param over aliases that win on conflict (the hosts file over YAML aliases)
     * @return the union
     */
    public HostAliases overlay(final HostAliases over) {
        final Map<String, String> out = new LinkedHashMap<>(byName);
        out.putAll(over.byName);
        return new HostAliases(out);
    }

    /**
     * @param name a hostname, any case
     * @return its npub
     */
    public Optional<String> lookupNpub(final String name) {
        return Optional.ofNullable(byName.get(name.toLowerCase(Locale.ROOT)));
    }

    /** @return lowercase name to npub, read-only */
    public Map<String, String> asMap() {
        return byName;
    }

    /** @return the number of names */
    public int size() {
        return byName.size();
    }

    private static boolean isNpub(final String text) {
        try {
            PeerIdentity.fromNpub(text);
            return true;
        } catch (final IdentityFormatException e) {
            return false;
        }
    }

    @Override
    public boolean equals(final Object o) {
        return o instanceof HostAliases h && h.byName.equals(byName);
    }

    @Override
    public int hashCode() {
        return byName.hashCode();
    }

    @Override
    public String toString() {
        return "HostAliases" + byName.keySet();
    }
}
