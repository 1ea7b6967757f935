package org.peerdex.actors.search;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.jsoup.Jsoup;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.peerdex.actors.parse.HtmlMainContent;
import org.peerdex.storage.text.DocumentText;

/**
 * A small jsoup extraction of a page's fields (title, description, keywords, author, headings, emphasized text,
 * body) into {@link DocumentText}, for indexing bundled pages (the manual) and test corpora. Crawled pages go
 * through the crawler's own parser.
 */
public final class HtmlText {
    private HtmlText() {}

    /** The extracted page plus its outgoing links (absolute URLs with their anchor texts). */
    public record Page(DocumentText text, List<Link> links, String language) {}

    public record Link(String url, String anchor) {}

    public static Page parse(String html, String url) {
        Document d = Jsoup.parse(html, url);
        String title = d.title();
        if (title.isBlank()) {
            Element h1 = d.selectFirst("h1");
            title = h1 == null ? "" : h1.text();
        }
        List<Link> links = new ArrayList<>();
        for (Element a : d.select("a[href]")) {
            String abs = a.absUrl("href");
            if (abs.startsWith("http")) {
                int hash = abs.indexOf('#');
                links.add(new Link(hash >= 0 ? abs.substring(0, hash) : abs, a.text()));
            }
        }
        String description = d.select("meta[name=description]").attr("content");
        String keywords = d.select("meta[name=keywords]").attr("content");
        String author = d.select("meta[name=author]").attr("content");
        String lang = d.select("html").attr("lang");
        lang = lang.length() >= 2 ? lang.substring(0, 2).toLowerCase(Locale.ROOT) : "";
        // as the crawler's parser: links from the whole page, text from its main content (HtmlMainContent)
        Element content = HtmlMainContent.extract(d);
        List<String> headings = new ArrayList<>();
        for (Element h : content.select("h1, h2, h3, h4, h5, h6")) if (!h.text().isBlank()) headings.add(h.text());
        List<String> emphasized = new ArrayList<>();
        for (Element e : content.select("b, strong, em, i, code.literal, dt")) {
            if (!e.text().isBlank() && emphasized.size() < 500) emphasized.add(e.text());
        }
        String text = content.text();
        List<String> kw = keywords.isBlank() ? List.of() : List.of(keywords.split("\\s*,\\s*"));
        return new Page(new DocumentText(url, title, description, kw, author, headings, emphasized, List.of(), text),
                links, lang);
    }

    /** The same page with the anchor texts of links pointing to it (indexed for it, as YaCy does). */
    public static DocumentText withAnchors(DocumentText t, List<String> anchors) {
        return new DocumentText(t.url(), t.title(), t.description(), t.keywords(), t.author(), t.headings(),
                t.emphasized(), anchors, t.body());
    }
}
