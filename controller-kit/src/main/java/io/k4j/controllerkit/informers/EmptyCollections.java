package io.k4j.controllerkit.informers;

import static java.lang.invoke.MethodType.methodType;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import com.fasterxml.jackson.databind.jsontype.TypeDeserializer;
import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Lets decoded fabric8 model objects share empty collections instead of each keeping its own.
 *
 * <p>Every model object (a pod has about thirty: its spec, each container, port, volume, toleration, quantity...) is
 * born with an {@code additionalProperties} map for fields the model does not know, almost always empty; in an
 * informer's cache those empty maps were a sixth of the heap of a server holding 100,000 pods. After any object is
 * decoded, an empty one is replaced by {@link Collections#emptyMap()}: nothing in k4j calls
 * {@code setAdditionalProperty} outside of decoding, and fabric8's builders copy the map.
 *
 * <p>The models also start every list and map field as a new empty {@link ArrayList} or {@link LinkedHashMap}: a pod
 * decoded from a watch event kept about forty empty lists (a pod's spec has eleven list fields, a container eight),
 * an eighth of what each pod in the informers' caches kept alive. For decodings that set {@link #WATCHED_OBJECTS}, the
 * objects that informers cache and hand to every component of the process, read-only (see
 * {@link SharedEventDecoding}), empty ones are replaced by {@link Collections#emptyList()} and
 * {@link Collections#emptyMap()}, other lists are trimmed to their size (about 220 bytes a pod), and the parts of
 * shared types take {@link CanonicalValues}' instance of their value; a component that changes such an object copies
 * it first, and fabric8's builders copy each list and map. Objects from other responses (GET, LIST, writes), which
 * callers change and write back, keep their own. Thread-safe.
 */
public final class EmptyCollections extends BeanDeserializerModifier {
    /** The deserialization attribute that marks objects decoded for informers, which may share empty lists and maps. */
    static final Object WATCHED_OBJECTS = EmptyCollections.class.getName() + ".watchedObjects";
    private static final Map<String, Object> EMPTY = Collections.emptyMap();
    private static final MethodType GETTER = methodType(Object.class, Object.class);
    private static final MethodType SETTER = methodType(void.class, Object.class, Object.class);
    /** The accessors of each model class's additionalProperties and of its other list and map fields. */
    private static final ClassValue<Optional<Accessors>> ACCESSORS = new ClassValue<>() {
        @Override
        protected Optional<Accessors> computeValue(Class<?> type) {
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            Optional<Property> additional = property(lookup, type, "AdditionalProperties", Map.class);
            if (additional.isEmpty()) {
                return Optional.empty();
            }
            List<Property> collections = new ArrayList<>();
            for (Method method : type.getMethods()) {
                Class<?> returned = method.getReturnType();
                if (method.getName().startsWith("get") && !method.getName().equals("getAdditionalProperties") && method.getParameterCount() == 0
                        && !Modifier.isStatic(method.getModifiers()) && (returned == List.class || returned == Map.class)) {
                    property(lookup, type, method.getName().substring(3), returned).ifPresent(collections::add);
                }
            }
            return Optional.of(new Accessors(additional.get(), List.copyOf(collections)));
        }
    };

    /** A getter and setter pair, typed (Object)Object and (Object, Object)void so that they are called exactly. */
    private record Property(MethodHandle getter, MethodHandle setter) {}

    private record Accessors(Property additionalProperties, List<Property> collections) {}

    private static Optional<Property> property(MethodHandles.Lookup lookup, Class<?> type, String name, Class<?> valueType) {
        try {
            return Optional.of(new Property(lookup.findVirtual(type, "get" + name, methodType(valueType)).asType(GETTER),
                    lookup.findVirtual(type, "set" + name, methodType(void.class, valueType)).asType(SETTER)));
        } catch (NoSuchMethodException | IllegalAccessException e) {
            return Optional.empty();
        }
    }

    /** Shared values of the watched objects' repeated parts; one table for all decodings of the process. */
    private static final CanonicalValues VALUES = new CanonicalValues(4096);

    EmptyCollections() {}

    /**
     * Replaces the empty list and map fields of one model object (not of the objects it holds), additionalProperties
     * included, with shared empty ones, as for the objects of watch events: for objects built to be kept and only
     * read, such as a cache's trimmed copies.
     *
     * @return the object itself
     */
    public static <T> T shareEmptyCollections(T model) {
        ACCESSORS.get(model.getClass()).ifPresent(accessors -> share(model, accessors, true));
        return model;
    }

    private static void share(Object model, Accessors accessors, boolean collections) {
        try {
            shareIfEmpty(model, accessors.additionalProperties());
            if (collections) {
                for (Property property : accessors.collections()) {
                    shareIfEmpty(model, property);
                }
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cannot reach the collections of " + model.getClass().getName(), e);
        }
    }

    /**
     * Sets the property to the shared empty list or map when it holds a new empty one, as the models start it; trims
     * another list to its size, since decoding grows a list to ten slots at its first element and most hold one or two.
     */
    private static void shareIfEmpty(Object model, Property property) throws Throwable {
        Object value = (Object) property.getter().invokeExact(model);
        if (value instanceof ArrayList<?> list) {
            if (list.isEmpty()) {
                property.setter().invokeExact(model, (Object) Collections.emptyList());
            } else {
                list.trimToSize();
            }
        } else if (value instanceof LinkedHashMap<?, ?> map && map.isEmpty()) {
            property.setter().invokeExact(model, (Object) EMPTY);
        }
    }

    @Override
    public JsonDeserializer<?> modifyDeserializer(DeserializationConfig config, BeanDescription description, JsonDeserializer<?> deserializer) {
        Class<?> type = description.getBeanClass();
        if (!type.getName().startsWith("io.fabric8.")) {
            return deserializer;
        }
        return ACCESSORS.get(type).<JsonDeserializer<?>>map(accessors -> new Sharing(deserializer, type, accessors)).orElse(deserializer);
    }

    /** The model class's deserializer, with empty collections replaced in what it returns. */
    private static final class Sharing extends DelegatingDeserializer {
        private final Class<?> type;
        private final Accessors accessors;
        /** Whether watched objects of this type take the instance {@link CanonicalValues} holds for their value. */
        private final boolean canonical;

        Sharing(JsonDeserializer<?> delegate, Class<?> type, Accessors accessors) {
            super(delegate);
            this.type = type;
            this.accessors = accessors;
            this.canonical = CanonicalValues.TYPES.contains(type);
        }

        @Override
        protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
            return new Sharing(delegate, type, accessors);
        }

        @Override
        public Object deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            return share(super.deserialize(parser, context), context, true);
        }

        @Override
        @SuppressWarnings("unchecked")
        public Object deserialize(JsonParser parser, DeserializationContext context, Object into) throws IOException {
            // The caller's own instance, filled in: it stays that instance.
            return share(((JsonDeserializer<Object>) _delegatee).deserialize(parser, context, into), context, false);
        }

        @Override
        public Object deserializeWithType(JsonParser parser, DeserializationContext context, TypeDeserializer typeDeserializer) throws IOException {
            return share(super.deserializeWithType(parser, context, typeDeserializer), context, true);
        }

        /** The decoded object compacted; for watched objects of a shared type, the table's instance of its value. */
        private Object share(Object decoded, DeserializationContext context, boolean mayReplace) {
            if (decoded == null || decoded.getClass() != type) {
                return decoded;
            }
            boolean watched = context.getAttribute(WATCHED_OBJECTS) == Boolean.TRUE;
            EmptyCollections.share(decoded, accessors, watched);
            return watched && canonical && mayReplace ? VALUES.canonical(decoded) : decoded;
        }
    }
}
