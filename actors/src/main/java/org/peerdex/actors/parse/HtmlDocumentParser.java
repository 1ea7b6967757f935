package org.peerdex.actors.parse;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jsoup.nodes.Document;
import org.jsoup.nodes.Element;
import org.jsoup.nodes.Node;
import org.jsoup.nodes.TextNode;
import org.jsoup.parser.Parser;
import org.peerdex.protocol.url.UrlNormalizer;
import org.peerdex.storage.meta.PageImage;

/**
 * Parses fetched HTML (jsoup) and plain-text documents into {@link ParsedDocument}s. A plain class, thread-safe,
 * bounded: input beyond {@code maxBytes} is ignored, the tree is cut at {@code maxDepth}, body text, links,
 * headings and emphasis are capped, so a huge or hostile page costs bounded time and memory.
 */
public final class HtmlDocumentParser {
    public static final int DEFAULT_MAX_BYTES = 10 << 20;
    public static final int DEFAULT_MAX_DEPTH = 256;
    public static final int DEFAULT_MAX_LINKS = 2000;
    public static final int DEFAULT_MAX_TEXT_CHARS = 1 << 20;
    private static final int MAX_FIELD_ITEMS = 300;
    private static final int MAX_FIELD_CHARS = 1000;
    private static final int MAX_ANCHOR_CHARS = 200;
    /** Images kept per page, and the characters of alt and surrounding text kept per image. */
    static final int MAX_IMAGES = 50;
    private static final int MAX_IMAGE_TEXT_CHARS = 300;
    /** An alt text that is a path or file name of an image, not a description. */
    private static final Pattern FILE_NAME = Pattern.compile(
            "\\S*\\.(?i:png|jpe?g|gif|svg|webp|bmp|ico|avif|tiff?)");

    private final int maxBytes;
    private final int maxDepth;
    private final int maxLinks;
    private final int maxTextChars;

    public HtmlDocumentParser() {
        this(DEFAULT_MAX_BYTES, DEFAULT_MAX_DEPTH, DEFAULT_MAX_LINKS, DEFAULT_MAX_TEXT_CHARS);
    }

    public HtmlDocumentParser(int maxBytes, int maxDepth, int maxLinks, int maxTextChars) {
        this.maxBytes = maxBytes;
        this.maxDepth = maxDepth;
        this.maxLinks = maxLinks;
        this.maxTextChars = maxTextChars;
    }

    /** Thrown for a document that is not text at all (binary bytes, whatever the header says). */
    public static final class NotTextException extends RuntimeException {
        public NotTextException(String message) {
            super(message);
        }
    }

    /**
     * Parses {@code body} fetched from {@code url} with the given Content-Type header (may be null): HTML when the
     * header says so (or says nothing and the bytes look like HTML), plain text otherwise.
     *
     * @throws IllegalArgumentException if the URL is not an http(s) URL
     * @throws NotTextException         if the bytes are binary
     */
    public ParsedDocument parse(String url, byte[] body, String contentType) {
        String normal = UrlNormalizer.normalize(url)
                .orElseThrow(() -> new IllegalArgumentException("not an http(s) URL: " + url));
        byte[] bytes = body.length > maxBytes ? Arrays.copyOf(body, maxBytes) : body;
        boolean cut = body.length > maxBytes;
        ContentSniffer.Kind kind = ContentSniffer.sniff(bytes);
        if (kind == ContentSniffer.Kind.BINARY) throw new NotTextException("binary content");
        String mime = ContentSniffer.mimeType(contentType);
        boolean html = mime.isEmpty() ? kind == ContentSniffer.Kind.HTML
                : mime.contains("html") || mime.contains("xml") && kind == ContentSniffer.Kind.HTML;
        CharsetDetector.Detected cs = CharsetDetector.detect(bytes, contentType);
        String text = CharsetDetector.decode(bytes, cs);
        if (mime.isEmpty()) mime = html ? "text/html" : "text/plain";
        return html ? parseHtml(normal, mime, cs.charset().name(), text, cut)
                : parseText(normal, mime, cs.charset().name(), text, cut);
    }

    private ParsedDocument parseText(String url, String mime, String charset, String text, boolean cut) {
        String body = text.length() > maxTextChars ? text.substring(0, maxTextChars) : text;
        boolean truncated = cut || text.length() > maxTextChars;
        String firstLine = body.strip().lines().findFirst().orElse("");
        String title = clip(firstLine, 200);
        String normalizedBody = body.replaceAll("\\s+", " ").strip();
        return new ParsedDocument(url, 't', mime, charset, title, "", List.of(), "",
                LanguageDetector.detect(normalizedBody), List.of(), List.of(), List.of(), false, false, "",
                normalizedBody, contentHash(title, normalizedBody), truncated);
    }

