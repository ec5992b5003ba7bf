package net.fips.control.discovery;

import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_ALREADY_PENDING;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_BACKOFF_SUPPRESSED;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_NOT_IN_FILTERS;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_NO_TREE_PEER;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_RETRIED;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_STARTED;
import static net.fips.control.discovery.DiscoveryCounter.LOOKUPS_UNREACHABLE;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_DUPLICATE;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_FORWARDED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_FORWARDED_FALLBACK;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_FOR_US;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_MALFORMED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_NO_ROUTE;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_RATE_LIMITED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_RECEIVED;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_TABLE_FULL;
import static net.fips.control.discovery.DiscoveryCounter.REQUESTS_TTL_EXPIRED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_ACCEPTED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_IDENTITY_MISS;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_NO_ROUTE;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_MALFORMED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_PROOF_FAILED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_RECEIVED;
import static net.fips.control.discovery.DiscoveryCounter.RESPONSES_RELAYED;

/**
 * The {@code discovery} object of the reference's {@code show_routing} / stats output, field for field (snake_case
 * of these names, alphabetical as the reference renders them), derived from {@link DiscoveryCounter}s. Where the
 * reference counts differently from our finer counters the mapping is noted on the field.
 *
 * @param reqBackoffSuppressed   lookups suppressed by backoff
 * @param reqBloomMiss           lookups for a target in no peer's filter
 * @param reqDecodeError         malformed requests
 * @param reqDedupCacheFull      requests dropped because the request table was full
 * @param reqDeduplicated        lookups for a target already pending
 * @param reqDuplicate           requests with a known request_id
 * @param reqFallbackForwarded   requests forwarded to non-tree peers
 * @param reqForwardRateLimited  requests suppressed by the transit limiter
 * @param reqForwarded           requests that passed ttl and rate limit (forwarded, or dropped for want of a peer)
 * @param reqInitiated           requests we originated: every first attempt that reached the send step and every
 *                               retry
 * @param reqNoTreePeer          requests a transit could send to no peer
 * @param reqReceived            requests received
 * @param reqTargetIsUs          requests for us
 * @param reqTtlExhausted        requests not forwarded for ttl 0
 * @param respAccepted           responses verified and cached
 * @param respDecodeError        malformed responses
 * @param respForwarded          responses relayed
 * @param respIdentityMiss       responses for an unknown identity
 * @param respNoRoute            responses we could not send on: the request's recorded from_peer is gone
 * @param respProofFailed        responses whose proof failed
 * @param respReceived           responses received
 * @param respTimedOut           lookups that ran out of attempts
 */
public record DiscoveryStats(long reqBackoffSuppressed, long reqBloomMiss, long reqDecodeError,
        long reqDedupCacheFull, long reqDeduplicated, long reqDuplicate, long reqFallbackForwarded,
        long reqForwardRateLimited, long reqForwarded, long reqInitiated, long reqNoTreePeer, long reqReceived,
        long reqTargetIsUs, long reqTtlExhausted, long respAccepted, long respDecodeError, long respForwarded,
        long respIdentityMiss, long respNoRoute, long respProofFailed, long respReceived, long respTimedOut) {

    /** @param d a discovery instance @return its counters in the reference's shape */
    public static DiscoveryStats of(final Discovery d) {
        return new DiscoveryStats(d.counter(LOOKUPS_BACKOFF_SUPPRESSED), d.counter(LOOKUPS_NOT_IN_FILTERS),
                d.counter(REQUESTS_MALFORMED), d.counter(REQUESTS_TABLE_FULL), d.counter(LOOKUPS_ALREADY_PENDING),
                d.counter(REQUESTS_DUPLICATE), d.counter(REQUESTS_FORWARDED_FALLBACK),
                d.counter(REQUESTS_RATE_LIMITED), d.counter(REQUESTS_FORWARDED) + d.counter(REQUESTS_NO_ROUTE),
                d.counter(LOOKUPS_STARTED) + d.counter(LOOKUPS_NO_TREE_PEER) + d.counter(LOOKUPS_RETRIED),
                d.counter(REQUESTS_NO_ROUTE), d.counter(REQUESTS_RECEIVED), d.counter(REQUESTS_FOR_US),
                d.counter(REQUESTS_TTL_EXPIRED), d.counter(RESPONSES_ACCEPTED), d.counter(RESPONSES_MALFORMED),
                d.counter(RESPONSES_RELAYED), d.counter(RESPONSES_IDENTITY_MISS), d.counter(RESPONSES_NO_ROUTE),
                d.counter(RESPONSES_PROOF_FAILED),
                d.counter(RESPONSES_RECEIVED), d.counter(LOOKUPS_UNREACHABLE));
    }
}
