package net.fips.control.node;

import java.util.concurrent.atomic.AtomicBoolean;

import net.fips.control.config.PeerConfig;
import net.fips.control.identity.PeerIdentity;

/**
 * What {@link NostrDiscovery} knows of one peer reached (or to be reached) through its advert: the dial it started,
 * the failures and traversals since, and the outcome {@code show_nostr} reports. Control thread only (the fetch flag
 * aside).
 */
final class NostrPeerState {
    final PeerIdentity identity;
    final PeerConfig config;
    final String name;
    final AtomicBoolean fetching = new AtomicBoolean();
    long nextFetchNanos;
    /** A stranger is not dialled again before this (open discovery). */
    long nextTryNanos;
    /** The advert endpoint the link layer dials now; null to (re)dial from the advert. */
    String endpoint;
    /** The last endpoint dialled, for show_nostr. */
    String lastEndpoint;
    int lastRetryCount;
    /** Failed attempts so far: picks which reachable advert endpoint is dialled. */
    int rotation;
    boolean pendingStranger;
    boolean linked;
    boolean forgotten;
    /** The next traversal to this peer starts no earlier than this (after a failure: backoff). */
    long nextTraversalNanos;
    /** Traversals that failed in a row since the last link (the backoff's exponent). */
    int traversalFailures;
    String outcome = "waiting for advert";
    long outcomeAtMs;
    long dials;

    NostrPeerState(final PeerIdentity identity, final PeerConfig config) {
        this.identity = identity;
        this.config = config;
        this.name = config != null ? config.alias().orElse(identity.shortNpub()) : identity.shortNpub();
    }

    /** Records what happened to the peer last ({@code show_nostr.dials[].outcome}), and when if it changed. */
    void outcome(final String what, final long wall) {
        if (!what.equals(outcome)) {
            outcome = what;
            outcomeAtMs = wall;
        }
    }
}
