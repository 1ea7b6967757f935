package org.peerdex.actors.importer;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.apache.commons.compress.compressors.bzip2.BZip2CompressorInputStream;

/**
 * Streams a MediaWiki XML export ({@code pages-articles.xml}, plain, .bz2 — multistream too — or .gz) with StAX,
 * one page at a time, so a dump of any size is read in memory bounded by the largest page (each page's text is
 * cut at {@link WikiText#MAX_INPUT_CHARS}). The wiki's URLs come from {@code <siteinfo><base>}.
 */
public final class MediaWikiDump {
    private MediaWikiDump() {}

    /** One page of the dump (its newest revision in the export). @param redirect the redirect target, or null */
    public record WikiPage(String title, int namespace, String redirect, long timestamp, String contributor,
                           String text, boolean textCut) {}

    /** What the dump says about its wiki. @param articleBase the URL a page title is appended to */
    public record SiteInfo(String siteName, String base, String articleBase) {}

    /** Decompresses by magic number: "BZh" bzip2, 1f 8b gzip, anything else as it is. */
    public static InputStream decompressed(InputStream raw) throws IOException {
        BufferedInputStream in = raw instanceof BufferedInputStream b ? b : new BufferedInputStream(raw, 1 << 16);
        in.mark(4);
        byte[] head = in.readNBytes(3);
        in.reset();
        if (head.length == 3 && head[0] == 'B' && head[1] == 'Z' && head[2] == 'h') {
            return new BufferedInputStream(new BZip2CompressorInputStream(in, true), 1 << 16);
        }
        if (head.length >= 2 && (head[0] & 0xff) == 0x1f && (head[1] & 0xff) == 0x8b) {
            return new BufferedInputStream(new GZIPInputStream(in, 1 << 16), 1 << 16);
        }
        return in;
    }

    /**
     * Reads the dump, calling {@code onSiteInfo} once (before the first page) and {@code onPage} for each page,
     * until the end or until {@code stopped} is true.
     *
     * @throws IOException with the line and column for malformed XML or a broken archive
     */
    public static void read(InputStream raw, Consumer<SiteInfo> onSiteInfo, Consumer<WikiPage> onPage,
                            BooleanSupplier stopped) throws IOException {
        XMLInputFactory f = Xml.safeFactory();
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        XMLStreamReader r;
        try {
            r = f.createXMLStreamReader(decompressed(raw), "UTF-8");
        } catch (XMLStreamException e) {
            throw new IOException("not a MediaWiki dump: " + Xml.where(e), e);
        }
        int pages = 0;
        try {
            boolean root = false;
            String siteName = "";
            String base = "";
            boolean siteInfoSent = false;
            String title = null;
            int ns = 0;
            String redirect = null;
            long timestamp = 0;
            String contributor = "";
            String text = "";
            boolean cut = false;
            boolean inRevision = false;
            while (r.hasNext()) {
                int ev = r.next();
                if (ev == XMLStreamConstants.START_ELEMENT) {
                    String name = r.getLocalName();
                    if (!root) {
                        if (!name.equals("mediawiki")) {
                            throw new IOException("not a MediaWiki dump: the root element is <" + name + ">, not <mediawiki>");
                        }
                        root = true;
                        continue;
                    }
                    switch (name) {
                        case "sitename" -> siteName = r.getElementText().strip();
                        case "base" -> base = r.getElementText().strip();
                        case "page" -> {
                            if (!siteInfoSent) {
                                onSiteInfo.accept(siteInfo(siteName, base));
                                siteInfoSent = true;
                            }
                            title = null;
                            ns = 0;
                            redirect = null;
                            timestamp = 0;
                            contributor = "";
                            text = "";
                            cut = false;
                        }
                        case "title" -> title = r.getElementText().strip();
                        case "ns" -> {
                            String v = r.getElementText().strip();
                            try {
                                ns = Integer.parseInt(v);
                            } catch (NumberFormatException e) {
                                throw new IOException("page '" + title + "' has a bad <ns>: " + v);
                            }
                        }
                        case "redirect" -> {
                            String t = r.getAttributeValue(null, "title");
                            redirect = t == null ? "" : t;
                        }
                        case "revision" -> inRevision = true;
                        case "timestamp" -> {
                            String v = r.getElementText().strip();
                            try {
                                timestamp = Instant.parse(v).toEpochMilli();
                            } catch (RuntimeException e) {
                                timestamp = 0;
                            }
                        }
                        case "username", "ip" -> {
                            if (inRevision) contributor = r.getElementText().strip();
                        }
                        case "text" -> {
                            StringBuilder b = new StringBuilder();
                            cut = readBounded(r, b, WikiText.MAX_INPUT_CHARS);
                            text = b.toString();
                        }
                        default -> { }
                    }
                } else if (ev == XMLStreamConstants.END_ELEMENT) {
                    String name = r.getLocalName();
                    if (name.equals("revision")) inRevision = false;
                    else if (name.equals("page")) {
                        if (title == null) throw new IOException("a <page> without a <title> after " + pages + " pages");
                        onPage.accept(new WikiPage(title, ns, redirect, timestamp, contributor, text, cut));
                        pages++;
                        if (stopped.getAsBoolean()) return;
                    } else if (name.equals("siteinfo") && !siteInfoSent) {
                        onSiteInfo.accept(siteInfo(siteName, base));
                        siteInfoSent = true;
                    }
                }
            }
            if (!root) throw new IOException("not a MediaWiki dump: empty input");
        } catch (XMLStreamException e) {
            throw new IOException("malformed MediaWiki dump after " + pages + " pages, " + Xml.where(e), e);
        } catch (RuntimeException e) {
            // StAX implementations wrap stream errors (a truncated .bz2) in runtime exceptions
            if (e.getCause() instanceof IOException io) throw new IOException("broken dump after " + pages + " pages: "
                    + io.getMessage(), io);
            throw e;
        } finally {
            try {
                r.close();
            } catch (XMLStreamException ignored) {
                // closing a broken reader
            }
        }
    }