    private ParsedDocument parseHtml(String url, String mime, String charset, String html, boolean cut) {
        Parser parser = Parser.htmlParser().setMaxDepth(maxDepth);
        Document doc = parser.parseInput(html, url);

        String base = url;
        Element baseEl = doc.selectFirst("base[href]");
        if (baseEl != null) base = UrlNormalizer.resolve(url, baseEl.attr("href")).orElse(url);

        // one pass over the meta elements instead of a document-wide select per field
        Map<String, String> metas = new HashMap<>();
        Map<String, String> equivs = new HashMap<>();
        for (Element m : doc.select("meta[content]")) {
            String content = m.attr("content").strip();
            if (m.hasAttr("name")) metas.putIfAbsent(m.attr("name").toLowerCase(Locale.ROOT), content);
            if (m.hasAttr("property")) metas.putIfAbsent(m.attr("property").toLowerCase(Locale.ROOT), content);
            if (m.hasAttr("http-equiv")) equivs.putIfAbsent(m.attr("http-equiv").toLowerCase(Locale.ROOT), content);
        }
        String title = doc.title();
        if (title.isBlank()) title = meta(metas, "og:title");
        if (title.isBlank()) {
            Element h1 = doc.selectFirst("h1");
            if (h1 != null) title = h1.text();
        }
        String description = firstNonBlank(meta(metas, "description"), meta(metas, "og:description"),
                meta(metas, "dc.description"));
        List<String> keywords = new ArrayList<>();
        for (String k : meta(metas, "keywords").split("[,;]")) {
            String t = k.strip();
            if (!t.isEmpty() && keywords.size() < MAX_FIELD_ITEMS) keywords.add(clip(t, 100));
        }
        String author = firstNonBlank(meta(metas, "author"), meta(metas, "dc.creator"), meta(metas, "article:author"));

        boolean noindex = false;
        boolean nofollow = false;
        for (Element m : doc.select("meta[name]")) {
            String name = m.attr("name").toLowerCase(Locale.ROOT);
            if (name.equals("robots") || name.equals("peerdexbot")) {
                String c = m.attr("content").toLowerCase(Locale.ROOT);
                if (c.contains("noindex") || c.contains("none")) noindex = true;
                if (c.contains("nofollow") || c.contains("none")) nofollow = true;
            }
        }

        String canonical = "";
        for (Element l : doc.select("link[rel][href]")) {
            if (l.attr("rel").toLowerCase(Locale.ROOT).contains("canonical")) {
                canonical = UrlNormalizer.resolve(base, l.attr("href")).orElse("");
                break;
            }
        }

        String language = "";
        Element htmlEl = doc.selectFirst("html[lang]");
        if (htmlEl != null) language = LanguageDetector.normalizeTag(htmlEl.attr("lang"));
        if (language.isEmpty()) {
            language = LanguageDetector.normalizeTag(firstNonBlank(meta(equivs, "content-language"),
                    meta(metas, "language")));
        }

        Map<String, ParsedDocument.Link> links = new LinkedHashMap<>();
        // a page repeats its links (navigation, "see also"): each href is resolved once (a third of the resolutions
        // on the OpenJDK API pages, where resolving was 18% of parsing)
        Map<String, Optional<String>> resolved = new HashMap<>();
        String linkBase = base;
        for (Element a : doc.select("a[href], area[href], frame[src], iframe[src]")) {
            if (links.size() >= maxLinks) break;
            String href = a.hasAttr("href") ? a.attr("href") : a.attr("src");
            Optional<String> target = resolved.computeIfAbsent(href, h -> UrlNormalizer.resolve(linkBase, h));
            if (target.isEmpty()) continue;
            String anchor = a.text();
            if (anchor.isBlank()) {
                Element img = a.selectFirst("img[alt]");
                if (img != null) anchor = img.attr("alt");
                else if (a.hasAttr("title")) anchor = a.attr("title");
            }
            boolean relNofollow = a.attr("rel").toLowerCase(Locale.ROOT).contains("nofollow");
            ParsedDocument.Link prev = links.get(target.get());
            String text = clip(anchor.strip(), MAX_ANCHOR_CHARS);
            if (prev == null) {
                links.put(target.get(), new ParsedDocument.Link(target.get(), text, relNofollow));
            } else if (prev.anchor().isEmpty() && !text.isEmpty()) {
                links.put(target.get(), new ParsedDocument.Link(target.get(), text, prev.nofollow() && relNofollow));
            }
        }

        // links (above) come from the whole page, so anchor text still counts for their targets; the text, headings
        // and emphasis indexed for this page come from its main content, without the site's navigation and footer
        Element content = HtmlMainContent.extract(doc);
        List<PageImage> images = images(content, base);
        List<String> headings = texts(content, "h1, h2, h3, h4, h5, h6");
        List<String> emphasized = texts(content, "b, strong, em, i, u, mark");
        String body = content.text();
        boolean truncated = cut;
        if (body.length() > maxTextChars) {
            body = body.substring(0, maxTextChars);
            truncated = true;
        }
        if (language.isEmpty()) language = LanguageDetector.detect(title + " " + body);
        return new ParsedDocument(url, 'h', mime, charset, clip(title.strip(), MAX_FIELD_CHARS),
                clip(description, MAX_FIELD_CHARS * 4), keywords, clip(author, MAX_FIELD_CHARS), language, headings,
                emphasized, new ArrayList<>(links.values()), noindex, nofollow, canonical, body,
                contentHash(title, body), truncated, images);
    }

