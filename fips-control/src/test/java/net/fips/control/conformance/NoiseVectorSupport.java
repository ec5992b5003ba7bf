package net.fips.control.conformance;

import java.nio.file.Path;
import java.util.HexFormat;
import java.io.IOException;
import java.util.Locale;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import net.fips.control.crypto.Secp256k1;
import net.fips.control.noise.CipherState;
import net.fips.control.noise.EphemeralSource;
import net.fips.control.noise.HandshakeResult;
import net.fips.control.noise.HandshakeState;
import net.fips.control.noise.HandshakeState.Pattern;
import net.fips.control.noise.HandshakeState.Role;
import net.fips.control.noise.NoiseException;
import net.fips.control.noise.SymmetricState;
import net.fips.control.noise.TransportSession;
import net.fips.testing.Hex;

/**
 * Drives both sides of every handshake in {@code noise_ik.json} / {@code noise_xk.json} with the file's static and
 * ephemeral keys, and compares every message, the h/ck/k/n trace after every message, the learned keys and epochs,
 * the transport keys, and then the sealed transport messages. Each side reads the message bytes from the file,
 * not the other side's output, so reading is tested independently of writing.
 */
final class NoiseVectorSupport {
    static final String HANDSHAKES = "handshakes";
    static final String TRANSPORT = "transport_messages";
    private static final HexFormat HEX = HexFormat.of();

    private NoiseVectorSupport() {
    }

    static void checkFile(final Path file, final Tally tally, final Pattern pattern) throws Exception {
        final JsonNode root = new ObjectMapper().readTree(file.toFile());
        for (final JsonNode v : root.get("vectors")) {
            final String name = v.get("name").asText();
            final Tally.Expect e = new Tally.Expect();
            HandshakeResult[] results = null;
            try {
                results = handshake(v, pattern, e);
            } catch (final NoiseException | RuntimeException ex) {
                e.that("handshake threw " + ex, false);
            }
            e.record(tally, HANDSHAKES, name);
            transport(v, results, tally, name);
        }
    }

