package net.fips.control.ctl;

import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.core.JsonProcessingException;

/**
 * The JSON conventions of the control socket: the shared mapper, the response envelope and a pretty printer that
 * lays out JSON the way the reference's {@code fipsctl} does ({@code "key": value}, two-space indent, one array
 * element per line, {@code []} and {@code {}} for empty containers).
 */
public final class ControlJson {

    /** The mapper for requests and responses; thread-safe once configured. */
    public static final ObjectMapper MAPPER = JsonMapper.builder()
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    private ControlJson() {
    }

    /**
     * @param data the command's data
     * @return {@code {"status":"ok","data":data}}
     */
    public static ObjectNode ok(final JsonNode data) {
        final ObjectNode r = MAPPER.createObjectNode();
        r.put("status", "ok");
        r.set("data", data);
        return r;
    }

    /**
     * @param message the error text
     * @return {@code {"status":"error","message":message}}
     */
    public static ObjectNode error(final String message) {
        final ObjectNode r = MAPPER.createObjectNode();
        r.put("status", "error");
        r.put("message", message);
        return r;
    }

    /**
     * @param value a JSON tree
     * @return the tree as one line of compact JSON, without a newline
     */
    public static String compact(final JsonNode value) {
        return value.toString();
    }

    /**
     * @param value a JSON tree
     * @return the tree pretty-printed like the reference's {@code fipsctl} output, without a final newline
     */
    public static String pretty(final JsonNode value) {
        final DefaultIndenter indenter = new DefaultIndenter("  ", "\n");
        final Separators separators = Separators.createDefaultInstance()
                .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                .withObjectEmptySeparator("")
                .withArrayEmptySeparator("");
        final DefaultPrettyPrinter printer = new DefaultPrettyPrinter()
                .withSeparators(separators);
        printer.indentObjectsWith(indenter);
        printer.indentArraysWith(indenter);
        try {
            return MAPPER.writer(printer).writeValueAsString(value);
        } catch (final JsonProcessingException e) {
            // A tree built by Jackson always serialises; keep the compact form as a fallback.
            return value.toString();
        }
    }
}
