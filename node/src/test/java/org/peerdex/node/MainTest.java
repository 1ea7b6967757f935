package org.peerdex.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The command line: bad options give one line on stderr and exit code 2, never a stack trace. */
class MainTest {
    @TempDir
    Path dir;

    private static String stderrOf(Runnable r) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            r.run();
        } finally {
            System.setErr(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }

    private static void exitsWith2AndOneLine(String... args) {
        int[] code = {-1};
        String err = stderrOf(() -> code[0] = Main.run(args));
        assertEquals(2, code[0], String.join(" ", args));
        assertTrue(err.startsWith("peerdex: "), err);
        assertEquals(1, err.strip().lines().count(), "one line: " + err);
        assertTrue(!err.contains("Exception"), err);
    }

    @Test
    void badOptionsExitWithCode2() {
        exitsWith2AndOneLine("--no-such-option");
        exitsWith2AndOneLine("--http", "nonsense");
        exitsWith2AndOneLine("--http", "127.0.0.1:99999");
        exitsWith2AndOneLine("--cluster", "127.0.0.1:x");
        exitsWith2AndOneLine("--seed", "justahost");
        exitsWith2AndOneLine("--mode", "sideways");
        exitsWith2AndOneLine("--network", "bad name!");
        exitsWith2AndOneLine("--config", dir.resolve("missing.conf").toString());
    }

    @Test
    void helpListsEveryOptionAndExitsWith0() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = Main.run("--help");
        } finally {
            System.setOut(old);
        }
        assertEquals(0, code);
        String help = buf.toString(StandardCharsets.UTF_8);
        for (String o : new String[] {"--data", "--http", "--cluster", "--seed", "--network", "--mode", "--config"}) {
            assertTrue(help.contains(o), o + " in\n" + help);
        }
    }
}