    /** @return {initiator result, responder result} */
    private static HandshakeResult[] handshake(final JsonNode v, final Pattern pattern, final Tally.Expect e)
            throws NoiseException {
        e.equal("protocol_name", v.get("protocol_name").asText(), pattern.protocolName());
        final byte[] iStatic = Hex.field(v, "initiator_static_secret_hex");
        final byte[] rStatic = Hex.field(v, "responder_static_secret_hex");
        final byte[] iEph = Hex.field(v, "initiator_ephemeral_secret_hex");
        final byte[] rEph = Hex.field(v, "responder_ephemeral_secret_hex");
        final byte[] knows = Hex.field(v, "initiator_knows_responder_static_as_hex");
        final String iEpoch = v.get("initiator_epoch_hex").asText();
        final String rEpoch = v.get("responder_epoch_hex").asText();
        debugDh(v, e, iStatic, rStatic, iEph, rEph);
        if (v.has("premessage_hashed_responder_static_hex_normalized_0x02")) {
            final byte[] pre = knows.clone();
            pre[0] = 0x02;
            e.hex("premessage key", v.get("premessage_hashed_responder_static_hex_normalized_0x02").asText(), pre);
        }

        final HandshakeState init = HandshakeState.initiator(pattern, iStatic, knows, HEX.parseHex(iEpoch),
                EphemeralSource.fixed(iEph));
        final HandshakeState resp = HandshakeState.responder(pattern, rStatic, HEX.parseHex(rEpoch),
                EphemeralSource.fixed(rEph));
        e.hex("initiator static pubkey", v.get("initiator_static_pubkey_hex").asText(), init.localStatic());
        e.hex("responder static pubkey", v.get("responder_static_pubkey_hex").asText(), resp.localStatic());
        trace(v, e, "premessage", Role.INITIATOR, null, init);
        trace(v, e, "premessage", Role.RESPONDER, null, resp);

        e.hex("msg1", v.get("msg1_hex").asText(), init.writeMessage1());
        trace(v, e, "msg1", Role.INITIATOR, "write", init);
        resp.readMessage1(Hex.field(v, "msg1_hex"));
        trace(v, e, "msg1", Role.RESPONDER, "read", resp);
        if (pattern == Pattern.IK) {
            // IK authenticates the initiator's identity and epoch already in msg1.
            e.hex("responder learned static after msg1", v.get("initiator_static_pubkey_hex").asText(),
                    resp.remoteStatic());
            e.hex("responder learned epoch after msg1", iEpoch, resp.remoteEpoch());
        } else {
            e.that("XK responder must not know the initiator after msg1", resp.remoteStatic() == null);
        }

        e.hex("msg2", v.get("msg2_hex").asText(), resp.writeMessage2());
        trace(v, e, "msg2", Role.RESPONDER, "write", resp);
        init.readMessage2(Hex.field(v, "msg2_hex"));
        trace(v, e, "msg2", Role.INITIATOR, "read", init);

        if (pattern == Pattern.XK) {
            e.hex("msg3", v.get("msg3_hex").asText(), init.writeMessage3());
            trace(v, e, "msg3", Role.INITIATOR, "write", init);
            resp.readMessage3(Hex.field(v, "msg3_hex"));
            trace(v, e, "msg3", Role.RESPONDER, "read", resp);
        }

        e.hex("initiator ephemeral pubkey", v.get("initiator_ephemeral_pubkey_hex").asText(), init.localEphemeral());
        e.hex("responder ephemeral pubkey", v.get("responder_ephemeral_pubkey_hex").asText(), resp.localEphemeral());
        e.hex("responder saw initiator ephemeral", v.get("initiator_ephemeral_pubkey_hex").asText(),
                resp.remoteEphemeral());
        e.hex("initiator saw responder ephemeral", v.get("responder_ephemeral_pubkey_hex").asText(),
                init.remoteEphemeral());
        e.that("both sides complete", init.isComplete() && resp.isComplete());

        final HandshakeResult ri = init.finish();
        final HandshakeResult rr = resp.finish();
        final String k1 = v.get("transport_key_initiator_to_responder_hex").asText();
        final String k2 = v.get("transport_key_responder_to_initiator_hex").asText();
        final String hash = v.get("handshake_hash_hex").asText();
        e.hex("initiator handshake_hash", hash, ri.handshakeHash())
                .hex("responder handshake_hash", hash, rr.handshakeHash())
                .hex("initiator send key (k1)", k1, ri.sendKey())
                .hex("initiator recv key (k2)", k2, ri.recvKey())
                .hex("responder send key (k2)", k2, rr.sendKey())
                .hex("responder recv key (k1)", k1, rr.recvKey())
                .hex("initiator learned responder static", HEX.formatHex(knows), ri.remoteStatic())
                .hex("responder learned initiator static", v.get("initiator_static_pubkey_hex").asText(),
                        rr.remoteStatic())
                .hex("initiator learned responder epoch", rEpoch, ri.remoteEpoch())
                .hex("responder learned initiator epoch", iEpoch, rr.remoteEpoch());
        return new HandshakeResult[] {ri, rr};
    }

