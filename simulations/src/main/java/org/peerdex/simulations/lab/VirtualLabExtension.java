package org.peerdex.simulations.lab;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit 5 extension: a test method (or constructor) parameter of type {@link VirtualLab} gets a fresh lab,
 * closed after the test. Size and scenario keys come from {@link Lab} on the parameter (default 10 peers).
 */
public final class VirtualLabExtension implements ParameterResolver, AfterEachCallback {
    /** Lab size and scenario keys for an injected {@link VirtualLab}. */
    @Retention(RetentionPolicy.RUNTIME)
    @Target({ElementType.PARAMETER})
    public @interface Lab {
        int peers() default 10;

        /** Scenario keys (HOCON), e.g. {@code "redundancy = 2"}. */
        String scenario() default "";
    }

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(VirtualLabExtension.class);

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        return p.getParameter().getType() == VirtualLab.class;
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        Lab cfg = p.findAnnotation(Lab.class).orElse(null);
        VirtualLab lab = VirtualLab.start(cfg == null ? 10 : cfg.peers(), cfg == null ? "" : cfg.scenario());
        e.getStore(NS).put("lab-" + p.getIndex(), lab);
        return lab;
    }

    @Override
    public void afterEach(ExtensionContext e) {
        for (int i = 0; i < 16; i++) {
            VirtualLab lab = e.getStore(NS).remove("lab-" + i, VirtualLab.class);
            if (lab != null) lab.close();
        }
    }
}
