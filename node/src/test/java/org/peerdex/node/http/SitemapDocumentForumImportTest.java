package org.peerdex.node.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.pdfbox.pdmodel.PDDocument;
import org.apache.pdfbox.pdmodel.PDDocumentInformation;
import org.apache.pdfbox.pdmodel.PDPage;
import org.apache.pdfbox.pdmodel.PDPageContentStream;
import org.apache.pdfbox.pdmodel.font.PDType1Font;
import org.apache.pdfbox.pdmodel.font.Standard14Fonts;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Sitemap index, PDF documents and the phpBB forum import end to end on loopback, found by /api/search. */
class SitemapDocumentForumImportTest {
    static ImportTestPeer peer;

    @BeforeAll
    static void start() throws Exception {
        peer = new ImportTestPeer("");
        peer.serve("/sitemaps/index.xml", "application/xml", peer.fixture("sitemap-index.xml"));
        peer.serve("/sitemaps/sitemap-docs.xml", "application/xml", peer.fixture("sitemap-docs.xml"));
        peer.serve("/sitemaps/sitemap-papers.xml", "application/xml", peer.fixture("sitemap-papers.xml"));
        peer.serve("/sitemaps/broken.xml", "application/xml", peer.fixture("sitemap-malformed.xml"));
        peer.serve("/robots.txt", "text/plain", "User-agent: *\nDisallow: /private/\n".getBytes(StandardCharsets.UTF_8));
        peer.serve("/private/drafts.html", "text/html", html("Drafts", "unreleasedword plans"));
        peer.serve("/site/install.html", "text/html", html("Installing Fjord",
                "Unpack the archive and run the frostbind installer."));
        peer.serve("/site/upgrade.html", "text/html", html("Upgrading Fjord",
                "Before upgrading, export your keymaps with the snowdrift command."));
        peer.serve("/papers/whitepaper.pdf", "application/pdf", pdf("The Kelpwright Architecture",
                "Kelpwright splits buffers into ropes of gapless chunks.", "Second page mentions the narwhal scheduler."));
        peer.serve("/papers/broken.pdf", "application/pdf", "%PDF-1.7\nthis is not really a pdf".getBytes(StandardCharsets.US_ASCII));
        String forumFixtures = "forum-";
        peer.serve("/forum/index.php", "text/html; charset=utf-8", peer.fixture(forumFixtures + "index.html"));
        peer.serve("/forum/viewforum.php", ex -> ImportTestPeer.Reply.ok("text/html; charset=utf-8",
                peer.fixture("forum-viewforum-2.html")));
        peer.serve("/forum/viewtopic.php", ex -> {
            String q = ex.getRequestURI().getQuery();
            String page = q.contains("t=11") ? "forum-topic-11.html" : q.contains("start=15") ? "forum-topic-10-p2.html"
                    : "forum-topic-10.html";
            return ImportTestPeer.Reply.ok("text/html; charset=utf-8", peer.fixture(page));
        });
        for (String trap : List.of("posting", "ucp", "memberlist", "search", "viewonline", "faq", "report")) {
            peer.serve("/forum/" + trap + ".php", "text/html", html("Trap " + trap, "trapword " + trap));
        }
    }

    @AfterAll
    static void stop() throws Exception {
        if (peer != null) peer.close();
    }

    static byte[] html(String title, String body) {
        return ("<!doctype html><html lang=\"en\"><head><title>" + title + "</title></head><body><h1>" + title
                + "</h1><p>" + body + "</p></body></html>").getBytes(StandardCharsets.UTF_8);
    }