    /** Seals each message on its sender, opens it on its receiver, and checks a second delivery is refused. */
    private static void transport(final JsonNode v, final HandshakeResult[] results, final Tally tally,
                                  final String name) {
        if (!v.has(TRANSPORT)) {
            return;
        }
        TransportSession init = null;
        TransportSession resp = null;
        if (results != null) {
            try {
                init = results[0].newTransportSession();
                resp = results[1].newTransportSession();
            } catch (final NoiseException ex) {
                init = null;
            }
        }
        int i = 0;
        for (final JsonNode m : v.get(TRANSPORT)) {
            final String id = name + "#" + i++;
            final Tally.Expect e = new Tally.Expect();
            if (init == null) {
                e.that("no transport session (handshake failed)", false).record(tally, TRANSPORT, id);
                continue;
            }
            try {
                final boolean fromInitiator = m.get("direction").asText().equals("initiator->responder");
                final TransportSession sender = fromInitiator ? init : resp;
                final TransportSession receiver = fromInitiator ? resp : init;
                final byte[] senderKey = fromInitiator ? results[0].sendKey() : results[1].sendKey();
                final long counter = m.get("counter").asLong();
                final byte[] aad = Hex.field(m, "aad_hex");
                final byte[] plaintext = Hex.field(m, "plaintext_hex");
                e.hex("key", m.get("key_hex").asText(), senderKey)
                        .equal("sender counter", counter, sender.nextSendCounter())
                        .hex("nonce", m.get("nonce_hex_chacha20poly1305_96bit").asText(), CipherState.nonce(counter));
                final byte[] sealed = sender.encrypt(aad, plaintext);
                e.hex("ciphertext_with_tag", m.get("ciphertext_with_tag_hex").asText(), sealed);
                final byte[] wire = Hex.field(m, "ciphertext_with_tag_hex");
                e.hex("opened plaintext", m.get("plaintext_hex").asText(), receiver.decrypt(counter, aad, wire));
                try {
                    receiver.decrypt(counter, aad, wire);
                    e.that("second delivery of counter " + counter + " was accepted", false);
                } catch (final NoiseException replay) {
                    e.equal("second delivery", NoiseException.Reason.REPLAY, replay.reason());
                }
            } catch (final NoiseException | RuntimeException ex) {
                e.that("threw " + ex, false);
            }
            e.record(tally, TRANSPORT, id);
        }
    }

    /**
     * Compares the symmetric state after a step with the file's trace. The file names traces either per side and
     * direction ({@code after_msg1_initiator_write}), per side ({@code after_premessage_responder}) or once for
     * both sides ({@code after_msg2}).
     */
    private static void trace(final JsonNode v, final Tally.Expect e, final String stage, final Role side,
                              final String op, final HandshakeState hs) {
        final JsonNode traces = v.get("symmetric_state_trace");
        final String sideName = side.name().toLowerCase(Locale.ROOT);
        JsonNode t = null;
        String label = null;
        for (final String key : new String[] {"after_" + stage + "_" + sideName + "_" + op,
                "after_" + stage + "_" + sideName, "after_" + stage}) {
            if (traces.has(key)) {
                t = traces.get(key);
                label = key + " (" + sideName + ")";
                break;
            }
        }
        if (t == null) {
            e.that("no trace for " + stage + " " + sideName, false);
            return;
        }
        final SymmetricState.Snapshot s = hs.snapshot();
        e.hex(label + ".h", t.get("h").asText(), s.h()).hex(label + ".ck", t.get("ck").asText(), s.ck());
        if (t.get("k").isNull()) {
            e.that(label + ".k should be unset", s.k() == null);
            e.equal(label + ".n", -1L, s.n());
        } else {
            e.hex(label + ".k", t.get("k").asText(), s.k());
            e.equal(label + ".n", t.get("n").asLong(), s.n());
        }
    }

