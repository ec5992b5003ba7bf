/**
 * NAT traversal (discovery-gateway.md §2): the STUN binding exchange that learns a socket's reflexive address
 * ({@link net.fips.control.nat.Stun}), the punch packets both sides send ({@link net.fips.control.nat.PunchPacket}),
 * the order in which candidate addresses are tried ({@link net.fips.control.nat.PunchPlan}) and one punch attempt
 * as a clock-driven state machine ({@link net.fips.control.nat.PunchAttempt}); around them the offer/answer
 * coordinator, the node's sockets ({@link net.fips.control.nat.SocketNatIo}, a fresh IPv4 UDP socket per attempt,
 * later adopted as a UDP transport), our host candidates ({@link net.fips.control.nat.LocalCandidates}) and the
 * STUN-learned public IP our advert names ({@link net.fips.control.nat.PublicAddressLearner}).
 */
package net.fips.control.nat;
