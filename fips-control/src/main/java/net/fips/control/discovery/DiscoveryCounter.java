package net.fips.control.discovery;

/** Events discovery counts; read them with {@link Discovery#counter(DiscoveryCounter)}. */
public enum DiscoveryCounter {
    /** LookupRequests received (any, before decoding). */
    REQUESTS_RECEIVED,
    /** LookupRequests that did not decode. */
    REQUESTS_MALFORMED,
    /** LookupRequests whose request_id was already known (dedup / loop guard). */
    REQUESTS_DUPLICATE,
    /** LookupRequests dropped because the request_id table was full. */
    REQUESTS_TABLE_FULL,
    /** LookupRequests for us (answered). */
    REQUESTS_FOR_US,
    /** LookupRequests passed on to at least one peer (tree or fallback). */
    REQUESTS_FORWARDED,
    /** Of those, forwarded to non-tree peers because no tree peer matched. */
    REQUESTS_FORWARDED_FALLBACK,
    /** LookupRequests suppressed by the per-target transit rate limit. */
    REQUESTS_RATE_LIMITED,
    /** LookupRequests not forwarded because their ttl was 0. */
    REQUESTS_TTL_EXPIRED,
    /** LookupRequests dropped because no peer's filter contained the target. */
    REQUESTS_NO_ROUTE,
    /** LookupResponses received (any, before decoding). */
    RESPONSES_RECEIVED,
    /** LookupResponses that did not decode. */
    RESPONSES_MALFORMED,
    /** LookupResponses we generated as the target. */
    RESPONSES_SENT,
    /** LookupResponses relayed on the reverse path. */
    RESPONSES_RELAYED,
    /** LookupResponses dropped because one was already relayed for that request. */
    RESPONSES_DUPLICATE,
    /** LookupResponses verified and cached. */
    RESPONSES_ACCEPTED,
    /** LookupResponses whose proof failed (wrong key or substituted coordinates). */
    RESPONSES_PROOF_FAILED,
    /** LookupResponses for a target whose identity we do not know. */
    RESPONSES_IDENTITY_MISS,
    /**
     * LookupResponses (relayed or our own) we could not send on: the recorded from_peer of the request is no longer a
     * connected peer.
     */
    RESPONSES_NO_ROUTE,
    /** Lookups started (first attempt sent). */
    LOOKUPS_STARTED,
    /** Lookup attempts after the first (fresh request_id each). */
    LOOKUPS_RETRIED,
    /** Lookups that ended with a verified response. */
    LOOKUPS_SUCCEEDED,
    /** Lookups that ran out of attempts (destination unreachable). */
    LOOKUPS_UNREACHABLE,
    /** Lookup calls for a target already pending. */
    LOOKUPS_ALREADY_PENDING,
    /** Lookup calls suppressed by the post-failure backoff. */
    LOOKUPS_BACKOFF_SUPPRESSED,
    /** Lookup calls for a target in no peer's filter. */
    LOOKUPS_NOT_IN_FILTERS,
    /** Lookup calls where no tree peer's filter contained the target (no non-tree fallback at the origin). */
    LOOKUPS_NO_TREE_PEER,
    /** Link messages handed to {@link Discovery#onLinkMessage} that were neither request nor response. */
    OTHER_MESSAGES
}
