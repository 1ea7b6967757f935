package org.peerdex.actors.importer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.peerdex.actors.crawl.ForumRules;

/** The pure parts of the importers: parsers, rules and safeguards, without a peer. */
class ImporterParsersTest {
    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void oaiPmhErrorsAreNamedAndNoRecordsMatchIsAnEmptyList() throws Exception {
        String head = "<OAI-PMH xmlns=\"http://www.openarchives.org/OAI/2.0/\"><responseDate>2026-01-01T00:00:00Z</responseDate>";
        OaiPmhImport.OaiException e = assertThrows(OaiPmhImport.OaiException.class, () -> OaiPmhImport.parse(utf8(
                head + "<error code=\"cannotDisseminateFormat\">oai_dc is not supported</error></OAI-PMH>")));
        assertTrue(e.getMessage().contains("cannotDisseminateFormat: oai_dc is not supported"), e.getMessage());
        OaiPmhImport.Page empty = OaiPmhImport.parse(utf8(head + "<error code=\"noRecordsMatch\"/></OAI-PMH>"));
        assertTrue(empty.records().isEmpty());
        assertTrue(empty.resumptionToken().isEmpty());
        IOException notOai = assertThrows(IOException.class, () -> OaiPmhImport.parse(utf8("<html><body>Hi</body></html>")));
        assertTrue(notOai.getMessage().contains("not an OAI-PMH response"), notOai.getMessage());
        IOException dtd = assertThrows(IOException.class, () -> OaiPmhImport.parse(utf8(
                "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>" + head + "&e;</OAI-PMH>")));
        assertTrue(dtd.getMessage().startsWith("malformed OAI-PMH response"), "no external entities: " + dtd.getMessage());
    }

    @Test
    void oaiRequestsCarryFromAndOnlyTheTokenWhenResuming() {
        assertEquals("http://r.test/oai?verb=ListRecords&metadataPrefix=oai_dc&from=2026-01-01&set=phys",
                OaiPmhImport.firstRequest("http://r.test/oai", "2026-01-01", "phys"));
        assertEquals("http://r.test/oai?verb=ListRecords&resumptionToken=a%2Fb%3D1",
                OaiPmhImport.resumeRequest("http://r.test/oai", "a/b=1"));
    }

    @Test
    void feedsWithoutLinksAndBrokenFeedsAreReported() throws Exception {
        FeedImport.Feed f = FeedImport.parse(utf8("<rss version=\"2.0\"><channel><title>T</title><link>http://x.test/</link>"
                + "<description>d</description><item><title>No link</title><description>x</description></item>"
                + "</channel></rss>"));
        assertEquals(1, f.entries().size());
        assertEquals("", f.entries().get(0).url());
        IOException e = assertThrows(IOException.class, () -> FeedImport.parse(utf8("<html><body>not a feed</body></html>")));
        assertTrue(e.getMessage().startsWith("not a readable RSS or Atom feed"), e.getMessage());
    }

    @Test
    void phpbbRulesStripSessionsAndRefuseTrapVariants() {
        ForumRules r = ForumRules.PHPBB;
        assertEquals("http://f.test/forum/viewtopic.php?t=10", r.canonical("http://f.test/forum/viewtopic.php?f=2&t=10&sid=abc").orElseThrow());
        assertEquals(r.canonical("http://f.test/forum/viewtopic.php?t=10"), r.canonical("http://f.test/forum/viewtopic.php?t=10&start=0"));
        assertTrue(r.canonical("http://f.test/forum/viewtopic.php?t=10&start=15").orElseThrow().contains("start=15"));
        assertEquals("http://f.test/forum/viewforum.php?f=2", r.canonical("http://f.test/forum/viewforum.php?f=2&sid=1").orElseThrow());
        for (String trap : List.of("posting.php?mode=reply&t=10", "viewtopic.php?t=10&view=print", "viewtopic.php?p=55",
                "viewforum.php?f=2&sk=t&sd=d", "ucp.php?mode=login", "memberlist.php", "search.php?search_id=newposts",
                "viewtopic.php?t=10&hilit=word", "index.php?mark=forums", "viewtopic.php", "viewonline.php",
                "viewtopic.php?t=10&unknown=1")) {
            assertTrue(r.canonical("http://f.test/forum/" + trap).isEmpty(), trap);
        }
        assertTrue(r.canonical("http://f.test/forum/").isPresent(), "the board root is a start");
    }

