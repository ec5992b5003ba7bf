package net.fips.gateway;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The gateway's nft table through the {@code nft} tool (ADR 0050): a whole-table replacement in one transaction,
 * its removal, and the packet counters of the traffic chain.
 */
public interface Nft {
    /**
     * Replaces the table in one transaction.
     *
     * @param table the table text of {@link NftRuleset#table}
     * @throws IOException when nft fails, with its message
     */
    void replace(String table) throws IOException;

    /**
     * Deletes the table; a missing table is not an error.
     *
     * @throws IOException when nft fails otherwise
     */
    void delete() throws IOException;

    /**
     * @return packets counted per virtual address (the rule comments of the traffic chain)
     * @throws IOException when nft fails or its output cannot be read
     */
    Map<String, Long> packetCounters() throws IOException;

    /** The real tool. */
    final class Tool implements Nft {
        private static final ObjectMapper JSON = new ObjectMapper();
        private final String nft;

        /** @param nft the nft executable ({@code nft} on the PATH, or a full path) */
        public Tool(final String nft) {
            this.nft = nft;
        }

        @Override
        public void replace(final String table) throws IOException {
            Exec.run(List.of(nft, "-f", "-"), NftRuleset.replace(table));
        }

        @Override
        public void delete() throws IOException {
            try {
                Exec.run(List.of(nft, "delete", "table", "inet", "fips_gateway"), null);
            } catch (final IOException e) {
                if (!e.getMessage().contains("No such file or directory")) {
                    throw e;
                }
            }
        }

        @Override
        public Map<String, Long> packetCounters() throws IOException {
            final String out = Exec.run(List.of(nft, "-j", "list", "chain", "inet", "fips_gateway",
                    NftRuleset.TRAFFIC_CHAIN), null);
            return parseCounters(JSON.readTree(out));
        }

        /** Reads {@code {"nftables":[{"rule":{"comment":vip,"expr":[...{"counter":{"packets":n}}]}}]}}. */
        static Map<String, Long> parseCounters(final JsonNode root) {
            final Map<String, Long> out = new HashMap<>();
            for (final JsonNode item : root.path("nftables")) {
                final JsonNode rule = item.get("rule");
                if (rule == null || !rule.path("comment").isTextual()) {
                    continue;
                }
                for (final JsonNode expr : rule.path("expr")) {
                    final JsonNode counter = expr.get("counter");
                    if (counter != null && counter.path("packets").canConvertToLong()) {
                        out.put(rule.get("comment").asText(), counter.get("packets").asLong());
                    }
                }
            }
            return out;
        }
    }
}
