package org.peerdex.simulations.net;

import java.lang.reflect.Constructor;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Rewrites the actor refs inside a wire message (records, lists and optionals of them), as deserializing on the
 * receiving side of a real network does: a ref that arrives is a handle that goes back over the network, not the
 * sender's actor itself. Records are rebuilt through their canonical constructors (so their validation runs);
 * classes that cannot hold a ref are passed through untouched.
 */
public final class RefRewriter {
    private record Shape(RecordComponent[] components, Constructor<?> constructor, boolean[] mayHoldRefs) {}

    private final Map<Class<?>, Optional<Shape>> shapes = new ConcurrentHashMap<>();

    /** A copy of {@code message} with every ref replaced by {@code map(ref)}; the same object if none changed. */
    public Object rewrite(Object message, UnaryOperator<ActorRef<?>> map) {
        return walk(message, map);
    }

    @SuppressWarnings("unchecked")
    private Object walk(Object v, UnaryOperator<ActorRef<?>> map) {
        if (v == null) return null;
        if (v instanceof ActorRef<?> r) return map.apply(r);
        if (v instanceof List<?> list) {
            List<Object> out = null;
            for (int i = 0; i < list.size(); i++) {
                Object e = list.get(i);
                Object w = walk(e, map);
                if (w != e && out == null) {
                    out = new ArrayList<>(list.size());
                    for (int j = 0; j < i; j++) out.add(list.get(j));
                }
                if (out != null) out.add(w);
            }
            return out == null ? v : Collections.unmodifiableList(out);
        }
        if (v instanceof Optional<?> o) {
            if (o.isEmpty()) return v;
            Object w = walk(o.get(), map);
            return w == o.get() ? v : Optional.of(w);
        }
        if (v instanceof Collection<?> || v instanceof Map<?, ?>) {
            throw new IllegalArgumentException("sets and maps in wire messages are not rewritten: " + v.getClass());
        }
        Optional<Shape> shape = shapes.computeIfAbsent(v.getClass(), RefRewriter::shapeOf);
        if (shape.isEmpty()) return v;
        Shape s = shape.get();
        Object[] args = new Object[s.components.length];
        boolean changed = false;
        try {
            for (int i = 0; i < args.length; i++) {
                Object c = s.components[i].getAccessor().invoke(v);
                args[i] = s.mayHoldRefs[i] ? walk(c, map) : c;
                if (args[i] != c) changed = true;
            }
            return changed ? s.constructor.newInstance(args) : v;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot rebuild " + v.getClass().getName(), e);
        }
    }

    private static Optional<Shape> shapeOf(Class<?> c) {
        if (!c.isRecord()) return Optional.empty();
        RecordComponent[] comps = c.getRecordComponents();
        boolean[] may = new boolean[comps.length];
        boolean any = false;
        Class<?>[] types = new Class<?>[comps.length];
        for (int i = 0; i < comps.length; i++) {
            types[i] = comps[i].getType();
            may[i] = mayHoldRefs(types[i], 0);
            any |= may[i];
        }
        if (!any) return Optional.empty();
        try {
            Constructor<?> k = c.getDeclaredConstructor(types);
            k.setAccessible(true);
            for (RecordComponent rc : comps) rc.getAccessor().setAccessible(true);
            return Optional.of(new Shape(comps, k, may));
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no canonical constructor on " + c.getName(), e);
        }
    }

    private static boolean mayHoldRefs(Class<?> t, int depth) {
        if (t.isPrimitive() || t.isEnum() || t.isArray() || t == String.class || Number.class.isAssignableFrom(t)
                || t == Boolean.class || t == Character.class) return false;
        if (ActorRef.class.isAssignableFrom(t)) return true;
        if (t.isRecord()) {
            if (depth > 8) return true;
            for (RecordComponent rc : t.getRecordComponents()) if (mayHoldRefs(rc.getType(), depth + 1)) return true;
            return false;
        }
        // interfaces, lists, Object: decided per value
        return !Modifier.isFinal(t.getModifiers()) || Collection.class.isAssignableFrom(t);
    }
}
