package io.k4j.api.codec;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonFactoryBuilder;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.util.BufferRecycler;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.core.util.RecyclerPool;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.JsonNodeFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Comparator;

/**
 * The one Jackson setup every module shares, so that all JSON k4j reads and writes follows the same rules:
 * <ul>
 *   <li>object properties keep their order (trees are {@link java.util.LinkedHashMap}-backed);</li>
 *   <li>integers keep their full int64 (or larger) value and decimals are read as {@link java.math.BigDecimal}
 *       without normalisation, so a value written back is the value read ({@code 0.10} stays {@code 0.10});</li>
 *   <li>typed reads ignore unknown properties (objects from newer clients still decode into fabric8 models);</li>
 *   <li>typed writes leave out {@code null} properties, as upstream's {@code omitempty} does for pointers.</li>
 * </ul>
 * Request bodies are decoded with {@link Codec}, which adds upstream's error messages; this class is for
 * trusted JSON (storage, internal conversions). {@link ObjectMapper} is thread-safe once configured; so is
 * this class.
 */
public final class Json {
    private static final JsonNodeFactory NODE_FACTORY = JsonNodeFactory.withExactBigDecimals(true);
    /**
     * The parsers' and generators' buffers, shared by all threads. Jackson's default keeps them per thread, and every
     * request runs on a new virtual thread: each encoding allocated (and zeroed) a fresh 8 KB buffer and more.
     */
    public static final RecyclerPool<BufferRecycler> BUFFERS = JsonRecyclerPools.sharedConcurrentDequePool();

    private static final JsonMapper MAPPER = newMapper(new JsonFactoryBuilder());
    /**
     * Without Jackson's table of field names shared by all parses: whole objects carry names unique to them (managedFields
     * keys such as {@code k:{"ip":"10.42.0.7"}}, {@code v:"10.42.3.0/24"}), and the first new name of a parse copies
     * the whole shared table, which such names keep large. A running pod's stored JSON took 35–41 µs to parse with the
     * table and 8.4 without. Where every name is known the table is better: 7.6 µs, and 18.2 KB allocated per parse
     * of a 2.3 KB pod against 26.5 KB without it, where every name becomes a new string.
     */
    private static final JsonMapper MAPPER_WITHOUT_NAME_TABLE = newMapper(new JsonFactoryBuilder().disable(JsonFactory.Feature.CANONICALIZE_FIELD_NAMES));

    private static JsonMapper newMapper(JsonFactoryBuilder factory) {
        // Go's decoder accepts 10000 levels of nesting; Jackson's default of 1000 would reject objects upstream takes.
        factory.streamReadConstraints(StreamReadConstraints.builder().maxNestingDepth(10_000).build());
        factory.recyclerPool(BUFFERS);
        return JsonMapper.builder(factory.build())
                .nodeFactory(NODE_FACTORY)
                .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .disable(JsonNodeFeature.STRIP_TRAILING_BIGDECIMAL_ZEROES)
                .build();
    }

    /** Equal numbers are equal whatever node type holds them (an int parsed from storage, a long set by a default). */
    private static final Comparator<JsonNode> NUMBERS_BY_VALUE = (left, right) -> {
        if (left.isNumber() && right.isNumber()) {
            return left.decimalValue().compareTo(right.decimalValue());
        }
        return left.equals(right) ? 0 : 1;
    };

    private Json() {}

    /** The shared mapper; do not reconfigure it. */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** The node factory every tree should be built with (exact decimals). */
    public static JsonNodeFactory nodeFactory() {
        return NODE_FACTORY;
    }

    /** A new empty object node. */
    public static ObjectNode object() {
        return NODE_FACTORY.objectNode();
    }

    /** Parses trusted JSON bytes into a tree. */
    public static JsonNode read(byte[] json) {
        try {
            return MAPPER.readTree(json);
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /**
     * Parses trusted JSON into a tree without the field-name table that {@link #read(byte[])} shares between parses
     * (see {@link #MAPPER_WITHOUT_NAME_TABLE}): for stored objects, whose managedFields carry names of their own once a
     * pod runs, and the simulated nodes' API answers about running pods; {@link #read(byte[])} where names repeat.
     */
    public static JsonNode readWithoutNameTable(byte[] json) {
        try {
            return MAPPER_WITHOUT_NAME_TABLE.readTree(json);
        } catch (IOException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /**
     * A streaming parser over trusted JSON bytes, without the field-name table (see {@link #MAPPER_WITHOUT_NAME_TABLE})
     * and with the shared buffers, for a caller that reads a few fields of an answer instead of the whole tree.
     */
    public static JsonParser parserWithoutNameTable(byte[] json) throws IOException {
        return MAPPER_WITHOUT_NAME_TABLE.createParser(json);
    }

    /** Parses trusted JSON text into a tree. */
    public static JsonNode read(String json) {
        try {
            return MAPPER.readTree(json);
        } catch (JsonProcessingException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /** Compact JSON bytes of a tree or model object. */
    public static byte[] write(Object value) {
        try {
            return MAPPER.writeValueAsBytes(value);
        } catch (JsonProcessingException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /** Compact JSON text of a tree or model object. */
    public static String writeString(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException exception) {
            throw new UncheckedIOException(exception);
        }
    }

    /** Converts a tree into a typed model (e.g. a fabric8 {@code Pod}). */
    public static <T> T convert(JsonNode tree, Class<T> type) {
        try {
            return MAPPER.treeToValue(tree, type);
        } catch (JsonProcessingException exception) {
            throw new IllegalArgumentException(exception.getOriginalMessage(), exception);
        }
    }

    /**
     * Whether two values are equal as upstream's semantic equality sees them after decoding: an absent value
     * ({@code null} or a missing node) equals a JSON {@code null}, and numbers compare by value whatever node
     * type holds them ({@code 1}, {@code 1L} and {@code 1.0}), at any depth.
     */
    public static boolean semanticEquals(JsonNode left, JsonNode right) {
        boolean leftAbsent = left == null || left.isMissingNode() || left.isNull();
        boolean rightAbsent = right == null || right.isMissingNode() || right.isNull();
        if (leftAbsent || rightAbsent) {
            return leftAbsent == rightAbsent;
        }
        return left.equals(NUMBERS_BY_VALUE, right);
    }

    /** Converts a typed model into a tree. */
    public static <T extends JsonNode> T toTree(Object value) {
        return MAPPER.valueToTree(value);
    }
}
