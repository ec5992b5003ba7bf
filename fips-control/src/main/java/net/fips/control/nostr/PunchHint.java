package net.fips.control.nostr;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * When and how to punch (discovery-gateway.md §1.4), in an accepted answer.
 *
 * @param startAtMs  Unix ms to start at (u64)
 * @param intervalMs ms between probes (u64)
 * @param durationMs how long to punch, ms (u64)
 */
public record PunchHint(long startAtMs, long intervalMs, long durationMs) {
    String toJson() {
        return Json.object().unsigned("startAtMs", startAtMs).unsigned("intervalMs", intervalMs)
                .unsigned("durationMs", durationMs).close();
    }

    static PunchHint read(final JsonNode n) throws NostrFormatException {
        if (n == null || n.isNull()) {
            return null;
        }
        if (!n.isObject()) {
            throw Fields.malformed("punch must be an object or null");
        }
        return new PunchHint(Fields.u64(n, "startAtMs"), Fields.u64(n, "intervalMs"), Fields.u64(n, "durationMs"));
    }
}
