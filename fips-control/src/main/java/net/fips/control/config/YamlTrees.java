package net.fips.control.config;

import java.math.BigInteger;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.AbstractConstruct;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.representer.Representer;

/**
 * Turns YAML text into plain trees of {@code Map<String,Object>}, {@code List<Object>}, String, Boolean,
 * Integer/Long/BigInteger and Double, safely.
 *
 * <p>Safety: only the standard YAML tags are constructed (no Java types, no global tags), duplicate keys are
 * rejected (the reference's serde_yaml rejects them too), and text size, nesting depth and alias expansion are
 * bounded so a hostile file cannot exhaust memory or the stack.
 *
 * <p>Scalars resolve like YAML 1.2's core schema, which is what the reference's serde_yaml uses, not SnakeYAML's
 * YAML 1.1 default: {@code yes/no/on/off} stay strings, {@code 010} is ten, {@code 1:20} and dates stay strings,
 * and {@code <<} is an ordinary key (so it is reported as unknown rather than silently merged).
 */
final class YamlTrees {
    /** Largest accepted config text, in code points; real configs are a few KiB. */
    static final int MAX_CODE_POINTS = 1 << 20;
    /** Deepest accepted nesting; the schema is five levels deep. */
    static final int MAX_NESTING = 32;
    /** Aliases are legal YAML but a config has no need for many; the cap stops billion-laughs expansion. */
    static final int MAX_ALIASES = 16;

    private static final Pattern BOOL = Pattern.compile("^(?:true|True|TRUE|false|False|FALSE)$");
    private static final Pattern INT = Pattern.compile("^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$");
    private static final Pattern FLOAT = Pattern.compile(
            "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
                    + "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$");
    private static final Pattern NULL = Pattern.compile("^(?:~|null|Null|NULL|)$");

    private YamlTrees() {
    }

    /**
     * @param text   the YAML text of one document
     * @param source named in errors
     * @return the top-level mapping; an empty or all-comment document gives an empty map
     * @throws ConfigException when the text is not one well-formed YAML mapping
     */
    static Map<String, Object> parse(final String text, final String source) throws ConfigException {
        final Object root;
        try {
            root = newYaml().load(text);
        } catch (final MarkedYAMLException e) {
            throw new ConfigException(source, "malformed YAML" + where(e.getProblemMark()) + ": " + oneLine(e));
        } catch (final YAMLException e) {
            throw new ConfigException(source, "malformed YAML: " + oneLine(e));
        } catch (final RuntimeException e) {
            // SnakeYAML's constructors can throw plain runtime exceptions (number parsing, class casts on odd
            // tags); for a config file any of them just means the text is not acceptable YAML.
            throw new ConfigException(source, "malformed YAML: "
                    + (e.getMessage() == null || e.getMessage().isBlank() ? "a value cannot be read" : e.getMessage()));
        }
        if (root == null) {
            return new LinkedHashMap<>();
        }
        if (!(root instanceof Map<?, ?> map)) {
            throw new ConfigException(source, "(top level): expected a mapping, got " + ConfigReader.describe(root));
        }
        @SuppressWarnings("unchecked")
        final Map<String, Object> cast = (Map<String, Object>) (Map<?, ?>) map;
        return cast;
    }

    private static Yaml newYaml() {
        final LoaderOptions options = new LoaderOptions();
        options.setAllowDuplicateKeys(false);
        options.setAllowRecursiveKeys(false);
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setNestingDepthLimit(MAX_NESTING);
        options.setCodePointLimit(MAX_CODE_POINTS);
        options.setProcessComments(false);
        options.setTagInspector(tag -> false);
        return new Yaml(new StrictConstructor(options), new Representer(
                new DumperOptions()), new DumperOptions(), options,
                new CoreSchemaResolver());
    }

    private static String where(final Mark mark) {
        return mark == null ? "" : " at line " + (mark.getLine() + 1) + ", column " + (mark.getColumn() + 1);
    }

    private static String oneLine(final YAMLException e) {
        final String problem = e instanceof MarkedYAMLException m && m.getProblem() != null ? m.getProblem()
                : e.getMessage();
        return problem == null ? "unreadable text" : problem.replaceAll("\\s+", " ").trim();
    }

    /** YAML 1.2 core schema scalars. */
    private static final class CoreSchemaResolver extends Resolver {
        @Override
        protected void addImplicitResolvers() {
            addImplicitResolver(Tag.BOOL, BOOL, "tTfF");
            addImplicitResolver(Tag.INT, INT, "-+0123456789");
            addImplicitResolver(Tag.FLOAT, FLOAT, "-+0123456789.");
            addImplicitResolver(Tag.NULL, NULL, "~nN\0");
            addImplicitResolver(Tag.NULL, Pattern.compile("^$"), null);
        }
    }

    /** The safe constructor with YAML 1.2 integers (no YAML 1.1 octal, binary, sexagesimal or underscores). */
    private static final class StrictConstructor extends SafeConstructor {
        StrictConstructor(final LoaderOptions options) {
            super(options);
            this.yamlConstructors.put(Tag.INT, new CoreInt());
        }

        private final class CoreInt extends AbstractConstruct {
            @Override
            public Object construct(final Node node) {
                final String value = constructScalar((ScalarNode) node);
                final BigInteger big;
                if (value.startsWith("0x")) {
                    big = new BigInteger(value.substring(2), 16);
                } else if (value.startsWith("0o")) {
                    big = new BigInteger(value.substring(2), 8);
                } else {
                    big = new BigInteger(value.startsWith("+") ? value.substring(1) : value);
                }
                if (big.bitLength() < 32) {
                    return big.intValue();
                }
                return big.bitLength() < 64 ? (Object) big.longValue() : big;
            }
        }
    }
}
