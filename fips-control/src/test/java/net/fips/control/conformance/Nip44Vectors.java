package net.fips.control.conformance;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.nostr.Nip44;
import net.fips.control.nostr.Nip44Exception;
import net.fips.testing.Hex;

/**
 * The official NIP-44 vectors ({@code nip44.vectors.json}, discovery-gateway.md §1.5) through the production
 * {@link Nip44}: every valid vector byte for byte (conversation keys both ways, message keys, padded lengths,
 * payloads, the long messages by their SHA-256), and every invalid one refused with the {@link Nip44Exception.Reason}
 * its note names.
 */
public final class Nip44Vectors implements VectorFileCheck {
    private static final HexFormat HEX = HexFormat.of();

    @Override
    public void check(final Path file, final Tally tally) throws Exception {
        final JsonNode v2 = new ObjectMapper().readTree(file.toFile()).get("v2");
        final JsonNode valid = v2.get("valid");
        final JsonNode invalid = v2.get("invalid");
        int i = 0;
        for (final JsonNode v : valid.get("get_conversation_key")) {
            final String name = "#" + i++;
            try {
                final byte[] ck = Nip44.conversationKey(Hex.field(v, "sec1"), Hex.field(v, "pub2"));
                record(tally, "valid/get_conversation_key", name,
                        Tally.diff("conversation_key", Hex.field(v, "conversation_key"), ck));
            } catch (final Nip44Exception | RuntimeException e) {
                tally.error("valid/get_conversation_key", name, e);
            }
        }
        final JsonNode mk = valid.get("get_message_keys");
        final byte[] mkCk = Hex.field(mk, "conversation_key");
        i = 0;
        for (final JsonNode k : mk.get("keys")) {
            final Nip44.MessageKeys keys = Nip44.messageKeys(mkCk, Hex.field(k, "nonce"));
            record(tally, "valid/get_message_keys", "#" + i++, join(
                    Tally.diff("chacha_key", Hex.field(k, "chacha_key"), keys.chachaKey()),
                    Tally.diff("chacha_nonce", Hex.field(k, "chacha_nonce"), keys.chachaNonce()),
                    Tally.diff("hmac_key", Hex.field(k, "hmac_key"), keys.hmacKey())));
        }
        for (final JsonNode p : valid.get("calc_padded_len")) {
            final int got = Nip44.paddedLength(p.get(0).intValue());
            record(tally, "valid/calc_padded_len", "len " + p.get(0).intValue(),
                    got == p.get(1).intValue() ? null : "expected " + p.get(1).intValue() + " got " + got);
        }
        i = 0;
        for (final JsonNode v : valid.get("encrypt_decrypt")) {
            final String name = "#" + i++;
            try {
                final byte[] sec1 = Hex.field(v, "sec1");
                final byte[] sec2 = Hex.field(v, "sec2");
                final byte[] ck = Hex.field(v, "conversation_key");
                final String plaintext = v.get("plaintext").textValue();
                final String payload = v.get("payload").textValue();
                final String enc = Nip44.encrypt(ck, plaintext.getBytes(StandardCharsets.UTF_8), Hex.field(v, "nonce"));
                record(tally, "valid/encrypt_decrypt", name, join(
                        Tally.diff("ck(sec1,pub2)", ck, Nip44.conversationKey(sec1, Secp256k1.xOnly(sec2))),
                        Tally.diff("ck(sec2,pub1)", ck, Nip44.conversationKey(sec2, Secp256k1.xOnly(sec1))),
                        enc.equals(payload) ? null : "payload expected " + payload + " got " + enc,
                        plaintext.equals(Nip44.decrypt(ck, payload)) ? null : "decrypt differs"));
            } catch (final Nip44Exception | RuntimeException e) {
                tally.error("valid/encrypt_decrypt", name, e);
            }
        }
        i = 0;
        for (final JsonNode v : valid.get("encrypt_decrypt_long_msg")) {
            final String name = "#" + i++;
            try {
                final byte[] ck = Hex.field(v, "conversation_key");
                final String plaintext = v.get("pattern").textValue().repeat(v.get("repeat").intValue());
                final String payload = Nip44.encrypt(ck, plaintext.getBytes(StandardCharsets.UTF_8),
                        Hex.field(v, "nonce"));
                record(tally, "valid/encrypt_decrypt_long_msg", name, join(
                        Tally.diff("plaintext_sha256", Hex.field(v, "plaintext_sha256"),
                                Secp256k1.sha256(plaintext.getBytes(StandardCharsets.UTF_8))),
                        Tally.diff("payload_sha256", Hex.field(v, "payload_sha256"),
                                Secp256k1.sha256(payload.getBytes(StandardCharsets.UTF_8))),
                        plaintext.equals(Nip44.decrypt(ck, payload)) ? null : "decrypt differs"));
            } catch (final Nip44Exception | RuntimeException e) {
                tally.error("valid/encrypt_decrypt_long_msg", name, e);
            }
        }
        for (final JsonNode len : invalid.get("encrypt_msg_lengths")) {
            final int n = len.intValue();
            refused(tally, "invalid/encrypt_msg_lengths", "len " + n, Nip44Exception.Reason.INVALID_PLAINTEXT_LENGTH,
                    () -> Nip44.encrypt(new byte[32], new byte[n], new byte[32]));
        }
        for (final JsonNode v : invalid.get("get_conversation_key")) {
            final String note = v.get("note").textValue();
            final Nip44Exception.Reason want = note.startsWith("pub2") ? Nip44Exception.Reason.INVALID_PUBLIC_KEY
                    : Nip44Exception.Reason.INVALID_SECRET_KEY;
            refused(tally, "invalid/get_conversation_key", note, want,
                    () -> Nip44.conversationKey(Hex.field(v, "sec1"), Hex.field(v, "pub2")));
        }
        for (final JsonNode v : invalid.get("decrypt")) {
            final String note = v.get("note").textValue();
            refused(tally, "invalid/decrypt", note, reasonOf(note),
                    () -> Nip44.decrypt(Hex.field(v, "conversation_key"), v.get("payload").textValue()));
        }
    }

