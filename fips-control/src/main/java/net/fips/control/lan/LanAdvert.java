package net.fips.control.lan;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a node announces on the LAN and which announcements it accepts, as the reference does
 * (discovery-gateway.md §3.1-§3.2). Pure: no sockets.
 */
public final class LanAdvert {

    /** The reference's default service type. */
    public static final String DEFAULT_SERVICE_TYPE = "_fips._udp.local.";
    /** The TXT {@code v}: the protocol version string of the Nostr adverts' {@code version} tag. */
    public static final String PROTOCOL_VERSION = "1";
    /** The Nostr {@code app} default, whose value after this prefix is the default scope. */
    public static final String APP_PREFIX = "fips-overlay-v1:";
    /** The reference's default Nostr {@code app}, so the default LAN scope. */
    public static final String DEFAULT_APP = "fips-overlay-v1";

    private LanAdvert() {
    }

    /**
     * The scope a node announces and filters by: {@code node.discovery.lan.scope} when set, else the Nostr
     * {@code app} with a {@code fips-overlay-v1:} prefix stripped (nothing left: no scope), both trimmed. With the
     * defaults this is {@code fips-overlay-v1}, and a node that announced no scope would be ignored by default
     * reference nodes.
     *
     * @param configuredScope {@code node.discovery.lan.scope}, or null
     * @param nostrApp        {@code node.discovery.nostr.app} (its default {@value #DEFAULT_APP} when unset)
     * @return the scope, or the empty string for none
     */
    public static String scope(final String configuredScope, final String nostrApp) {
        // Both values are trimmed, as the reference's lan_discovery_scope does.
        if (configuredScope != null && !configuredScope.isBlank()) {
            return configuredScope.trim();
        }
        final String app = (nostrApp == null ? DEFAULT_APP : nostrApp).trim();
        return app.startsWith(APP_PREFIX) ? app.substring(APP_PREFIX.length()).trim() : app;
    }

    /**
     * @param npub our npub
     * @return the instance name: {@code fips-} and the npub's first 16 characters
     */
    public static String instanceName(final String npub) {
        return "fips-" + npub.substring(0, Math.min(16, npub.length()));
    }

    /**
     * @param npub  our npub
     * @param scope our scope, empty for none
     * @return the TXT entries: {@code npub}, {@code scope} when there is one, {@code v}
     */
    public static Map<String, String> txt(final String npub, final String scope) {
        final Map<String, String> txt = new LinkedHashMap<>();
        txt.put("npub", npub);
        if (!scope.isEmpty()) {
            txt.put("scope", scope);
        }
        txt.put("v", PROTOCOL_VERSION);
        return txt;
    }

    /**
     * @param serviceType a configured service type
     * @return whether the reference accepts it (it must end in {@code ._udp.local.} or {@code ._tcp.local.})
     */
    public static boolean validServiceType(final String serviceType) {
        return serviceType.endsWith("._udp.local.") || serviceType.endsWith("._tcp.local.");
    }

    /**
     * Whether an announcement is one to dial: it names an npub that is not ours, and when we have a scope its scope
     * is ours (a missing scope differs); a scope-less node accepts every scope.
     *
     * @param theirNpub  TXT {@code npub}, or null
     * @param theirScope TXT {@code scope}, or null
     * @param ourNpub    our npub
     * @param ourScope   our scope, empty for none
     * @return null when accepted, else why not (for the debug log)
     */
    public static String refusal(final String theirNpub, final String theirScope, final String ourNpub,
            final String ourScope) {
        if (theirNpub == null || theirNpub.isEmpty()) {
            return "no npub in TXT";
        }
        if (theirNpub.equals(ourNpub)) {
            return "our own announcement";
        }
        if (!ourScope.isEmpty() && !ourScope.equals(theirScope)) {
            return "scope " + (theirScope == null ? "(none)" : theirScope) + " is not ours (" + ourScope + ")";
        }
        return null;
    }

    /**
     * @param address a resolved address of an announcement
     * @return whether it can be dialled: not an IPv6 link-local address without a scope id
     */
    public static boolean dialable(final InetAddress address) {
        return !(address instanceof Inet6Address a6 && a6.isLinkLocalAddress() && a6.getScopeId() == 0
                && a6.getScopedInterface() == null);
    }
}
