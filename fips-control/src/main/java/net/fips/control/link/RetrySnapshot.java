package net.fips.control.link;

/**
 * A configured peer waiting to be redialled ({@code show_routing.retries}).
 *
 * @param nodeAddr      its node_addr, hex
 * @param npub          its npub
 * @param retryCount    failed attempts so far
 * @param retryInMs     milliseconds until the next attempt (negative when due)
 * @param autoReconnect whether it is redialled forever after a link loss
 */
public record RetrySnapshot(String nodeAddr, String npub, int retryCount, long retryInMs, boolean autoReconnect) {
}