    /**
     * The images of the main content, each once: {@code img} elements whose source resolves to an http(s) URL
     * ({@code data:} and the like are not pictures one can link to), without the tracking pixels and spacers a
     * width or height of 2 pixels or less gives away. Alt text falls back to the title attribute; the surrounding
     * text is the caption of the image's figure, else the text of its nearest block ancestor.
     */
    static List<PageImage> images(Element content, String base) {
        Map<String, PageImage> out = new LinkedHashMap<>();
        for (Element img : content.select("img[src], img[data-src]")) {
            if (out.size() >= MAX_IMAGES) break;
            if (tiny(img.attr("width")) || tiny(img.attr("height")) || hidden(img)) continue;
            String src = img.attr("src").isBlank() ? img.attr("data-src") : img.attr("src");
            String alt = img.attr("alt").strip();
            // an alt of only a sign ("-", "+") marks a control (Sphinx's module index togglers), not a picture
            if (!alt.isEmpty() && !alt.codePoints().anyMatch(Character::isLetterOrDigit)) continue;
            Optional<String> url = UrlNormalizer.resolve(base, src.strip());
            if (url.isEmpty() || out.containsKey(url.get())) continue;
            // Sphinx and others write the file name as the alt text: it says nothing
            if (alt.equals(src.strip()) || FILE_NAME.matcher(alt).matches()) alt = "";
            if (alt.isEmpty()) alt = img.attr("title").strip();
            out.put(url.get(), new PageImage(url.get(), clip(alt, MAX_IMAGE_TEXT_CHARS),
                    clip(surroundingText(img), MAX_IMAGE_TEXT_CHARS)));
        }
        return new ArrayList<>(out.values());
    }

    private static boolean hidden(Element img) {
        String style = img.attr("style").replace(" ", "").toLowerCase(Locale.ROOT);
        return img.hasAttr("hidden") || style.contains("display:none") || style.contains("visibility:hidden");
    }

    private static boolean tiny(String dimension) {
        String d = dimension.strip().replace("px", "");
        if (!d.matches("\\d{1,5}")) return false;
        return Integer.parseInt(d) <= 2;
    }

    private static String surroundingText(Element img) {
        Element figure = img.closest("figure");
        if (figure != null) {
            Element caption = figure.selectFirst("figcaption");
            if (caption != null && !caption.text().isBlank()) return caption.text();
        }
        Element child = img;
        for (Element e = img.parent(); e != null; child = e, e = e.parent()) {
            if (!e.isBlock()) continue;
            // an image alone in its block: the text of the blocks next to it
            if (e.text().isBlank()) return around(siblingText(e, true), siblingText(e, false));
            if (e.text().length() <= MAX_IMAGE_TEXT_CHARS) return e.text();
            // a long block (an article): the text just before and after the image's branch of it
            return around(adjacentText(child, true), adjacentText(child, false));
        }
        return "";
    }

    /** The end of the text before and the start of the text after, half the bound each. */
    private static String around(String before, String after) {
        int half = MAX_IMAGE_TEXT_CHARS / 2;
        String b = before.length() > half ? before.substring(before.length() - half) : before;
        String a = after.length() > half ? after.substring(0, half) : after;
        return (b + " " + a).strip();
    }

    /** The text of the nearest element before (or after) {@code e} that has any. */
    private static String siblingText(Element e, boolean before) {
        for (Element s = before ? e.previousElementSibling() : e.nextElementSibling(); s != null;
             s = before ? s.previousElementSibling() : s.nextElementSibling()) {
            if (!s.text().isBlank()) return s.text();
        }
        return "";
    }

    /** The text of the nearest node before (or after) {@code n} that has any (whitespace between tags has none). */
    private static String adjacentText(Node n, boolean before) {
        for (Node s = before ? n.previousSibling() : n.nextSibling(); s != null;
             s = before ? s.previousSibling() : s.nextSibling()) {
            String t = s instanceof TextNode tn ? tn.text().strip() : s instanceof Element e ? e.text() : "";
            if (!t.isBlank()) return t;
        }
        return "";
    }

    private static List<String> texts(Element doc, String css) {
        List<String> out = new ArrayList<>();
        for (Element e : doc.select(css)) {
            if (out.size() >= MAX_FIELD_ITEMS) break;
            String t = e.text();
            if (!t.isBlank()) out.add(clip(t, MAX_FIELD_CHARS));
        }
        return out;
    }

    private static String meta(Map<String, String> metas, String name) {
        return metas.getOrDefault(name, "");
    }

    private static String firstNonBlank(String... s) {
        for (String x : s) if (x != null && !x.isBlank()) return x;
        return "";
    }

    private static String clip(String s, int max) {
        return s.length() > max ? s.substring(0, max) : s;
    }

    /** Hex MD5 of title and body: equal for pages that differ only in markup. */
    public static String contentHash(String title, String body) {
        try {
            MessageDigest md = MessageDigest.getInstance("MD5");
            md.update(title.strip().getBytes(StandardCharsets.UTF_8));
            md.update((byte) '\n');
            md.update(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(md.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required by every JVM", e);
        }
    }
}
