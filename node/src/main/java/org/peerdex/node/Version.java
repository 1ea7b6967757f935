package org.peerdex.node;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version, from a resource Maven filters. */
public final class Version {
    public static final String VERSION = load();

    private Version() {}

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("/peerdex/version.properties")) {
            Properties p = new Properties();
            if (in != null) p.load(in);
            return p.getProperty("version", "dev");
        } catch (IOException e) {
            return "dev";
        }
    }
}
