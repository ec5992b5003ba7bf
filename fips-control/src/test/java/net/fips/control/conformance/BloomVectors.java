package net.fips.control.conformance;

import static net.fips.control.conformance.WireJson.ok;

import java.math.BigInteger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Arrays;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Secp256k1;
import net.fips.dataplane.wire.BloomFilter;
import net.fips.dataplane.wire.FilterAnnounce;
import net.fips.dataplane.wire.NodeAddr;
import net.fips.dataplane.wire.WireError;
import net.fips.dataplane.wire.WireResult;
import net.fips.testing.Hex;

/**
 * bloom.json: bit-exact bloom filter hashing and bit placement, a 27-entry filter with its FilterAnnounce, and a
 * non-v1 FilterAnnounce that encodes but must be refused on decode.
 */
public final class BloomVectors implements VectorFileCheck {

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        for (final JsonNode v : root.get("single_entry_vectors")) {
            final String name = v.get("label").asText();
            try {
                singleEntry(v).record(tally, "single_entry", name);
            } catch (final Exception | AssertionError ex) {
                tally.error("single_entry", name, ex);
            }
        }
        try {
            multiEntry(root.get("multi_entry_filter")).record(tally, "multi_entry_filters", "27 entries");
        } catch (final Exception | AssertionError ex) {
            tally.error("multi_entry_filters", "27 entries", ex);
        }
        try {
            nonDefault(root.get("non_default_filter")).record(tally, "non_default_filter", "4096 bits k=3 class 0");
        } catch (final Exception | AssertionError ex) {
            tally.error("non_default_filter", "4096 bits k=3 class 0", ex);
        }
    }

    private static Tally.Expect singleEntry(final JsonNode v) {
        final Tally.Expect e = new Tally.Expect();
        final byte[] raw = Hex.field(v, "node_addr_hex");
        final NodeAddr a = NodeAddr.of(raw);
        e.hex("sha256", v.get("sha256_hex").asText(), Secp256k1.sha256(raw));
        final long[] h = BloomFilter.baseHashes(raw);
        e.equal("h1", new BigInteger(v.get("h1_u64_le_of_sha256_0_8").asText()), unsigned(h[0]))
                .equal("h2", new BigInteger(v.get("h2_u64_le_of_sha256_8_16").asText()), unsigned(h[1]));
        final int[] idx = BloomFilter.bitIndices(a, BloomFilter.DEFAULT_BITS, BloomFilter.DEFAULT_HASH_COUNT);
        final List<Integer> wantIdx = new ArrayList<>();
        v.get("bit_indices_k0_to_k4").forEach(n -> wantIdx.add(n.asInt()));
        e.equal("bit indices", wantIdx, Arrays.stream(idx).boxed().toList());

        final BloomFilter f = BloomFilter.create();
        e.that("empty filter does not contain it", !f.contains(a));
        f.insert(a);
        final byte[] want = new byte[BloomFilter.DEFAULT_BITS / 8];
        for (final JsonNode nz : v.get("nonzero_bytes_after_single_insert")) {
            want[nz.get("byte_index").asInt()] = WireJson.HEX.parseHex(nz.get("value_hex").asText())[0];
        }
        return e.bytes("filter bytes", want, f.toBytes()).that("contains after insert", f.contains(a));
    }

    private static Tally.Expect multiEntry(final JsonNode v) {
        final Tally.Expect e = new Tally.Expect();
        final BloomFilter f = BloomFilter.create();
        final List<NodeAddr> entries = new ArrayList<>();
        v.get("entries_node_addr_hex").forEach(n -> entries.add(NodeAddr.ofHex(n.asText())));
        entries.forEach(f::insert);
        e.bytes("filter bytes", Hex.field(v, "filter_bytes_hex"), f.toBytes())
                .equal("count_ones", v.get("count_ones").asInt(), f.countOnes())
                .equal("contains absent", v.get("contains_absent_result").asBoolean(),
                        f.contains(NodeAddr.ofHex(v.get("contains_absent_node_addr_hex").asText())))
                .that("contains every entry", entries.stream().allMatch(f::contains));

        final byte[] enc = Hex.field(v, "filter_announce_encoded_hex");
        final FilterAnnounce want = FilterAnnounce.v1(v.get("filter_announce_sequence").asLong(), f);
        final FilterAnnounce got = ok(FilterAnnounce.decode(enc, 0, enc.length), "FilterAnnounce");
        return e.bytes("FilterAnnounce", enc, want.encode()).equal("length", v.get("filter_announce_encoded_len")
                .asInt(), enc.length).equal("decoded", want, got).equal("hash_count", 5, got.hashCount());
    }

    private static Tally.Expect nonDefault(final JsonNode v) {
        final Tally.Expect e = new Tally.Expect();
        final BloomFilter f = BloomFilter.withParams(4096, 3);
        v.get("entries_node_addr_hex").forEach(n -> f.insert(NodeAddr.ofHex(n.asText())));
        final byte[] enc = Hex.field(v, "encoded_hex");
        e.bytes("encoded", enc, new FilterAnnounce(7, 0, f).encode());
        final WireResult<FilterAnnounce> r = FilterAnnounce.decode(enc, 0, enc.length);
        return e.equal("reference_decode_ok", v.get("reference_decode_ok").asBoolean(), r.isOk())
                .equal("refusal reason", WireError.INVALID_FIELD, r.errorOrNull());
    }

    private static BigInteger unsigned(final long v) {
        return new BigInteger(Long.toUnsignedString(v));
    }
}
