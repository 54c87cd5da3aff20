package io.k4j.scheduler.config;

/** The extension points a profile's {@code plugins} section names, with their YAML field names. */
public enum ExtensionPoint {
    PRE_ENQUEUE("preEnqueue"),
    QUEUE_SORT("queueSort"),
    PRE_FILTER("preFilter"),
    FILTER("filter"),
    POST_FILTER("postFilter"),
    PRE_SCORE("preScore"),
    SCORE("score"),
    RESERVE("reserve"),
    PERMIT("permit"),
    PRE_BIND("preBind"),
    BIND("bind"),
    POST_BIND("postBind");

    private final String fieldName;

    ExtensionPoint(String fieldName) {
        this.fieldName = fieldName;
    }

    public String fieldName() {
        return fieldName;
    }
}
