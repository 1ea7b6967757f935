package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.junit.jupiter.api.Test;

/** The manual as the peer serves it: docs/*.md from the classpath, rendered by {@link Markdown}. */
class MarkdownTest {
    private static final Pattern DELIMITER_ROW = Pattern.compile("^\\|?\\s*:?-{3,}:?\\s*(\\|\\s*:?-{3,}:?\\s*)*\\|?$");

    @Test
    void aTableOfTheManualRendersAsATableWithItsHeaderCellsAndEveryRow() {
        ManualPages.Page page = ManualPages.find("architecture").orElseThrow();
        List<String> lines = page.markdown().lines().toList();
        int header = 0;
        while (!(lines.get(header).startsWith("|") && DELIMITER_ROW.matcher(lines.get(header + 1)).matches())) header++;
        int rows = 0;
        while (header + 2 + rows < lines.size() && lines.get(header + 2 + rows).startsWith("|")) rows++;

        Element table = Jsoup.parse(Markdown.toHtml(page.markdown())).selectFirst("table");
        assertNotNull(table, "architecture.md's first table is not a <table>");
        assertEquals(cells(lines.get(header)), table.select("thead th").eachText());
        assertEquals(rows, table.select("tbody tr").size());
        Element firstRow = table.selectFirst("tbody tr");
        assertEquals(cells(lines.get(header + 2)), firstRow.select("td").eachText());
        // inline Markdown inside a cell is rendered, not shown as backticks
        if (lines.get(header + 2).contains("`")) assertNotNull(firstRow.selectFirst("td code"));
    }

    @Test
    void everyTableOfEveryManualPageBecomesATable() {
        List<ManualPages.Page> pages = ManualPages.all();
        assertFalse(pages.isEmpty(), "no manual on the classpath");
        int tables = 0;
        for (ManualPages.Page p : pages) {
            int inMarkdown = tablesIn(p.markdown());
            Document html = Jsoup.parse(Markdown.toHtml(p.markdown()));
            assertEquals(inMarkdown, html.select("table").size(), p.name());
            assertTrue(html.select("p.row").isEmpty(), p.name());
            tables += inMarkdown;
        }
        assertTrue(tables > 20, "the manual has " + tables + " tables");
    }

    @Test
    void everyAnchorLinkInTheManualLandsOnAHeadingId() {
        Map<String, Document> rendered = new HashMap<>();
        for (ManualPages.Page p : ManualPages.all()) rendered.put(p.name(), Jsoup.parse(Markdown.toHtml(p.markdown())));
        List<String> broken = new ArrayList<>();
        int samePage = 0;
        int otherPage = 0;
        for (Map.Entry<String, Document> e : rendered.entrySet()) {
            for (Element a : e.getValue().select("a[href]")) {
                String href = a.attr("href");
                assertFalse(href.matches("^[^:]*\\.md(#.*)?$"), e.getKey() + " links to Markdown: " + href);
                int hash = href.indexOf('#');
                if (hash < 0 || href.contains(":")) continue;
                String target = hash == 0 ? e.getKey() : href.substring(0, hash).replaceAll("\\.html$", "");
                Document page = rendered.get(target);
                if (page == null) continue; // a page outside the manual (../README.md)
                if (hash == 0) samePage++;
                else otherPage++;
                String id = href.substring(hash + 1);
                if (page.getElementById(id) == null) broken.add(e.getKey() + " -> " + href);
            }
        }
        assertTrue(broken.isEmpty(), "anchors without a target: " + broken);
        assertTrue(samePage > 0 && otherPage > 0, "checked " + samePage + " same-page and " + otherPage
                + " cross-page anchors");
    }

    @Test
    void headingsGetGithubStyleIds() {
        Document d = Jsoup.parse(Markdown.toHtml("# Peer protocol\n\n## Limits in one place\n\n## The `lang:` filter"
                + "\n\n## Limits in one place\n"));
        assertEquals(List.of("peer-protocol", "limits-in-one-place", "the-lang-filter", "limits-in-one-place-1"),
                d.select("h1, h2").eachAttr("id"));
    }

    @Test
    void rawHtmlIsShownAsTextAndUnsafeLinksAreDropped() {
        String html = Markdown.toHtml("<script>alert(1)</script>\n\nText <img src=x onerror=alert(2)> and"
                + " [click](javascript:alert(3)) and [page](protocol.md#limits-in-one-place) and"
                + " [home](https://example.org/)\n");
        Document d = Jsoup.parseBodyFragment(html);
        assertTrue(d.select("script, img, [onerror]").isEmpty(), html);
        assertTrue(d.text().contains("<script>alert(1)</script>"), d.text());
        assertEquals(List.of("", "protocol.html#limits-in-one-place", "https://example.org/"),
                d.select("a").eachAttr("href"));

        // the manual's own embedding example (an <iframe> in a fenced block) stays code
        Document ops = Jsoup.parse(Markdown.toHtml(ManualPages.find("operations").orElseThrow().markdown()));
        assertTrue(ops.select("iframe").isEmpty());
        assertTrue(ops.select("pre code").stream().anyMatch(c -> c.text().contains("<iframe")));
    }

    /** The cells of a Markdown table row as the reader sees them (backticks and bold markers gone). */
    private static List<String> cells(String row) {
        String r = row.strip();
        if (r.startsWith("|")) r = r.substring(1);
        if (r.endsWith("|") && !r.endsWith("\\|")) r = r.substring(0, r.length() - 1);
        return Arrays.stream(r.split("(?<!\\\\)\\|"))
                .map(c -> c.replace("\\|", "|").replace("`", "").replace("**", "").strip()).toList();
    }

    private static int tablesIn(String md) {
        List<String> lines = md.lines().toList();
        int n = 0;
        boolean fenced = false;
        for (int i = 0; i + 1 < lines.size(); i++) {
            String line = lines.get(i).strip(); // a table may sit indented inside a list item
            if (line.startsWith("```")) fenced = !fenced;
            if (!fenced && line.startsWith("|") && DELIMITER_ROW.matcher(lines.get(i + 1).strip()).matches()) {
                n++;
            }
        }
        return n;
    }
}
