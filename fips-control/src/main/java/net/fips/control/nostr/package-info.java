/**
 * Nostr-mediated discovery (discovery-gateway.md §1): the NIP-01 event model (canonical serialisation, id, BIP-340
 * signature), NIP-44 v2 encryption, FIPS's NIP-59 variant (seal inside a kind-21059 wrap), the payload codecs of the
 * advert (37195), relay list (10050), offer/answer (21059) and deletion (5), a NIP-01 relay client over WebSocket
 * and the {@link net.fips.control.nostr.RelayPool} over several, the pure logic of §1.9-§1.12 (advert validity and
 * cache, dial candidates, signal validation, replay cache, failure state), and the runtime that joins them,
 * {@link net.fips.control.nostr.NostrRuntime}. The node package owns one runtime per node and feeds it from the
 * control thread ({@code node.NostrDiscovery}).
 *
 * <p>For the NAT traversal engine (offer/answer state machines, STUN, punching) two seams are here:
 * <ul>
 *   <li>{@link net.fips.control.nostr.SignalChannel}, implemented by the runtime: {@code send(recipient, json,
 *       extraRelays)} gift-wraps an offer or answer and sends it to the signal relays of §1.6 (returning the wrap id
 *       and the relays that accepted it); {@code onSignal(listener)} receives the offers and answers addressed to
 *       us, already verified, de-duplicated across relays, unwrapped (sender = the seal's signer), and for offers
 *       validated ({@code SignalValidation.validateOffer}) and passed through the replay cache. Answers are
 *       validated by the initiator against its own offer ({@code SignalValidation.validateAnswer}). The runtime's
 *       {@code recordFailure}/{@code recordSuccess}/{@code cooldownUntil} give the failure state of §1.12.</li>
 *   <li>{@link net.fips.control.nostr.TraversalStarter}, called by the node for a peer with a {@code udp nat}
 *       address or whose advert offers only the UDP {@code nat} endpoint; the node's engine is
 *       {@code node.NatTraversal}, which tests may replace through {@code NodeOptions.traversalStarter(runtime ->
 *       ...)}; {@link net.fips.control.nostr.TraversalStarter#unavailable()} only counts and logs at DEBUG.</li>
 * </ul>
 */
package net.fips.control.nostr;
