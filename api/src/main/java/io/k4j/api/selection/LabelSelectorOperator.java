package io.k4j.api.selection;

/** The operators of a label selector requirement, with the spelling upstream's {@code selection.Operator} uses. */
public enum LabelSelectorOperator {
    IN("in"),
    NOT_IN("notin"),
    EQUALS("="),
    DOUBLE_EQUALS("=="),
    NOT_EQUALS("!="),
    EXISTS("exists"),
    DOES_NOT_EXIST("!"),
    GREATER_THAN("gt"),
    LESS_THAN("lt");

    private final String symbol;

    LabelSelectorOperator(String symbol) {
        this.symbol = symbol;
    }

    /** Upstream's string for the operator, as in error messages. */
    public String symbol() {
        return symbol;
    }
}