    /** A real two-page PDF, made with PDFBox. */
    static byte[] pdf(String title, String page1, String page2) throws Exception {
        try (PDDocument doc = new PDDocument(); ByteArrayOutputStream out = new ByteArrayOutputStream()) {
            for (String text : List.of(page1, page2)) {
                PDPage page = new PDPage();
                doc.addPage(page);
                try (PDPageContentStream cs = new PDPageContentStream(doc, page)) {
                    cs.beginText();
                    cs.setFont(new PDType1Font(Standard14Fonts.FontName.HELVETICA), 12);
                    cs.newLineAtOffset(72, 700);
                    cs.showText(text);
                    cs.endText();
                }
            }
            PDDocumentInformation info = new PDDocumentInformation();
            info.setTitle(title);
            info.setAuthor("Runa Tveit");
            info.setKeywords("editors, ropes");
            doc.setDocumentInformation(info);
            doc.save(out);
            return out.toByteArray();
        }
    }

    @Test
    void aSitemapIndexIsFollowedToItsPagesAndPdfs() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("sitemap", Map.of("url", peer.siteBase + "/sitemaps/index.xml")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(3, p.get("details").get("sitemaps").asInt(), "the index and both sitemaps: " + p);
        assertEquals(5, p.get("details").get("urlsListed").asInt(), p.toString());
        assertEquals(3, p.get("imported").asInt(), p.toString());
        assertEquals(1, p.get("skipped").asInt(), "robots.txt disallows /private/: " + p);
        assertEquals(1, p.get("details").get("robotsDisallowed").asInt(), p.toString());
        assertTrue(peer.urls("unreleasedword").isEmpty());
        assertFalse(peer.requests.stream().anyMatch(r -> r.contains("/private/")), "never fetched");
        assertEquals(1, p.get("errors").asInt(), "removed.html answers 404: " + p);
        assertTrue(p.get("recentErrors").get(0).asText().contains("HTTP 404"), p.toString());
        assertTrue(peer.urls("frostbind").get(0).endsWith("/site/install.html"));
        assertTrue(peer.urls("snowdrift").get(0).endsWith("/site/upgrade.html"));
        JsonNode pdf = peer.search("kelpwright").get("results").get(0);
        assertTrue(pdf.get("url").asText().endsWith("/papers/whitepaper.pdf"), pdf.toString());
        assertEquals("The Kelpwright Architecture", pdf.get("title").asText());
        assertEquals("pdf", pdf.get("filetype").asText());
        assertFalse(peer.urls("narwhal scheduler").isEmpty(), "the second PDF page is indexed");
        assertEquals("2026-11-15", pdf.get("date").asText(), "the sitemap's lastmod dates the document");

        // a second run skips the pages whose lastmod did not change
        JsonNode again = peer.awaitEnd(peer.startImport("sitemap", Map.of("url", peer.siteBase + "/sitemaps/index.xml")));
        assertEquals(4, again.get("skipped").asInt(), again.toString());
        assertEquals(0, again.get("imported").asInt(), again.toString());
    }

