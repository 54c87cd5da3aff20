package io.k4j.controllerkit.informers;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.databind.deser.std.StringDeserializer;
import io.k4j.api.codec.StringTable;
import java.io.IOException;

/**
 * Decodes short JSON strings to one shared {@link String} per value through a {@link StringTable}: each pod in an
 * informer's cache would otherwise hold its own copies of the dozens of values every pod repeats. A value the table
 * holds is returned from the parser's characters without allocating. Thread-safe.
 */
final class CanonicalStrings extends StdScalarDeserializer<String> {
    private final StringTable table = new StringTable(8192);

    CanonicalStrings() {
        super(String.class);
    }

    @Override
    public String deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() != JsonToken.VALUE_STRING || parser.getTextLength() > StringTable.MAX_LENGTH) {
            return StringDeserializer.instance.deserialize(parser, context);
        }
        return table.canonical(parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength());
    }

    @Override
    public boolean isCachable() {
        return true;
    }
}
