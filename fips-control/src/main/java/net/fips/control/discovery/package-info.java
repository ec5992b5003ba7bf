/**
 * Coordinate discovery (LookupRequest 0x30 / LookupResponse 0x31): the originator with its retry ladder and
 * optional backoff, transit forwarding guided by peers' bloom filters with request dedup and a per-target rate
 * limit, the target's signed answer, reverse-path relay with path_mtu folding, and proof verification against the
 * {@link net.fips.control.identity.IdentityCache}. {@link net.fips.control.discovery.Discovery} owns all of it on
 * the single control thread; time is passed in as nanoseconds and request ids come from an injected
 * {@link java.util.Random}, so many instances can run under one simulated clock.
 */
package net.fips.control.discovery;
