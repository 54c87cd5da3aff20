package io.k4j.apiserver.authorization;

/** An authorizer's answer. Authorizers are asked in order until one allows or denies. */
public enum Decision {
    ALLOW,
    DENY,
    NO_OPINION
}
