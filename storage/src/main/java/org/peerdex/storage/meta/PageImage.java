package org.peerdex.storage.meta;

/**
 * An image shown in a page's main content, as the parser saw its {@code img} element: what an image search
 * answers with (YaCy's {@code contentdom=image}).
 *
 * @param src  the image's absolute, normalized http(s) URL
 * @param alt  its {@code alt} text (or {@code title}), "" when it has none
 * @param text the text around it: its figure's caption, else its parent block's text, clipped
 */
public record PageImage(String src, String alt, String text) {
    public PageImage {
        src = src == null ? "" : src;
        alt = alt == null ? "" : alt;
        text = text == null ? "" : text;
    }
}
