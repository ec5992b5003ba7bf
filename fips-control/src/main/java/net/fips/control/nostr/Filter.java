package net.fips.control.nostr;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A NIP-01 subscription filter (discovery-gateway.md §1.6), written compactly in the order ids, authors, kinds,
 * {@code #x} tags, since, until, limit; absent members are left out.
 *
 * @param ids     event ids, or null
 * @param authors author keys (hex), or null
 * @param kinds   kinds, or null
 * @param tags    single-letter tag name to accepted values
 * @param since   Unix seconds, or null
 * @param until   Unix seconds, or null
 * @param limit   most stored events wanted (0 = live only), or null
 */
public record Filter(List<String> ids, List<String> authors, List<Integer> kinds, Map<Character, List<String>> tags,
        Long since, Long until, Integer limit) {
    /** Copies the collections. */
    public Filter {
        ids = ids == null ? null : List.copyOf(ids);
        authors = authors == null ? null : List.copyOf(authors);
        kinds = kinds == null ? null : List.copyOf(kinds);
        final Map<Character, List<String>> t = new LinkedHashMap<>();
        if (tags != null) {
            tags.forEach((k, v) -> t.put(k, List.copyOf(v)));
        }
        tags = Collections.unmodifiableMap(t);
    }

    /** @return an empty filter (matches everything) */
    public static Filter all() {
        return new Filter(null, null, null, null, null, null, null);
    }

    /** @return this filter with {@code kinds} */
    public Filter kinds(final Integer... k) {
        return new Filter(ids, authors, List.of(k), tags, since, until, limit);
    }

    /** @return this filter with {@code authors} */
    public Filter authors(final String... a) {
        return new Filter(ids, authors == null ? List.of(a) : concat(authors, List.of(a)), kinds, tags, since, until,
                limit);
    }

    /** @return this filter with tag {@code #name} matching {@code values} */
    public Filter tag(final char name, final String... values) {
        final Map<Character, List<String>> t = new LinkedHashMap<>(tags);
        t.put(name, List.of(values));
        return new Filter(ids, authors, kinds, t, since, until, limit);
    }

    /** @return this filter with {@code since} */
    public Filter since(final long s) {
        return new Filter(ids, authors, kinds, tags, s, until, limit);
    }

    /** @return this filter with {@code limit} */
    public Filter limit(final int l) {
        return new Filter(ids, authors, kinds, tags, since, until, l);
    }

    private static List<String> concat(final List<String> a, final List<String> b) {
        final List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /** @return the filter as compact JSON */
    public String toJson() {
        final Json j = Json.object();
        if (ids != null) {
            j.strings("ids", ids);
        }
        if (authors != null) {
            j.strings("authors", authors);
        }
        if (kinds != null) {
            final StringBuilder sb = new StringBuilder("[");
            for (int i = 0; i < kinds.size(); i++) {
                sb.append(i > 0 ? "," : "").append(kinds.get(i));
            }
            j.raw("kinds", sb.append(']').toString());
        }
        for (final Map.Entry<Character, List<String>> t : tags.entrySet()) {
            j.strings("#" + t.getKey(), t.getValue());
        }
        if (since != null) {
            j.unsigned("since", since);
        }
        if (until != null) {
            j.unsigned("until", until);
        }
        if (limit != null) {
            j.num("limit", limit);
        }
        return j.close();
    }

    /**
     * @param e an event
     * @return whether {@code e} matches this filter (NIP-01: every present condition holds)
     */
    public boolean matches(final NostrEvent e) {
        if (ids != null && !ids.contains(e.id()) || authors != null && !authors.contains(e.pubkey())
                || kinds != null && !kinds.contains(e.kind())) {
            return false;
        }
        if (since != null && Long.compareUnsigned(e.createdAt(), since) < 0
                || until != null && Long.compareUnsigned(e.createdAt(), until) > 0) {
            return false;
        }
        for (final Map.Entry<Character, List<String>> t : tags.entrySet()) {
            final List<String> have = e.tagValues(String.valueOf(t.getKey()));
            if (have.stream().noneMatch(t.getValue()::contains)) {
                return false;
            }
        }
        return true;
    }
}
