package org.peerdex.actors.importer;

import com.rometools.rome.feed.synd.SyndCategory;
import com.rometools.rome.feed.synd.SyndContent;
import com.rometools.rome.feed.synd.SyndEntry;
import com.rometools.rome.feed.synd.SyndFeed;
import com.rometools.rome.feed.synd.SyndLink;
import com.rometools.rome.io.FeedException;
import com.rometools.rome.io.SyndFeedInput;
import com.rometools.rome.io.XmlReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.jsoup.Jsoup;
import org.peerdex.actors.parse.HtmlDocumentParser;
import org.peerdex.actors.parse.ParsedDocument;

/**
 * RSS 0.9x/1.0/2.0 and Atom feeds (ROME): each entry becomes a document at its link, with the entry's title,
 * summary or content, author, categories and date; optionally the linked page itself is fetched and indexed
 * instead. Entries already indexed with the same date are skipped, so a feed can be re-read on a schedule.
 */
public final class FeedImport {
    static final long MAX_FEED_BYTES = 16L << 20;
    private static final HtmlDocumentParser PARSER = new HtmlDocumentParser();

    private FeedImport() {}

    /** One entry of a feed. @param published epoch ms (updated date if there is no published one), 0 unknown */
    public record Entry(String url, String title, String text, String author, List<String> categories, long published) {}

    /** The feed's title and entries. */
    public record Feed(String title, String type, List<Entry> entries) {}

    /** Parses feed XML. @throws IOException naming what is wrong with it */
    public static Feed parse(byte[] xml) throws IOException {
        SyndFeed feed;
        try {
            SyndFeedInput in = new SyndFeedInput();
            in.setAllowDoctypes(false);
            feed = in.build(new XmlReader(new ByteArrayInputStream(xml)));
        } catch (FeedException | IllegalArgumentException e) {
            throw new IOException("not a readable RSS or Atom feed: " + e.getMessage(), e);
        }
        List<Entry> entries = new ArrayList<>();
        for (SyndEntry e : feed.getEntries()) {
            String link = e.getLink();
            if (link == null || link.isBlank()) {
                for (SyndLink l : e.getLinks()) {
                    if (l.getRel() == null || l.getRel().equals("alternate")) {
                        link = l.getHref();
                        break;
                    }
                }
            }
            if ((link == null || link.isBlank()) && e.getUri() != null && e.getUri().startsWith("http")) link = e.getUri();
            StringBuilder text = new StringBuilder();
            if (e.getDescription() != null && e.getDescription().getValue() != null) {
                text.append(html(e.getDescription().getValue()));
            }
            for (SyndContent c : e.getContents()) {
                if (c.getValue() != null) text.append(text.length() > 0 ? "\n" : "").append(html(c.getValue()));
            }
            List<String> cats = new ArrayList<>();
            for (SyndCategory c : e.getCategories()) if (c.getName() != null && !c.getName().isBlank()) cats.add(c.getName().strip());
            Date d = e.getPublishedDate() != null ? e.getPublishedDate() : e.getUpdatedDate();
            entries.add(new Entry(link == null ? "" : link.strip(), e.getTitle() == null ? "" : html(e.getTitle()),
                    text.toString(), e.getAuthor() == null ? "" : e.getAuthor(), cats, d == null ? 0 : d.getTime()));
        }
        return new Feed(feed.getTitle() == null ? "" : feed.getTitle(), feed.getFeedType(), entries);
    }

    private static String html(String s) {
        return s.indexOf('<') < 0 && s.indexOf('&') < 0 ? s.strip() : Jsoup.parse(s).text();
    }

    /**
     * The import of one feed; with {@code fetchLinked} each entry's page is fetched and indexed; with
     * {@code force} entries indexed already with the same date are imported again.
     */
    public static ImportSource source(ImportInput input, PageFetcher fetcher, boolean fetchLinked, boolean force) {
        return ctx -> {
            Feed feed = parse(input.read(MAX_FEED_BYTES));
            ctx.detail("feedTitle", feed.title());
            ctx.detail("feedType", feed.type());
            ctx.detail("entries", feed.entries().size());
            for (Entry e : feed.entries()) {
                if (ctx.stopped()) return;
                if (e.url().isEmpty()) {
                    ctx.error("entry '" + e.title() + "' has no link");
                    continue;
                }
                if (!force && ctx.unchanged(e.url(), e.published())) {
                    ctx.skipped("unchanged: " + e.url());
                    continue;
                }
                if (fetchLinked) {
                    try {
                        PageFetcher.Fetched f = fetcher.get(e.url());
                        if (f.status() == 200) {
                            ParsedDocument p = PARSER.parse(f.url(), f.body(), f.contentType());
                            ctx.document(fromParsed(p, e.published(), f.body().length, e.categories()));
                            continue;
                        }
                        ctx.error("HTTP " + f.status() + " from " + e.url() + "; indexed the feed's summary");
                    } catch (IOException | RuntimeException ex) {
                        ctx.error("cannot fetch " + e.url() + " (" + ex.getMessage() + "); indexed the feed's summary");
                    }
                }
                ctx.document(new ImportedDocument(e.url(), e.title(), e.text().length() > 300
                        ? e.text().substring(0, 300) : e.text(), e.author(), e.categories(), List.of(), List.of(),
                        e.text(), "", "text/html", 'h', e.published(), e.text().length(), List.of()));
            }
        };
    }

    /** A parsed fetched page as an imported document. */
    static ImportedDocument fromParsed(ParsedDocument p, long date, long size, List<String> moreKeywords) {
        List<String> kw = new ArrayList<>(p.keywords());
        kw.addAll(moreKeywords);
        List<String> links = new ArrayList<>();
        for (ParsedDocument.Link l : p.links()) links.add(l.url());
        return new ImportedDocument(p.url(), p.title(), p.description(), p.author(), kw, p.headings(), p.emphasized(),
                p.body(), p.language(), p.mimeType(), p.doctype(), date, size, links);
    }
}