    /** Recomputes the file's debugging DH values with the FIPS DH (SHA-256 of X), from both sides where given. */
    private static void debugDh(final JsonNode v, final Tally.Expect e, final byte[] iStatic, final byte[] rStatic,
                                final byte[] iEph, final byte[] rEph) {
        final JsonNode d = v.get("debug_dh_values_sha256_of_x");
        if (d == null) {
            return;
        }
        // Byte-array keys: the DH runs on the active secp256k1 backend (the suite runs once per backend).
        final byte[] rs = Secp256k1.compressed(rStatic);
        final byte[] is = Secp256k1.compressed(iStatic);
        final byte[] ie = Secp256k1.compressed(iEph);
        final byte[] re = Secp256k1.compressed(rEph);
        final byte[] es = Secp256k1.ecdh(iEph, rs);
        e.bytes("es symmetric", es, Secp256k1.ecdh(rStatic, ie));
        final byte[] ee = Secp256k1.ecdh(iEph, re);
        for (final String k : new String[] {"es", "es_initiator_ephemeral_x_responder_static",
                "se_initiator_ephemeral_x_responder_static"}) {
            if (d.has(k)) {
                e.hex("dh " + k, d.get(k).asText(), es);
            }
        }
        if (d.has("ss")) {
            e.hex("dh ss", d.get("ss").asText(), Secp256k1.ecdh(iStatic, rs));
        }
        if (d.has("ee")) {
            e.hex("dh ee", d.get("ee").asText(), ee);
        }
        if (d.has("ee_check_responder_side")) {
            e.hex("dh ee (responder side)", d.get("ee_check_responder_side").asText(), Secp256k1.ecdh(rEph, ie));
        }
        if (d.has("se_initiator_static_x_responder_ephemeral")) {
            e.hex("dh se", d.get("se_initiator_static_x_responder_ephemeral").asText(),
                    Secp256k1.ecdh(iStatic, re));
            e.bytes("dh se (responder side)", Secp256k1.ecdh(iStatic, re), Secp256k1.ecdh(rEph, is));
        }
    }

    /** The messages and both results of a handshake run from a vector's fixed keys, ephemerals and epochs. */
    record Driven(byte[] msg1, byte[] msg2, byte[] msg3, HandshakeResult initiator, HandshakeResult responder) {
    }

    /**
     * Runs both sides of a vector's handshake with its fixed secrets, each side reading the other's real output
     * (not the file's bytes), for checkers of other files that build on this handshake.
     */
    static Driven drive(final JsonNode v, final Pattern pattern) throws NoiseException {
        final HandshakeState init = HandshakeState.initiator(pattern, Hex.field(v, "initiator_static_secret_hex"),
                Hex.field(v, "initiator_knows_responder_static_as_hex"), Hex.field(v, "initiator_epoch_hex"),
                EphemeralSource.fixed(Hex.field(v, "initiator_ephemeral_secret_hex")));
        final HandshakeState resp = HandshakeState.responder(pattern, Hex.field(v, "responder_static_secret_hex"),
                Hex.field(v, "responder_epoch_hex"), EphemeralSource.fixed(Hex.field(v,
                        "responder_ephemeral_secret_hex")));
        final byte[] m1 = init.writeMessage1();
        resp.readMessage1(m1);
        final byte[] m2 = resp.writeMessage2();
        init.readMessage2(m2);
        byte[] m3 = null;
        if (pattern == Pattern.XK) {
            m3 = init.writeMessage3();
            resp.readMessage3(m3);
        }
        return new Driven(m1, m2, m3, init.finish(), resp.finish());
    }

    /**
     * The vector a cross-file reference such as {@code "noise_ik.json vector 'ik-basic' (...)"} names, read from
     * beside {@code file}.
     */
    static JsonNode referencedVector(final Path file, final String reference) throws IOException {
        // fqn: java.util.regex.Pattern, beside the Noise Pattern
        final var m = java.util.regex.Pattern.compile("^(\\S+\\.json) vector '([^']+)'").matcher(reference);
        if (!m.find()) {
            throw new IllegalArgumentException("unreadable handshake reference: " + reference);
        }
        final JsonNode root = new ObjectMapper().readTree(file.resolveSibling(m.group(1)).toFile());
        for (final JsonNode v : root.get("vectors")) {
            if (v.get("name").asText().equals(m.group(2))) {
                return v;
            }
        }
        throw new IllegalArgumentException("no vector " + m.group(2) + " in " + m.group(1));
    }
}
