package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * A static layer of the web UI's defence against script from the network: ui-static's JavaScript builds the DOM from
 * data as text (dom.js), never through an HTML parser, sets no string event handlers and no unchecked links; its
 * HTML has nothing inline that the Content-Security-Policy would block. (The dynamic layer is the CSP itself, see
 * {@link WebBoundaryTest}, and the validation of metadata from other peers in actors' PostingValidator.)
 */
class UiStaticSafetyTest {
    static final Path UI = Path.of("..", "ui-static", "src", "main", "resources", "peerdex-ui");

    static final Map<String, Pattern> JS_RULES = Map.of(
            "innerHTML/outerHTML", Pattern.compile("\\.(inner|outer)HTML\\b"),
            "insertAdjacentHTML", Pattern.compile("insertAdjacentHTML"),
            "document.write", Pattern.compile("document\\.write"),
            "eval or Function", Pattern.compile("\\beval\\s*\\(|new\\s+Function\\s*\\(|set(Timeout|Interval)\\(\\s*['\"`]"),
            "an on* attribute", Pattern.compile("setAttribute\\(\\s*['\"]on|\\.on[a-z]+\\s*=\\s*['\"`]|<[a-z][^>]*\\son[a-z]+\\s*="),
            "a javascript: URL", Pattern.compile("javascript:", Pattern.CASE_INSENSITIVE),
            "an href not checked by safeHref", Pattern.compile("\\.href\\s*=(?!\\s*['\"]#['\"])|setAttribute\\(\\s*['\"]href"),
            "HTML built as a string", Pattern.compile("['\"`]\\s*<(a|div|span|li|tr|td|p|b|img|script|svg|iframe)[\\s>]"));

    static final Map<String, Pattern> HTML_RULES = Map.of(
            "an inline script", Pattern.compile("<script(?![^>]*\\bsrc=)[^>]*>", Pattern.CASE_INSENSITIVE),
            "an on* handler", Pattern.compile("<[^>]+\\son[a-z]+\\s*=", Pattern.CASE_INSENSITIVE),
            "an inline style", Pattern.compile("<style\\b|<[^>]+\\sstyle\\s*=", Pattern.CASE_INSENSITIVE),
            "a javascript: URL", Pattern.compile("javascript:", Pattern.CASE_INSENSITIVE));

    static List<Path> files(String ext) throws IOException {
        try (Stream<Path> s = Files.walk(UI)) {
            return s.filter(p -> p.toString().endsWith(ext)).sorted().toList();
        }
    }

    /** Full-line and block comments out (they may name what the rules forbid); strings and code stay. */
    static String code(String js) {
        return js.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("(?m)^\\s*//.*$", "");
    }

    @Test
    void javascriptBuildsTheDomFromDataAsTextOnly() throws IOException {
        List<Path> js = files(".js");
        assertTrue(js.size() >= 6, "the UI's scripts: " + js);
        List<String> found = new ArrayList<>();
        for (Path f : js) {
            String[] lines = code(Files.readString(f, StandardCharsets.UTF_8)).split("\n");
            for (int i = 0; i < lines.length; i++) {
                for (Map.Entry<String, Pattern> r : JS_RULES.entrySet()) {
                    Matcher m = r.getValue().matcher(lines[i]);
                    if (m.find()) found.add(UI.relativize(f) + ":" + (i + 1) + " " + r.getKey() + ": " + lines[i].trim());
                }
            }
        }
        found.forEach(System.out::println);
        assertEquals(List.of(), found);
    }

    @Test
    void pagesHaveNothingInlineTheContentSecurityPolicyWouldBlock() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path f : files(".html")) {
            String html = Files.readString(f, StandardCharsets.UTF_8).replaceAll("(?s)<!--.*?-->", "");
            for (Map.Entry<String, Pattern> r : HTML_RULES.entrySet()) {
                Matcher m = r.getValue().matcher(html);
                while (m.find()) found.add(UI.relativize(f) + " " + r.getKey() + ": " + m.group());
            }
            // every page that runs a console or search script loads dom.js first
            if (html.contains("/app.js") || html.contains("/admin/admin.js") || html.contains("/search-widget.js")
                    || html.contains("/admin/federation.js")) {
                assertTrue(html.contains("<script src=\"/dom.js\"></script>"), f + " loads dom.js");
            }
        }
        found.forEach(System.out::println);
        assertEquals(List.of(), found);
    }
}