    @Test
    void proxySafeguardsFollowYacysRules() {
        URI plain = URI.create("http://s.test/a.html");
        Map<String, List<String>> html = Map.of("Content-Type", List.of("text/html"));
        assertTrue(ProxySafeguards.refusal("GET", plain, Map.of(), 200, html, false).isEmpty());
        assertEquals("query string", ProxySafeguards.refusal("GET", URI.create("http://s.test/a?q=1"), Map.of(), 200, html, false).orElseThrow());
        assertTrue(ProxySafeguards.refusal("GET", URI.create("http://s.test/a?q=1"), Map.of(), 200, html, true).isEmpty());
        assertEquals("method POST", ProxySafeguards.refusal("POST", plain, Map.of(), 200, html, false).orElseThrow());
        assertEquals("authorization", ProxySafeguards.refusal("GET", plain, Map.of("authorization", List.of("Basic x")), 200, html, false).orElseThrow());
        assertEquals("cookie", ProxySafeguards.refusal("GET", plain, Map.of("COOKIE", List.of("a=1")), 200, html, false).orElseThrow());
        assertEquals("cache-control no-store", ProxySafeguards.refusal("GET", plain, Map.of(), 200,
                Map.of("Content-Type", List.of("text/html"), "Cache-Control", List.of("no-store")), false).orElseThrow());
        assertEquals("partial content", ProxySafeguards.refusal("GET", plain, Map.of(), 206, html, false).orElseThrow());
        assertEquals("status 302", ProxySafeguards.refusal("GET", plain, Map.of(), 302, html, false).orElseThrow());
        assertTrue(ProxySafeguards.refusal("GET", plain, Map.of(), 200, Map.of("Content-Type", List.of("image/png")), false)
                .orElseThrow().startsWith("content type"));
    }

    @Test
    void fetchPolicyKeepsImportersOffPrivateRangesOutsideIntranetMode() throws Exception {
        assertThrows(FetchPolicy.RefusedException.class, () -> FetchPolicy.PUBLIC_ONLY.check(URI.create("http://127.0.0.1/")));
        assertThrows(FetchPolicy.RefusedException.class, () -> new FetchPolicy(true, false).check(URI.create("http://10.1.2.3/")));
        assertThrows(FetchPolicy.RefusedException.class, () -> FetchPolicy.PUBLIC_ONLY.check(URI.create("ftp://example.org/")));
        new FetchPolicy(true, false).check(URI.create("http://127.0.0.1:8080/"));
        new FetchPolicy(false, true).check(URI.create("http://192.168.1.1/"));
        assertTrue(FetchPolicy.isPrivate(InetAddress.getByName("100.64.0.1")));
        assertTrue(FetchPolicy.isPrivate(InetAddress.getByName("fd00::1")));
        assertFalse(FetchPolicy.isPrivate(InetAddress.getByName("93.184.216.34")));
    }

    @Test
    void scannerRangesAreParsedAndBounded() {
        NetworkScanner s = new NetworkScanner(List.of(80), java.time.Duration.ofMillis(100), 300);
        assertEquals(254, s.addresses(List.of("192.168.7.0/24")).size());
        assertEquals("192.168.7.1", s.addresses(List.of("192.168.7.0/24")).get(0).getHostAddress());
        assertEquals(3, s.addresses(List.of("10.0.0.8-10.0.0.10")).size());
        assertEquals(1, s.addresses(List.of("127.0.0.1")).size());
        assertThrows(IllegalArgumentException.class, () -> s.addresses(List.of("10.0.0.0/16")));
        assertThrows(IllegalArgumentException.class, () -> s.addresses(List.of("10.0.0.9-10.0.0.1")));
        assertThrows(IllegalArgumentException.class, () -> s.addresses(List.of("example.org")));
    }