    /** Maps a vector's note ("invalid MAC", "unknown encryption version 0", ...) to the reason we must give. */
    static Nip44Exception.Reason reasonOf(final String note) {
        final String n = note.toLowerCase(Locale.ROOT);
        if (n.startsWith("unknown encryption version")) {
            return Nip44Exception.Reason.UNKNOWN_VERSION;
        } else if (n.startsWith("invalid base64")) {
            return Nip44Exception.Reason.INVALID_BASE64;
        } else if (n.startsWith("invalid mac")) {
            return Nip44Exception.Reason.INVALID_MAC;
        } else if (n.startsWith("invalid padding")) {
            return Nip44Exception.Reason.INVALID_PADDING;
        } else if (n.startsWith("invalid payload length")) {
            return Nip44Exception.Reason.INVALID_PAYLOAD_LENGTH;
        }
        throw new IllegalStateException("no expected reason for note: " + note);
    }

    /** An operation a vector expects to be refused. */
    private interface Refused {
        void run() throws Nip44Exception;
    }

    private static void refused(final Tally tally, final String kind, final String name,
            final Nip44Exception.Reason want, final Refused op) {
        try {
            op.run();
            tally.check(kind, name, false, "accepted; expected " + want);
        } catch (final Nip44Exception e) {
            tally.check(kind, name, e.reason() == want, "refused with " + e.reason() + ", expected " + want);
        } catch (final RuntimeException e) {
            tally.error(kind, name, e);
        }
    }

    private static void record(final Tally tally, final String kind, final String name, final String problem) {
        tally.check(kind, name, problem == null, problem);
    }

    private static String join(final String... problems) {
        final List<String> out = new ArrayList<>();
        for (final String p : problems) {
            if (p != null) {
                out.add(p);
            }
        }
        return out.isEmpty() ? null : String.join("; ", out);
    }
}
