/**
 * NAT traversal (discovery-gateway.md §2): the STUN binding exchange that learns a socket's reflexive address
 * ({@link net.fips.control.nat.Stun}), the punch packets both sides send ({@link net.fips.control.nat.PunchPacket}),
 * the order in which candidate addresses are tried ({@link net.fips.control.nat.PunchPlan}) and one punch attempt
 * as a clock-driven state machine ({@link net.fips.control.nat.PunchAttempt}). Pure byte and time logic: the
 * socket work (a fresh IPv4 UDP socket per attempt, later adopted as a UDP transport) sits with its caller.
 */
package net.fips.control.nat;
