package net.fips.control.ctl;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Classifies a (proto, port) against the {@code inbound} chain of the {@code inet fips} table, read from
 * {@code nft -j list table inet fips}. Conservative: a rule is understood only when every match in it is one of
 * {@code iifname} (the chain's fips0 scoping), {@code meta l4proto}, or {@code tcp|udp dport} equal to a number,
 * a set of numbers or a range; {@code counter} and {@code log} statements are ignored. The first understood rule
 * that matches the port decides ({@code accept} or {@code drop}); a rule that mentions the port in a way not
 * understood (a source filter, another verdict) makes the answer {@code unknown} unless a later understood rule
 * decides; falling off the end of the chain is the chain's policy (the baseline ends in {@code counter drop}, so a
 * port no rule opens is {@code drop} there). Rules
 * that mention no port (conntrack, ICMPv6 echo) are not about listeners and are skipped.
 */
final class NftInbound {
    private final List<JsonNode> rules;
    /** What falling off the end of the chain means: its policy (accept unless the listing says drop). */
    private final String policy;

    private NftInbound(final List<JsonNode> rules, final String policy) {
        this.rules = rules;
        this.policy = policy;
    }

    /**
     * @param nftJson the parsed {@code nft -j} listing
     * @return the inbound chain's rules, in order
     */
    static NftInbound parse(final JsonNode nftJson) {
        final List<JsonNode> rules = new ArrayList<>();
        String policy = "accept";
        for (final JsonNode item : nftJson.path("nftables")) {
            final JsonNode chain = item.get("chain");
            if (chain != null && "inbound".equals(chain.path("name").asText())) {
                policy = "drop".equals(chain.path("policy").asText()) ? "drop" : "accept";
            }
            final JsonNode rule = item.get("rule");
            if (rule != null && "inbound".equals(rule.path("chain").asText())) {
                rules.add(rule.path("expr"));
            }
        }
        return new NftInbound(rules, policy);
    }

    /**
     * @param proto {@code tcp} or {@code udp}
     * @param port  the listening port
     * @return {@code accept}, {@code drop} or {@code unknown}
     */
    String classify(final String proto, final int port) {
        boolean unsure = false;
        for (final JsonNode expr : rules) {
            String verdict = null;
            boolean unrecognized = false;
            boolean conditional = false;
            boolean protoMismatch = false;
            boolean hasDport = false;
            boolean refs = false;
            for (final JsonNode e : expr) {
                if (e.has("counter") || e.has("log")) {
                    continue;
                }
                if (e.has("accept") || e.has("drop")) {
                    verdict = e.has("accept") ? "accept" : "drop";
                    continue;
                }
                final JsonNode m = e.get("match");
                if (m == null) {
                    verdict = "other"; // return, jump, goto, reject, queue, ...
                    continue;
                }
                conditional = true;
                final JsonNode left = m.path("left");
                final boolean eq = m.path("op").asText("==").equals("==");
                final String metaKey = left.path("meta").path("key").asText();
                if (metaKey.equals("iifname")) {
                    continue;
                }
                if (metaKey.equals("l4proto") && eq) {
                    protoMismatch |= !proto.equals(m.path("right").asText());
                    continue;
                }
                if (left.path("payload").path("field").asText().equals("dport")) {
                    hasDport = true;
                    final boolean ours = left.path("payload").path("protocol").asText().equals(proto);
                    final Boolean hit = portIn(m.path("right"), port);
                    if (hit == null || !eq) {
                        unrecognized = true; // a named set, a negation: cannot tell
                    } else if (ours && hit) {
                        refs = true;
                    } else {
                        protoMismatch = true; // another port or protocol: this rule is not for us
                    }
                    continue;
                }
                unrecognized = true;
            }
            final boolean terminal = "accept".equals(verdict) || "drop".equals(verdict);
            if (!conditional && terminal) {
                // A catch-all such as the baseline's trailing "counter drop".
                return unsure && verdict.equals("drop") ? "unknown" : verdict;
            }
            if (!hasDport || protoMismatch) {
                continue;
            }
            if (refs && terminal && !unrecognized && !protoMismatch) {
                return verdict;
            }
            if (refs || unrecognized) {
                unsure = true;
            }
        }
        return unsure ? "unknown" : policy;
    }

    /**
     * A number, {@code {"set":[...]}} of numbers or ranges, or {@code {"range":[lo,hi]}}.
     *
     * @return whether the port is in it, or null when the form is not understood (a named set, a map, ...)
     */
    private static Boolean portIn(final JsonNode right, final int port) {
        if (right.isInt()) {
            return right.asInt() == port;
        }
        if (right.has("range")) {
            final JsonNode r = right.get("range");
            return r.size() == 2 && r.get(0).isInt() && r.get(1).isInt()
                    ? r.get(0).asInt() <= port && port <= r.get(1).asInt() : null;
        }
        if (right.has("set") && right.get("set").isArray()) {
            boolean any = false;
            for (final JsonNode v : right.get("set")) {
                final Boolean in = portIn(v, port);
                if (in == null) {
                    return null;
                }
                any |= in;
            }
            return any;
        }
        return null;
    }
}