    /** Reads the element's text up to {@code max} chars, skipping the rest; true if it was cut. */
    private static boolean readBounded(XMLStreamReader r, StringBuilder b, int max) throws XMLStreamException {
        boolean cut = false;
        while (true) {
            int ev = r.next();
            if (ev == XMLStreamConstants.CHARACTERS || ev == XMLStreamConstants.CDATA
                    || ev == XMLStreamConstants.SPACE || ev == XMLStreamConstants.ENTITY_REFERENCE) {
                if (b.length() < max) {
                    int room = max - b.length();
                    int len = r.getTextLength();
                    b.append(r.getTextCharacters(), r.getTextStart(), Math.min(room, len));
                    if (len > room) cut = true;
                } else {
                    cut = true;
                }
            } else if (ev == XMLStreamConstants.END_ELEMENT) {
                return cut;
            } else if (ev == XMLStreamConstants.START_ELEMENT) {
                throw new XMLStreamException("unexpected element <" + r.getLocalName() + "> inside <text>", r.getLocation());
            }
        }
    }

    static SiteInfo siteInfo(String siteName, String base) {
        String articleBase = "";
        if (!base.isEmpty()) {
            int slash = base.lastIndexOf('/');
            articleBase = slash > base.indexOf("//") + 1 ? base.substring(0, slash + 1) : base + "/";
        }
        return new SiteInfo(siteName, base, articleBase);
    }

    /** The page's URL as MediaWiki builds it: spaces to underscores, the rest percent-encoded. */
    public static String pageUrl(String articleBase, String title) {
        String enc = URLEncoder.encode(title.replace(' ', '_'), StandardCharsets.UTF_8)
                .replace("%2F", "/").replace("%3A", ":").replace("%28", "(").replace("%29", ")").replace("%2C", ",")
                .replace("%27", "'").replace("%21", "!").replace("%7E", "~").replace("+", "%20");
        return articleBase + enc;
    }

    /**
     * The import of a dump: articles (namespace 0, or every namespace with {@code allNamespaces}) become
     * documents; redirects and other namespaces are skipped. {@code baseUrl} overrides the dump's own base.
     */
    public static ImportSource source(ImportInput input, String baseUrl, boolean allNamespaces) {
        return ctx -> {
            String[] articleBase = {baseUrl == null || baseUrl.isBlank() ? null
                    : (baseUrl.endsWith("/") ? baseUrl : baseUrl + "/")};
            long[] pages = {0};
            try (InputStream in = input.open()) {
                read(in, info -> {
                    ctx.detail("siteName", info.siteName());
                    if (articleBase[0] == null) {
                        if (info.articleBase().isEmpty()) {
                            throw new IllegalStateException("the dump has no <siteinfo><base>; give a baseUrl");
                        }
                        articleBase[0] = info.articleBase();
                    }
                    ctx.detail("articleBase", articleBase[0]);
                }, page -> {
                    pages[0]++;
                    if (articleBase[0] == null) throw new IllegalStateException("the dump has no <siteinfo><base>; give a baseUrl");
                    if (page.redirect() != null) {
                        ctx.skipped("redirect " + page.title());
                        return;
                    }
                    if (page.namespace() != 0 && !allNamespaces) {
                        ctx.skipped("namespace " + page.namespace() + ": " + page.title());
                        return;
                    }
                    WikiText.Result w = WikiText.convert(page.text());
                    List<String> links = new ArrayList<>(Math.min(w.links().size(), 500));
                    for (String l : w.links()) {
                        if (links.size() >= 500) break;
                        links.add(pageUrl(articleBase[0], l));
                    }
                    String desc = w.text().length() > 300 ? w.text().substring(0, 300) : w.text();
                    ctx.document(new ImportedDocument(pageUrl(articleBase[0], page.title()), page.title(), desc,
                            page.contributor(), w.categories(), w.headings(), w.emphasized(), w.text(), "",
                            "text/x-wiki", 't', page.timestamp(), page.text().length(), links));
                    if (page.textCut()) ctx.count("pagesCut");
                }, ctx::stopped);
            } catch (IllegalStateException e) {
                throw new IOException(e.getMessage(), e);
            } finally {
                ctx.detail("pagesRead", pages[0]);
            }
        };
    }
}