    /** A dump generated on the fly: the reader must stream it, never hold it whole. */
    static InputStream generatedDump(int pages) {
        List<InputStream> parts = new ArrayList<>();
        parts.add(new ByteArrayInputStream(utf8("<mediawiki xmlns=\"http://www.mediawiki.org/xml/export-0.10/\">"
                + "<siteinfo><sitename>Gen</sitename><base>https://gen.test/wiki/Main_Page</base></siteinfo>")));
        Iterator<InputStream> pageIt = new Iterator<>() {
            int i;

            public boolean hasNext() {
                return i < pages;
            }

            public InputStream next() {
                i++;
                return new ByteArrayInputStream(utf8("<page><title>Page " + i + "</title><ns>0</ns><id>" + i
                        + "</id><revision><timestamp>2026-01-01T00:00:00Z</timestamp><text xml:space=\"preserve\">'''Page "
                        + i + "''' links [[Page " + (i + 1) + "]]. " + "Filler text about fjords. ".repeat(40) + "</text></revision></page>"));
            }
        };
        Iterator<InputStream> all = new Iterator<>() {
            final Iterator<InputStream> head = parts.iterator();
            boolean tailSent;

            public boolean hasNext() {
                return head.hasNext() || pageIt.hasNext() || !tailSent;
            }

            public InputStream next() {
                if (head.hasNext()) return head.next();
                if (pageIt.hasNext()) return pageIt.next();
                tailSent = true;
                return new ByteArrayInputStream(utf8("</mediawiki>"));
            }
        };
        return new SequenceInputStream(new java.util.Enumeration<InputStream>() {
            public boolean hasMoreElements() {
                return all.hasNext();
            }

            public InputStream nextElement() {
                return all.next();
            }
        });
    }

    @Test
    void aLargeDumpIsStreamedPageByPage() throws Exception {
        int[] count = {0};
        long[] textChars = {0};
        MediaWikiDump.SiteInfo[] info = {null};
        MediaWikiDump.read(generatedDump(20_000), i -> info[0] = i, p -> {
            count[0]++;
            textChars[0] += p.text().length();
        }, () -> false);
        assertEquals(20_000, count[0]);
        assertEquals("https://gen.test/wiki/", info[0].articleBase());
        assertTrue(textChars[0] > 20_000L * 1000, "about 20 MB of wikitext went through: " + textChars[0]);
        assertEquals("https://gen.test/wiki/Caf%C3%A9_(disambiguation)",
                MediaWikiDump.pageUrl("https://gen.test/wiki/", "Café (disambiguation)"));
    }

    @Test
    void readingAMalformedDumpNamesTheLineAndThePagesRead() {
        IOException e = assertThrows(IOException.class, () -> MediaWikiDump.read(new ByteArrayInputStream(utf8(
                "<mediawiki><siteinfo><base>http://w.test/wiki/Main</base></siteinfo><page><title>A</title><ns>0</ns>"
                        + "<revision><text>ok</text></revision></page>\n<page><title>B</title><revision><text>x</revision>")),
                i -> { }, p -> { }, () -> false));
        assertTrue(e.getMessage().startsWith("malformed MediaWiki dump after 1 pages, line 2"), e.getMessage());
        IOException notWiki = assertThrows(IOException.class, () -> MediaWikiDump.read(new ByteArrayInputStream(
                utf8("<rss/>")), i -> { }, p -> { }, () -> false));
        assertTrue(notWiki.getMessage().contains("not a MediaWiki dump"), notWiki.getMessage());
    }
}
