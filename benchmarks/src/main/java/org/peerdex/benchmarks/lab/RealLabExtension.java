package org.peerdex.benchmarks.lab;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: a test method parameter of type {@link RealLab} gets a fresh lab of real peers, closed
 * (peers stopped, data deleted) after the test. The size comes from {@link Lab} on the parameter (default 3).
 */
public final class RealLabExtension implements ParameterResolver, AfterEachCallback {
    /** Lab size for an injected {@link RealLab}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.PARAMETER})
    public @interface Lab {
        int peers() default 3;
    }

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(RealLabExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == RealLab.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        int peers = p.findAnnotation(Lab.class).map(Lab::peers).orElse(3);
        RealLab lab = RealLab.start(peers);
        e.getStore(NS).put("lab-" + p.getIndex(), lab);
        return lab;
    }

    @Override
    public void afterEach(ExtensionContext e) {
        for (int i = 0; i < 16; i++) {
            RealLab lab = e.getStore(NS).remove("lab-" + i, RealLab.class);
            if (lab != null) lab.close();
        }
    }
}