    @Test
    void aMalformedSitemapFailsClearly() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("sitemap", Map.of("url", peer.siteBase + "/sitemaps/broken.xml")));
        assertEquals("failed", p.get("state").asText(), p.toString());
        assertTrue(p.get("error").asText().contains("/sitemaps/broken.xml"), p.toString());
        JsonNode missing = peer.awaitEnd(peer.startImport("sitemap", Map.of("url", peer.siteBase + "/sitemaps/none.xml")));
        assertEquals("failed", missing.get("state").asText());
        assertTrue(missing.get("error").asText().contains("HTTP 404"), missing.toString());
    }

    @Test
    void documentsAreImportedByUrlAndFromDiskWithinBounds() throws Exception {
        JsonNode p = peer.awaitEnd(peer.startImport("document", Map.of("url", peer.siteBase + "/papers/whitepaper.pdf")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        assertEquals(1, p.get("imported").asInt(), p.toString());

        Path dir = Files.createTempDirectory(peer.dataDir, "docs");
        Files.write(dir.resolve("manual.pdf"), pdf("Glacierfox Manual", "Glacierfox keeps tabs in a skiplist.", "End."));
        Files.writeString(dir.resolve("notes.txt"), "Plain notes about the walrusfold option.");
        Files.write(dir.resolve("broken.pdf"), "%PDF-1.4 truncated".getBytes(StandardCharsets.US_ASCII));
        Files.write(dir.resolve("image.png"), new byte[] {(byte) 0x89, 'P', 'N', 'G', 13, 10, 26, 10, 0, 0, 0, 13});
        JsonNode disk = peer.awaitEnd(peer.startImport("document", Map.of("path", dir.toString(),
                "baseUrl", "http://files.fjord.test/docs/")));
        assertEquals("finished", disk.get("state").asText(), disk.toString());
        assertEquals(2, disk.get("imported").asInt(), disk.toString());
        assertEquals(1, disk.get("errors").asInt(), "the broken PDF: " + disk);
        assertTrue(disk.get("recentErrors").get(0).asText().contains("not a readable PDF"), disk.toString());
        assertEquals(1, disk.get("skipped").asInt(), "the PNG has no parser: " + disk);
        assertEquals(List.of("http://files.fjord.test/docs/manual.pdf"), peer.urls("glacierfox"));
        assertEquals(List.of("http://files.fjord.test/docs/notes.txt"), peer.urls("walrusfold"));

        JsonNode broken = peer.awaitEnd(peer.startImport("document", Map.of("url", peer.siteBase + "/papers/broken.pdf")));
        assertEquals(1, broken.get("errors").asInt(), broken.toString());
        assertEquals(0, broken.get("imported").asInt(), broken.toString());
    }

    @Test
    void theForumImportFollowsTopicsAndSkipsEveryTrapVariant() throws Exception {
        int before = peer.requests.size();
        JsonNode p = peer.awaitEnd(peer.startImport("phpbb", Map.of("url", peer.siteBase
                + "/forum/index.php?sid=4f2a9c1e0b7d")));
        assertEquals("finished", p.get("state").asText(), p.toString());
        List<String> asked = peer.requests.subList(before, peer.requests.size()).stream()
                .filter(r -> !r.endsWith("/robots.txt")).toList();
        assertEquals(5, p.get("imported").asInt(), "index, forum, topic 10 (two pages), topic 11: " + asked);
        assertEquals(5, asked.size(), asked.toString());
        for (String r : asked) {
            assertFalse(r.contains("sid="), "session ids are stripped: " + r);
            for (String trap : List.of("posting.php", "ucp.php", "memberlist.php", "search.php", "viewonline.php",
                    "faq.php", "report.php", "view=", "sk=", "hilit=", "p=55", "mark=", "watch=")) {
                assertFalse(r.contains(trap), "trap " + trap + " fetched: " + r);
            }
        }
        assertTrue(p.get("details").get("linksSkippedByRules").asInt() >= 20, p.toString());
        List<String> solved = peer.urls("debounce quillstroke");
        assertEquals(1, solved.size(), solved + " " + peer.search("quillstroke") + " " + peer.search("debounce"));
        // the URL normalizer sorts query parameters
        assertTrue(solved.get(0).endsWith("/forum/viewtopic.php?start=15&t=10"), solved.toString());
        assertTrue(peer.urls("statusline").get(0).endsWith("/forum/viewtopic.php?t=11"));
        assertTrue(peer.urls("trapword").isEmpty());
    }

    @Test
    void thePhpbbRulesAreACrawlProfilePreset() throws Exception {
        HttpResponse<String> r = peer.send("GET", "/api/import/profile/phpbb", null);
        assertEquals(200, r.statusCode(), r.body());
        JsonNode profile = Json.MAPPER.readTree(r.body());
        assertEquals("phpbb", profile.get("name").asText());
        String mustNot = profile.get("mustNotMatch").asText();
        assertTrue("http://f.test/viewtopic.php?t=10&view=print".matches(mustNot));
        assertFalse("http://f.test/viewtopic.php?t=10&start=15".matches(mustNot));
        assertTrue("http://f.test/viewtopic.php?t=10".matches(profile.get("mustMatch").asText()));
        assertFalse("http://f.test/posting.php?mode=reply&t=10".matches(profile.get("mustMatch").asText()));
        assertEquals(404, peer.send("GET", "/api/import/profile/vbulletin", null).statusCode());
    }
}
