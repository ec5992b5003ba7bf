package net.fips.control.nostr;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Builds and reads the non-signal events of Nostr discovery (discovery-gateway.md §1.3): the kind-37195 advert,
 * the kind-10050 relay list and the kind-5 deletion. Time comes from the caller.
 */
public final class DiscoveryEvents {
    /** NIP-17's inbox relay list (replaceable). */
    public static final int RELAY_LIST_KIND = 10050;
    /** NIP-09's deletion request. */
    public static final int DELETION_KIND = 5;
    /** The {@code app} the reference uses by default; also the {@code d} tag of every advert. */
    public static final String DEFAULT_APP = OverlayAdvert.IDENTIFIER;

    private DiscoveryEvents() {
    }

    /**
     * Our advert event (§1.8): tags {@code d}, {@code protocol}, {@code version}, {@code expiration} in that order,
     * expiration = max(1, (now + ttl) in whole seconds).
     *
     * @param sk             our identity's secret key
     * @param advert         the content
     * @param app            {@code node.discovery.nostr.app}, written as the {@code protocol} tag
     * @param nowMs          the wall clock, Unix ms
     * @param advertTtlSecs  {@code advert_ttl_secs}
     * @return the signed event
     */
    public static NostrEvent advert(final byte[] sk, final OverlayAdvert advert, final String app, final long nowMs,
            final long advertTtlSecs) {
        final long expiration = Math.max(1, Math.floorDiv(nowMs + advertTtlSecs * 1000, 1000));
        return NostrEvent.sign(sk, Math.floorDiv(nowMs, 1000), OverlayAdvert.KIND, List.of(
                List.of("d", OverlayAdvert.IDENTIFIER), List.of("protocol", app),
                List.of("version", OverlayAdvert.PROTOCOL_VERSION_TAG),
                List.of("expiration", Long.toString(expiration))), advert.toJson());
    }

    /**
     * Reads an advert event's content as the reference does (§1.9): the {@code protocol} tag must be present and
     * equal {@code app} (the {@code d} and {@code version} tags are not checked), then the content must decode.
     * Validity (identifier, version, endpoints, time window) is the caller's next step.
     *
     * @param event a kind-37195 event
     * @param app   our {@code app}
     * @return the decoded content
     * @throws NostrFormatException for a wrong kind, a missing or foreign {@code protocol} tag, or bad content
     */
    public static OverlayAdvert readAdvert(final NostrEvent event, final String app) throws NostrFormatException {
        if (event.kind() != OverlayAdvert.KIND) {
            throw new NostrFormatException(NostrFormatException.Problem.WRONG_KIND,
                    "not an advert (kind " + event.kind() + ")");
        }
        final Optional<String> protocol = event.tag("protocol");
        if (protocol.isEmpty() || !protocol.get().equals(app)) {
            throw new NostrFormatException(NostrFormatException.Problem.INVALID_FIELD,
                    "advert protocol tag " + protocol.orElse("(none)") + " is not " + app);
        }
        return OverlayAdvert.parse(event.content());
    }

    /**
     * Our kind-10050 relay list: for each entry of {@code relays} that is a {@code ws://} or {@code wss://} URL, an
     * {@code r} tag (what the reference writes) followed by a {@code relay} tag (what the reference and NIP-17
     * read), ADR 0038.
     *
     * @param sk       our identity's secret key
     * @param relays   {@code dm_relays}
     * @param nowSecs  the wall clock, Unix seconds
     * @return the signed event (content empty)
     */
    public static NostrEvent relayList(final byte[] sk, final List<String> relays, final long nowSecs) {
        final List<List<String>> tags = new ArrayList<>();
        for (final String r : relays) {
            if (isRelayUrl(r)) {
                tags.add(List.of("r", r));
                tags.add(List.of("relay", r));
            }
        }
        return NostrEvent.sign(sk, nowSecs, RELAY_LIST_KIND, tags, "");
    }

    /**
     * Reads a relay list from either spelling: {@code relay} tags (NIP-17) and {@code r} tags (what the
     * reference publishes), in order, duplicates and non-relay URLs dropped (ADR 0038).
     *
     * @param event a kind-10050 event
     * @return the relays, possibly empty
     */
    public static List<String> readRelayList(final NostrEvent event) {
        final Set<String> out = new LinkedHashSet<>();
        if (event.kind() != RELAY_LIST_KIND) {
            return List.of();
        }
        for (final List<String> t : event.tags()) {
            if (t.size() >= 2 && ("relay".equals(t.get(0)) || "r".equals(t.get(0))) && isRelayUrl(t.get(1))) {
                out.add(t.get(1));
            }
        }
        return List.copyOf(out);
    }

    /**
     * A NIP-09 deletion request for {@code ids}: one {@code e} tag per distinct id, in order.
     *
     * @param sk      our identity's secret key
     * @param ids     event ids (64 hex digits)
     * @param nowSecs the wall clock, Unix seconds
     * @return the signed kind-5 event (content empty)
     */
    public static NostrEvent deletion(final byte[] sk, final List<String> ids, final long nowSecs) {
        final List<List<String>> tags = new ArrayList<>();
        for (final String id : new LinkedHashSet<>(ids)) {
            tags.add(List.of("e", id));
        }
        return NostrEvent.sign(sk, nowSecs, DELETION_KIND, tags, "");
    }

    /** @return whether {@code url} is an absolute {@code ws://} or {@code wss://} URL with a host */
    public static boolean isRelayUrl(final String url) {
        if (url == null) {
            return false;
        }
        try {
            final URI u = new URI(url);
            final String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
            return ("ws".equals(scheme) || "wss".equals(scheme)) && u.getHost() != null && !u.getHost().isEmpty();
        } catch (final URISyntaxException e) {
            return false;
        }
    }
}
