/**
 * Nostr-mediated discovery (discovery-gateway.md §1), the foundation layers: the NIP-01 event model (canonical
 * serialisation, id, BIP-340 signature), NIP-44 v2 encryption, FIPS's NIP-59 variant (seal inside a kind-21059
 * wrap), the payload codecs of the advert (37195), relay list (10050), offer/answer (21059) and deletion (5), and a
 * NIP-01 relay client over WebSocket. Nothing here touches the node yet; the runtime wiring comes later.
 */
package net.fips.control.nostr;
