package net.fips.testing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** Hex text: literals of either case, renderings, and the vector fields. */
class HexTest {
    @Test
    void parsesEitherCaseAndRendersLowerCase() {
        assertArrayEquals(new byte[] {0x00, (byte) 0xAB, 0x7F}, Hex.bytes("00ab7f"));
        assertArrayEquals(new byte[] {0x00, (byte) 0xAB, 0x7F}, Hex.bytes("00AB7F"));
        assertEquals("00ab7f", Hex.of(new byte[] {0x00, (byte) 0xAB, 0x7F}));
        assertEquals("66697073", Hex.ofAscii("fips"));
        assertThrows(IllegalArgumentException.class, () -> Hex.bytes("abc"));
        assertThrows(IllegalArgumentException.class, () -> Hex.bytes("zz"));
    }

    @Test
    void vectorFieldsMustBeHexText() throws Exception {
        final JsonNode v = new ObjectMapper().readTree("{\"a_hex\": \"0102\", \"n\": 12}");
        assertArrayEquals(new byte[] {1, 2}, Hex.field(v, "a_hex"));
        final AssertionError missing = assertThrows(AssertionError.class, () -> Hex.field(v, "b_hex"));
        assertTrue(missing.getMessage().contains("'b_hex' is missing"), missing.getMessage());
        final AssertionError number = assertThrows(AssertionError.class, () -> Hex.field(v, "n"));
        assertTrue(number.getMessage().contains("'n' is not text"), number.getMessage());
    }
}
