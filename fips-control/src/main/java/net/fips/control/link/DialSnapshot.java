package net.fips.control.link;

/**
 * One of our dials still waiting for msg2, as {@code show_connections} shows it.
 *
 * @param npub        the peer we dialled
 * @param transportId the transport used
 * @param address     the address dialled
 * @param ourIndex    the index we offered in msg1 (no link id exists before msg2)
 * @param ageMs       since the first msg1
 * @param resends     msg1 retransmissions so far
 */
public record DialSnapshot(String npub, int transportId, String address, long ourIndex, long ageMs, int resends) {
}
